// The schedule explorer of a run cell: "try N schedules" runs the cell's
// code under the fair schedule and seeds 1..N (POST /api/schedules, as
// `workbench run --schedules N`), lists the seeds that fail or whose
// outputs differ from the fair run, and opens any of them as its own run
// (schedule random:SEED) with its lanes and Explain.

import { el, clear, plural } from "../util.js";
import { api } from "../api.js";

export class ScheduleExplorer {
  /**
   * opts.body() is the run's request ({code, entry, ranks, platform,
   * fill}); opts.open(schedule) runs the cell under that schedule.
   */
  constructor(opts) {
    this.opts = opts;
    this.count = el("select", { "data-test": "schedules-n", "aria-label": "How many random schedules" },
      [8, 20, 64].map((n) => el("option", { value: String(n) }, String(n))));
    this.count.value = "20";
    this.btn = el("button", { type: "button", class: "btn small", "data-test": "try-schedules", onclick: () => this.explore(), title: "rerun under seeded random schedules, as run --schedules N" }, "Try schedules");
    this.control = el("span", { class: "ctl" }, this.btn, " ", this.count);
    this.root = el("div", { class: "sched-explorer", "data-test": "schedules", hidden: true });
  }

  async explore() {
    const n = Number(this.count.value);
    this.btn.disabled = true;
    this.root.hidden = false;
    this.root.dataset.state = "running";
    clear(this.root).append(el("p", { class: "muted" }, `Running the fair schedule and ${plural(n, "random schedule")}…`));
    let res;
    try {
      res = await api.schedules({ ...this.opts.body(), n });
    } catch (e) {
      this.root.dataset.state = "failed";
      clear(this.root).append(el("p", { class: "fail" }, `✗ ${e.message}`), e.hint ? el("p", { class: "muted" }, e.hint) : null);
      this.btn.disabled = false;
      return;
    }
    this.btn.disabled = false;
    this.show(res);
  }

  show(res) {
    const root = clear(this.root);
    root.dataset.state = "done";
    root.dataset.failed = String(res.failed);
    root.dataset.ran = String(res.ran);
    const head = res.error && !res.seeds.length
      ? `✗ ${res.error}`
      : `Fair schedule: ${res.fair}. ${plural(res.ran, "random schedule")}${res.ran < res.n ? ` of ${res.n} (the time limit cut the rest)` : ""}: ${res.failed} failed or differed.`;
    root.append(el("p", { class: res.failed ? "fail" : "pass", "data-test": "schedules-summary" }, head));
    const bad = res.seeds.filter((s) => s.failed);
    if (bad.length) {
      root.append(el("ul", { class: "sched-list" }, bad.map((s) =>
        el("li", null,
          el("button", { type: "button", class: "btn small", "data-test": "open-seed", "data-seed": String(s.seed), onclick: () => this.opts.open(s.schedule), title: `run under ${s.schedule}: lanes and Explain` }, `Open ${s.schedule}`),
          " ", el("span", { class: "sched-why" }, s.why.startsWith(s.status) ? s.why : `${s.status}: ${s.why}`)))));
    }
    const ok = res.seeds.filter((s) => !s.failed).map((s) => s.seed);
    if (ok.length) root.append(el("p", { class: "muted" }, `Same as fair: seed${ok.length > 1 ? "s" : ""} ${ok.join(", ")}.`));
  }
}
