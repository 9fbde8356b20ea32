// The step check: `workbench step N --check` on the cell's code, at every
// rank count of the step's kernel, each under the fair and the adversarial
// schedule (POST /api/steps/{n}/check). One row per rank count; the
// headline says whether the code did what its variant must.

import { el, clear, plural } from "../util.js";

export class StepCheck {
  constructor() {
    this.root = el("div", { class: "step-check", "data-test": "step-check-slot" });
  }

  /** pending shows that the check is running. */
  pending() {
    clear(this.root).append(el("p", { class: "muted small" }, "Step check: running the kernel at every rank count, under the fair and the adversarial schedule…"));
  }

  /** fail shows a check that could not be run (a refused post, the server gone). */
  fail(message, hint) {
    clear(this.root).append(el("div", { class: "verdict bad", "data-test": "step-check", "data-pass": "false" },
      el("strong", null, "✗ Step check not run"), ` — ${message}${hint ? ` (${hint})` : ""}`));
  }

  /** render shows a POST /api/steps/{n}/check answer. */
  render(res, stepNo) {
    this.headline = "";
    const vs = res.verdicts || [];
    const byP = new Map();
    for (const v of vs) (byP.get(v.ranks) || byP.set(v.ranks, []).get(v.ranks)).push(v);
    const counts = [...byP.keys()].sort((a, b) => a - b);
    const failedAt = counts.filter((p) => byP.get(p).some((v) => !v.pass));
    const bug = res.variant === "bug";
    let head;
    if (res.error) head = `✗ Step check could not run: ${res.error}`;
    else if (bug) head = res.ok ? "Bug reproduced at every rank count: it fails the way the lesson says" : "✗ Does not fail the way the lesson says (the bug is not reproduced)";
    else if (res.variant === "starter") head = res.ok ? "✓ Runs to completion at every rank count (the outputs stay wrong until the gaps are filled)" : "✗ Does not run to completion";
    else head = res.ok ? `✓ Step ${stepNo} check passed at ${plural(counts.length, "rank count")}` : `✗ Step ${stepNo} check failed at P=${failedAt.join(", ") || "?"}`;
    const rows = counts.map((p) => {
      const list = byP.get(p);
      const bad = list.find((v) => !v.pass);
      const pass = !bad;
      const what = pass
        ? bug ? "does not fail" : "fair+adversarial"
        : `${bad.schedule || "?"}: ${bad.status.replace("_", " ")}${bad.reason ? `: ${bad.reason}` : ""}`;
      const entries = [...new Set(list.map((v) => v.entry))];
      return el("tr", { "data-test": "step-check-row", "data-ranks": p, "data-pass": String(pass) },
        el("th", { scope: "row", class: "mono" }, `P=${p}`),
        el("td", null, el("span", { class: pass ? "pass" : "fail" }, pass ? "✓" : "✗")),
        el("td", { class: "sc-what" }, what),
        el("td", { class: "mono muted sc-entry" }, entries.join(", ")),
      );
    });
    this.headline = head;
    // A bug that did its damage is not a success to celebrate in green.
    const tone = bug ? (res.ok ? "bugshown" : "bad") : res.ok ? "ok" : "bad";
    clear(this.root).append(
      el("div", { class: "step-check-box", "data-test": "step-check", "data-pass": String(!!res.ok), "data-variant": res.variant || "" },
        el("div", { class: `verdict ${tone}` },
          el("strong", null, head),
          el("span", { class: "muted" }, ` · workbench step ${stepNo} --check${res.variant && res.variant !== "solution" ? ` (as ${res.variant} ${res.kernel})` : ""}`),
        ),
        rows.length ? el("table", { class: "sc-table" }, el("tbody", null, rows)) : null,
      ),
    );
  }
}
