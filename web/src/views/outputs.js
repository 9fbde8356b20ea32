// The outputs view: per output tensor, one row per rank (the tensor's
// leading dimension) with the step check's verdict, the largest absolute
// difference from the golden, the first few values and the golden's
// expected values beside them (mismatches highlighted), expandable to every
// value; then the run's overall verdict from done.check.

import { el, clear, fmtNum } from "../util.js";

const SHOW = 6;

export class Outputs {
  constructor() {
    this.list = el("div", { class: "outputs-list" });
    this.verdict = el("div", { class: "verdict-slot" });
    this.root = el("div", { class: "outputs", "data-test": "outputs" }, this.verdict, this.list);
    this.reset();
  }

  reset(text) {
    clear(this.list);
    clear(this.verdict);
    this.count = 0;
    this.list.append(el("p", { class: "empty" }, text || "No outputs yet. They appear here when the run ends."));
  }

  /** add renders one `output` message. */
  add(msg) {
    if (this.count++ === 0) clear(this.list);
    const t = msg.tensor || { shape: [], data: [] };
    const shape = t.shape || [];
    const data = t.data || [];
    const rows = shape.length > 1 ? shape[0] : 1;
    const per = rows ? Math.max(1, Math.floor(data.length / rows)) : data.length;
    const check = msg.check;
    const byRank = new Map(((check && check.ranks) || []).map((r) => [r.rank, r]));
    const head = el("div", { class: "out-head" },
      el("strong", { class: "mono" }, msg.name),
      el("span", { class: "muted" }, ` ${t.dtype || ""} [${shape.join(", ")}]`),
      check ? passText(check.pass, "all ranks match the golden", "some ranks differ from the golden") : el("span", { class: "muted" }, " · not checked (no golden for this run)"),
    );
    const want = check && check.want && check.want.length === data.length ? check.want : null;
    const exact = /INT|BOOL/i.test(t.dtype || "");
    const table = el("table", { class: "out-table" },
      el("thead", null, el("tr", null,
        el("th", { scope: "col" }, shape.length > 1 ? "rank" : ""),
        check ? el("th", { scope: "col" }, "check") : null,
        check ? el("th", { scope: "col" }, "max |diff|") : null,
        el("th", { scope: "col" }, `values (${per} per rank)`),
        want ? el("th", { scope: "col" }, "expected") : null,
      )),
    );
    const body = el("tbody");
    const valCells = [];
    const render = (all) => {
      for (const { td, wd, r } of valCells) {
        const n = all ? per : Math.min(per, SHOW);
        clear(td);
        if (wd) clear(wd);
        for (let j = 0; j < n; j++) {
          const g = data[r * per + j];
          const w = want ? want[r * per + j] : undefined;
          const bad = want && !close(g, w, exact);
          td.append(j ? "  " : "", el("span", bad ? { class: "bad-val", "data-test": "bad-val", title: `element ${j}: got ${fmtNum(g)}, want ${fmtNum(w)}` } : null, fmtNum(g)));
          if (wd) wd.append(j ? "  " : "", el("span", { class: bad ? "want bad-want" : "want" }, fmtNum(w)));
        }
        if (n < per) {
          td.append("  …");
          if (wd) wd.append("  …");
        }
      }
    };
    for (let r = 0; r < rows; r++) {
      const rc = byRank.get(r);
      const cells = [el("th", { scope: "row" }, shape.length > 1 ? String(r) : "")];
      if (check) {
        cells.push(el("td", null, rc ? passText(rc.pass, "pass", "fail") : el("span", { class: "muted" }, "–")));
        cells.push(el("td", { class: "num" }, rc ? fmtNum(rc.max_abs_diff) + (rc.first_bad >= 0 ? ` at ${rc.first_bad}` : "") : ""));
      }
      const td = el("td", { class: "mono vals", "data-test": "vals" });
      const wd = want ? el("td", { class: "mono vals", "data-test": "want" }) : null;
      cells.push(td, wd);
      valCells.push({ td, wd, r });
      body.append(el("tr", rc ? { "data-test": "rank-check", "data-rank": r, "data-pass": String(!!rc.pass) } : null, cells));
    }
    render(false);
    table.append(body);
    let all = false;
    const more = per > SHOW ? el("button", { type: "button", class: "btn small out-more", "data-test": "out-expand", "aria-expanded": "false" }, `Show all ${per} values per rank`) : null;
    if (more) {
      more.addEventListener("click", () => {
        all = !all;
        render(all);
        more.textContent = all ? `Show the first ${SHOW}` : `Show all ${per} values per rank`;
        more.setAttribute("aria-expanded", String(all));
      });
      head.append(more);
    }
    this.list.append(el("section", { class: "out", "data-test": "output", "data-name": msg.name }, head, el("div", { class: "out-scroll" }, table)));
  }

  /** setDone shows the overall verdict from done.check. */
  setDone(done) {
    clear(this.verdict);
    if (this.count === 0) {
      clear(this.list);
      this.list.append(el("p", { class: "empty" }, done.status === "ok" ? "The run wrote no output tensors." : `The run ended with ${done.status.replace("_", " ")} before writing outputs; see Explain.`));
    }
    const c = done.check;
    if (!c) return;
    if (c.status === "no_golden") {
      this.verdict.append(el("p", { class: "muted", "data-test": "check-verdict", "data-pass": "none" }, `Not checked: ${c.reason || "no golden for this entry"}.`));
      return;
    }
    this.verdict.append(
      el("div", { class: `verdict ${c.pass ? "ok" : "bad"}`, "data-test": "check-verdict", "data-pass": String(!!c.pass) },
        el("strong", null, c.pass ? "✓ Check passed" : "✗ Check failed"),
        c.reason ? el("span", null, ` — ${c.reason}`) : null,
      ),
    );
  }
}

// close is the check's tolerance (engine.Close): exact for integers, else
// |got - want| <= 1e-5 + 1e-5·|want|.
function close(g, w, exact) {
  if (exact) return g === w;
  if (Number.isNaN(g) || Number.isNaN(w)) return false;
  return g === w || Math.abs(g - w) <= 1e-5 + 1e-5 * Math.abs(w);
}

/** passText renders a verdict with a symbol and a word, never colour alone. */
export function passText(pass, yes, no) {
  return el("span", { class: pass ? "pass" : "fail" }, pass ? `✓ ${yes}` : `✗ ${no}`);
}
