// The explain view: what went wrong in plain words. Compile diagnostics,
// the run-time error, each race (the engine's sentence and both sides) and
// the deadlock (who waits where, for what, and who could have notified).
// Every item names a line; clicking it shows the line in the editor.

import { el, clear, plural } from "../util.js";

const CMP = { Ge: "≥", Eq: "=", Gt: ">", Le: "≤", Lt: "<", Ne: "≠" };

export class Explain {
  /** onLine(line) scrolls the editor to a line. */
  constructor(onLine) {
    this.onLine = onLine;
    this.summary = el("p", { class: "explain-summary" });
    this.items = el("div", { class: "explain-items" });
    this.root = el("div", { class: "explain", "data-test": "explain" }, this.summary, this.items);
    this.reset();
  }

  reset(text) {
    clear(this.items);
    this.deadlockEl = null;
    this.n = 0;
    this.races = 0;
    this.summary.textContent = text || "Nothing to explain yet. After a run, compile errors, races, deadlocks and run-time errors are described here.";
  }

  /** count is the number of problems shown (diagnostics, races, deadlock, error). */
  get count() {
    return this.n;
  }

  lineButton(line, label) {
    return el("button", { type: "button", class: "linkish", onclick: () => this.onLine(line) }, label || `line ${line}`);
  }

  addDiagnostic(d) {
    this.n++;
    this.items.append(
      el("div", { class: `item diag ${d.severity}`, "data-test": "diagnostic", "data-line": d.line },
        el("span", { class: "tag" }, d.severity === "error" ? "✗ compile error" : `! ${d.severity}`),
        " ", d.line ? this.lineButton(d.line, `line ${d.line}:${d.col}`) : "", " ",
        el("span", { class: "mono" }, d.code || ""), " ", d.message,
        d.hint ? el("div", { class: "hint" }, "Hint: ", d.hint) : null,
      ),
    );
  }

  addRace(r) {
    this.n++;
    this.races++;
    const side = (label, s) =>
      el("li", null, `${label}: rank ${s.rank}${s.block ? ` block ${s.block}` : ""} `, el("span", { class: "mono" }, s.op), " at ", this.lineButton(s.line), s.region ? ` on ${s.region}` : "");
    const item = el("div", { class: "item race", "data-test": "race", "data-line-a": r.a.line, "data-line-b": r.b.line, tabindex: "-1" },
      el("span", { class: "tag" }, "✗ race"), " ", r.message,
      el("ul", null, side("first", r.a), side("then", r.b)),
    );
    item.addEventListener("click", (e) => {
      if (e.target.tagName !== "BUTTON") this.onLine(r.a.line, r.b.line);
    });
    this.items.append(item);
  }

  /** hasDeadlock reports whether a deadlock report is shown. */
  get hasDeadlock() {
    return !!this.deadlockEl;
  }

  setDeadlock(d) {
    this.n++;
    const ranks = (d && d.ranks) || [];
    this.items.append(
      this.deadlockEl = el("div", { class: "item deadlock", "data-test": "deadlock" },
        el("span", { class: "tag" }, "✗ deadlock"),
        ` ${plural(ranks.length, "rank")} wait for a signal that no rank will send: every rank still running is blocked.`,
        el("ul", null, ranks.map((b) =>
          el("li", { "data-rank": b.rank },
            `Rank ${b.rank}${b.block ? ` block ${b.block}` : ""} waits at `, this.lineButton(b.line),
            ` on `, el("span", { class: "mono" }, b.cell), ` (= ${b.value}, wants ${CMP[b.cmp] || b.cmp} ${b.expected}); `,
            b.notified_by && b.notified_by.length
              ? `notified by ${b.notified_by.map((r) => `rank ${r}`).join(", ")}, not enough.`
              : "nobody notified it.",
          ),
        )),
      ),
    );
  }

  /** addDeadlockHint adds the deadlock error's hint to the deadlock report (once). */
  addDeadlockHint(hint) {
    if (!hint || !this.deadlockEl || this.deadlockEl.querySelector(".hint")) return;
    this.deadlockEl.append(el("div", { class: "hint" }, "Hint: ", hint));
  }

  setError(err) {
    this.n++;
    this.items.append(
      el("div", { class: "item error", "data-test": "run-error" },
        el("span", { class: "tag" }, "✗ run-time error"), " ",
        `${err.rank < 0 ? "The host" : `Rank ${err.rank}`} stopped at `, this.lineButton(err.line), ": ",
        err.message, err.code ? el("span", { class: "mono" }, ` (${err.code})`) : null,
        err.hint ? el("div", { class: "hint" }, "Hint: ", err.hint) : null,
      ),
    );
  }

  /** setDone writes the summary line for a finished run. */
  setDone(done) {
    const s = done.status;
    const words = {
      ok: this.n ? "The run finished; see the notes below." : "The run finished cleanly: no races, no deadlock, no errors.",
      race: `The run finished but the race detector found ${plural(this.races, "race")}: two accesses to the same window bytes that no notify/wait orders.`,
      deadlock: "The run deadlocked: ranks wait for signals that never come.",
      runtime_error: "The run stopped with a run-time error.",
      compile_error: "The kernel did not compile.",
      timeout: "The run took longer than the server's time limit and was stopped.",
      cancelled: "The run was stopped before it finished.",
    };
    this.summary.textContent = words[s] || `The run ended: ${s}.`;
    if (done.events_truncated) this.summary.textContent += " (The trace was cut short: too many events to keep.)";
  }

  /** setFailure explains a run that could not be watched to its end. */
  setFailure(text, hint) {
    this.summary.textContent = text;
    if (hint) this.items.append(el("div", { class: "item" }, el("div", { class: "hint" }, "Hint: ", hint)));
  }
}
