// A cell's output area: the run's toolbar (status in words, share, trace
// download) and the tabbed views beneath it. handle() takes the websocket's
// messages in order and routes each to the views.

import { el, clear, plural, fmtNs, fmtBytes } from "./util.js";
import { traceURL, shareURL } from "./api.js";
import { Lanes } from "./lanes.js";
import { Outputs } from "./views/outputs.js";
import { Explain } from "./views/explain.js";
import { Traffic } from "./views/traffic.js";
import { Compare } from "./views/compare.js";
import { IRPane } from "./views/irpane.js";
import { SweepView } from "./views/sweep.js";

const TITLES = { lanes: "Swimlanes", outputs: "Outputs", explain: "Explain", traffic: "Traffic", compare: "Compare", ir: "IR", sweep: "Sweep" };

export class RunView {
  /**
   * opts.views lists the tabs (lanes, outputs, explain, traffic, compare,
   * ir); opts.onLine(lineA, lineB) shows lines in the editor;
   * opts.onSliceClick(event) runs when a slice is clicked.
   */
  constructor(opts) {
    this.opts = opts;
    this.status = el("span", { class: "rv-status", role: "status", "aria-live": "polite" });
    this.shareBtn = el("button", { type: "button", class: "btn small", "data-test": "share", hidden: true, onclick: () => this.share() }, "Share");
    this.download = el("a", { class: "btn small", "data-test": "download-trace", hidden: true, download: "" }, "Download trace");
    this.tablist = el("div", { class: "tabs", role: "tablist", "aria-label": "Run views" });
    this.panels = el("div", { class: "panels" });
    this.root = el("div", { class: "runview" },
      el("div", { class: "rv-bar" }, this.status, el("span", { class: "spacer" }), this.shareBtn, this.download),
      this.tablist, this.panels);
    this.views = {};
    this.tabs = {};
    for (const v of opts.views) this.addView(v);
    this.select(opts.views[0]);
    this.status.textContent = opts.idleText || "";
  }

  addView(v) {
    let view;
    if (v === "lanes") view = this.lanes = new Lanes({ onSliceClick: (e) => this.opts.onSliceClick && this.opts.onSliceClick(e) });
    else if (v === "outputs") view = this.outputs = new Outputs();
    else if (v === "explain") view = this.explain = new Explain((a, b) => this.opts.onLine && this.opts.onLine(a, b));
    else if (v === "traffic") view = this.traffic = new Traffic();
    else if (v === "compare") view = this.compare = new Compare();
    else if (v === "sweep") view = this.sweep = new SweepView();
    else if (v === "ir") {
      view = this.ir = new IRPane({ onLine: (n) => this.opts.onIRLine && this.opts.onIRLine(n) });
    }
    const id = `p${Math.random().toString(36).slice(2, 9)}`;
    const tab = el("button", {
      type: "button", role: "tab", class: "tab", id: `${id}-tab`, "aria-controls": id, "aria-selected": "false",
      "data-test": "tab", "data-view": v, tabindex: "-1", onclick: () => this.select(v),
    }, el("span", null, TITLES[v]), el("span", { class: "tab-count" }));
    tab.addEventListener("keydown", (e) => {
      const names = this.opts.views;
      const i = names.indexOf(v);
      let j = -1;
      if (e.key === "ArrowRight") j = (i + 1) % names.length;
      else if (e.key === "ArrowLeft") j = (i - 1 + names.length) % names.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = names.length - 1;
      if (j < 0) return;
      e.preventDefault();
      this.select(names[j]);
      this.tabs[names[j]].focus();
    });
    const panel = el("div", { role: "tabpanel", id, class: "panel", "aria-labelledby": `${id}-tab`, hidden: true }, view.root);
    this.tabs[v] = tab;
    this.views[v] = { view, panel };
    this.tablist.append(tab);
    this.panels.append(panel);
  }

  select(v) {
    if (!this.views[v]) return;
    this.current = v;
    for (const [name, { panel }] of Object.entries(this.views)) {
      const on = name === v;
      panel.hidden = !on;
      this.tabs[name].setAttribute("aria-selected", String(on));
      this.tabs[name].tabIndex = on ? 0 : -1;
    }
    if (v === "lanes") this.lanes.schedule(true);
    if (v === "traffic") this.traffic.render();
  }

  setCount(v, n) {
    if (this.tabs[v]) this.tabs[v].querySelector(".tab-count").textContent = n ? String(n) : "";
  }

  /** begin resets the run views for a new run. */
  begin(text) {
    this.id = "";
    this.done = null;
    this.shareBtn.hidden = true;
    this.shareBtn.removeAttribute("data-url");
    this.download.hidden = true;
    for (const v of ["lanes", "traffic"]) if (this.tabs[v]) this.tabs[v].hidden = false;
    this.status.textContent = text || "Starting…";
    if (this.lanes) this.lanes.reset(0, "Waiting for the first events…");
    if (this.outputs) this.outputs.reset();
    if (this.explain) this.explain.reset("The run is in progress.");
    if (this.traffic) this.traffic.reset(0);
    this.setCount("explain", 0);
  }

  /** handle routes one websocket message to the views. */
  handle(m) {
    switch (m.type) {
      case "status":
        this.id = m.id || this.id;
        this.status.textContent = { queued: "Queued: waiting for a free runner…", running: "Running…", replay: "Replaying the stored run…" }[m.status] || m.status;
        if (m.ranks) {
          this.lanes && this.lanes.setRanks(m.ranks);
          this.traffic && this.traffic.setRanks(m.ranks);
        }
        break;
      case "queue":
        this.status.textContent = `Queued: ${m.position} of ${m.of} waiting for a free runner…`;
        break;
      case "diagnostic":
        this.explain && this.explain.addDiagnostic(m.diagnostic);
        break;
      case "event":
        this.lanes && this.lanes.add(m.event);
        this.traffic && this.traffic.add(m.event);
        if (this.lanes && (this.lanes.count & 1023) === 1) this.status.textContent = `Running… ${plural(this.lanes.count, "event")}`;
        break;
      case "output":
        this.outputs && this.outputs.add(m);
        break;
      case "race":
        this.explain && this.explain.addRace(m.race);
        break;
      case "deadlock":
        this.explain && this.explain.setDeadlock(m.deadlock);
        this.lanes && this.lanes.setDeadlock(m.deadlock);
        break;
      case "done":
        this.finish(m);
        break;
    }
    if (this.explain && m.type !== "event") this.setCount("explain", this.explain.count);
  }

  finish(m) {
    this.done = m;
    // A deadlock also comes with an error (E0513) that repeats the deadlock
    // report in one sentence: show the deadlock once, with the error's hint.
    if (m.error && this.explain) {
      if (m.status === "deadlock" && m.error.code === "E0513" && this.explain.hasDeadlock) this.explain.addDeadlockHint(m.error.hint);
      else this.explain.setError(m.error);
    }
    this.explain && this.explain.setDone(m);
    this.outputs && this.outputs.setDone(m);
    if (this.traffic) {
      this.traffic.dirty = true;
      if (this.current === "traffic") this.traffic.render();
    }
    if (this.lanes && !this.lanes.count) this.lanes.setEmpty(m.status === "compile_error" ? "No events: the kernel did not compile (see Explain)." : "This run produced no events.");
    const s = m.stats || {};
    const words = { ok: "✓ finished", race: "✗ race", deadlock: "✗ deadlock", runtime_error: "✗ run-time error", compile_error: "✗ compile error", timeout: "✗ timed out", cancelled: "■ stopped" };
    let text = words[m.status] || m.status;
    if (m.check) text += m.check.pass ? " · check passed" : m.check.status === "no_golden" ? " · not checked (no golden for this entry)" : " · check failed";
    if (s.events) text += ` · ${plural(s.events, "event")} · ${fmtBytes(s.remote_bytes || 0)} remote · ${fmtNs(s.sim_time_ns || 0)} simulated`;
    this.status.textContent = text;
    // A program that did not compile ran nothing: no timeline, no traffic,
    // no trace to share or download; Explain says why.
    const compiled = m.status !== "compile_error";
    for (const v of ["lanes", "traffic"]) if (this.tabs[v]) this.tabs[v].hidden = !compiled;
    if (!compiled && this.views.explain) this.select("explain");
    if (m.share && compiled) {
      this.shareBtn.hidden = false;
      this.shareBtn.dataset.url = shareURL(m.share);
      const id = m.share.replace(/^.*\//, "");
      this.download.href = traceURL(id);
      this.download.hidden = false;
    }
    if (this.explain && this.explain.count && m.status !== "ok") this.select("explain");
  }

  /** stopped reports a run stopped from the page whose done did not arrive. */
  stopped() {
    this.finish({ type: "done", status: "cancelled" });
  }

  /** fail reports a run that could not be started or watched to its end. */
  fail(text, hint) {
    this.status.textContent = `✗ ${text}`;
    if (this.explain) {
      this.explain.reset();
      this.explain.setFailure(text, hint);
    }
    if (this.lanes && !this.lanes.count) this.lanes.setEmpty(`${text[0].toUpperCase()}${text.slice(1)}.${hint ? ` ${hint[0].toUpperCase()}${hint.slice(1)}.` : ""}`);
  }

  async share() {
    const url = this.shareBtn.dataset.url;
    if (!url) return;
    let ok = false;
    try {
      await navigator.clipboard.writeText(url);
      ok = true;
    } catch {
      ok = false;
    }
    const old = this.status.textContent;
    this.status.textContent = ok ? `Copied ${url}` : `Share link: ${url}`;
    if (ok) setTimeout(() => (this.status.textContent = old), 4000);
  }

  /** showIR shows IR text beside the source it came from (the ir cell). */
  showIR(text, diags, source) {
    this.ir.show(source, text, diags);
  }
}
