// A notebook cell: the kernel in an editor, the controls for its action
// (run, check, bug, starter, ir, compare; show is read-only) and the run
// views. It keeps the learner's edits and a version history in
// localStorage, and drives one run at a time over the websocket.

import { el, clear, plural, parseArgs, hashText, timeOfDay } from "./util.js";
import { api, openRun } from "./api.js";
import { createEditor, functionExcerpt } from "./editor.js";
import { RunView } from "./runview.js";
import { StepCheck } from "./views/stepcheck.js";
import * as store from "./storage.js";

const RUNS = new Set(["run", "check", "bug", "starter"]);
// The cells that also run the step's full check (POST /api/steps/{n}/check),
// as `workbench step N --check` does: every rank count, both schedules.
const FULL_CHECK = new Set(["check", "bug", "starter"]);
const LABEL = { run: "Run", check: "Check", bug: "Bug", starter: "Your turn", ir: "IR", compare: "Compare", show: "Code" };
const SCHEDULES = ["fair", "adversarial", "random:1", "random:2", "random:3", "random:4", "random:5", "random:6", "random:7", "random:8"];

/**
 * Cell builds one cell. spec: {index, action, name, args, kernel (GET
 * /api/kernels answer or null), step (GET /api/steps/{n} answer or null),
 * code (the source to start from), key (storage key, "" for none), shared
 * (the stored run on a share page)}. ctx: {nextCount(), focusNext(cell),
 * markDone(n)}.
 */
export class Cell {
  constructor(spec, ctx) {
    this.spec = spec;
    this.ctx = ctx;
    this.action = spec.action;
    this.flags = parseArgs(spec.args).flags;
    this.positional = parseArgs(spec.args).positional;
    this.state = "idle";
    this.sock = null;
    this.runnable = RUNS.has(this.action) || this.action === "ir" || this.action === "compare";
    this.build();
  }

  build() {
    const s = this.spec;
    this.countEl = el("span", { class: "run-count", "data-test": "run-count", title: "how many times this cell ran (like Jupyter's execution count)" }, "[ ]");
    this.badge = el("span", { class: "badge", "data-test": "state" });
    this.root = el("section", {
      class: `nb-cell act-${this.action}`, "data-test": "cell", "data-action": this.action, "data-kernel": s.name,
      "data-index": s.index, "aria-label": `${LABEL[this.action] || this.action} cell: ${s.name || "shared run"}`,
    });
    const title = el("div", { class: "cell-title" },
      this.runnable ? this.countEl : null,
      el("span", { class: "cell-kind" }, LABEL[this.action] || this.action),
      el("span", { class: "mono cell-file" }, s.name ? `${s.name}.py` : ""),
      this.action === "compare" ? el("span", { class: "mono cell-file" }, ` vs ${this.otherName()}.py`) : null,
      this.flags.function ? el("span", { class: "muted" }, ` · def ${this.flags.function[0]}`) : null,
      this.runnable ? this.badge : null,
    );
    this.root.append(el("div", { class: "cell-head" }, title));
    this.setState("idle");

    this.original = s.code || "";
    let doc = this.original;
    let firstLine = 1;
    let readOnly = this.action === "show" || !s.code;
    if (this.action === "show" && this.flags.function) {
      const ex = functionExcerpt(doc, this.flags.function[0]);
      if (ex) {
        doc = ex.text;
        firstLine = ex.firstLine;
      }
    }
    this.note = el("div", { class: "cell-note", role: "status", "aria-live": "polite" });
    if (this.action !== "show" && s.key) {
      const saved = store.loadCode(s.key);
      if (saved && typeof saved.code === "string" && saved.code !== this.original) {
        doc = saved.code;
        this.note.textContent = "Your edited version (kept in this browser). Reset brings back the lesson's code.";
        if (saved.orig && saved.orig !== hashText(this.original)) {
          this.note.textContent = "The lesson's code changed since you edited this cell: you see your version; Reset loads the new one (yours stays in History).";
        }
      }
    }
    if (this.runnable) this.root.append(this.controls());
    const edWrap = el("div", { class: "cell-editor" });
    this.root.append(edWrap);
    this.lintNote = el("span", { class: "lint-note" });
    this.root.append(el("div", { class: "cell-foot" }, this.lintNote, this.note));
    let saveTimer = 0;
    this.editor = createEditor(edWrap, {
      doc,
      readOnly,
      firstLine,
      label: `${s.name || "kernel"} source`,
      onRun: () => this.runnable && this.run({ advance: true }),
      onRunHere: () => this.runnable && this.run({}),
      onChange: (text) => {
        if (!s.key || readOnly) return;
        clearTimeout(saveTimer);
        saveTimer = setTimeout(() => store.saveCode(s.key, text, hashText(this.original)), 300);
      },
      onCursorLine: (line) => this.rv && this.rv.lanes && this.rv.lanes.setLine(line),
      lint: readOnly ? null : (text) => this.lint(text),
    });
    if (this.runnable) {
      this.outWrap = el("div", { class: "cell-out" }, el("p", { class: "cell-hint" }, this.idleHint()));
      this.root.append(this.outWrap);
    }
  }

  idleHint() {
    if (this.action === "ir") return "Press Lower (or Shift-Enter in the editor) to see the IR this kernel lowers to.";
    if (this.action === "compare") return `Press Compare (or Shift-Enter) to run this kernel and ${this.otherName()} on the same inputs and compare outputs, stats and lowered IR.`;
    return `No run yet. Press ${this.action === "check" ? "Check" : "Run"} (or Shift-Enter in the editor to run and move on, Ctrl/Cmd-Enter to stay) and every rank's timeline fills in here as it runs.`;
  }

  otherName() {
    return this.positional[0] ? this.positional[0].replace(/^.*\//, "").replace(/\.py$/, "") : "";
  }

  controls() {
    const s = this.spec;
    const shared = s.shared && s.shared.settings;
    const kernelRanks = (s.kernel && s.kernel.ranks) || [];
    const stepRanks = (s.step && s.step.ranks) || [];
    const argRanks = this.flags.ranks ? Number(this.flags.ranks[0]) : 0;
    this.argRanks = argRanks;
    const def = (shared && shared.ranks) || argRanks || kernelRanks[0] || (s.step && s.step.default_ranks) || 4;
    const ranks = [...new Set([...kernelRanks, ...stepRanks, def])].filter((r) => r > 0).sort((a, b) => a - b);
    this.ranksSel = select("ranks", "Ranks", ranks.map((r) => [String(r), String(r)]), String(def));
    const sched = (shared && shared.schedule) || (this.flags.schedule && this.flags.schedule[0]) || "fair";
    this.schedSel = select("schedule", "Schedule", [...new Set([...SCHEDULES, sched])].map((v) => [v, v]), sched);
    const plat = (shared && shared.platform) || (this.flags.platform && this.flags.platform[0]) || "910B";
    this.platSel = select("platform", "Platform", [["910B", "910B"], ["950", "950"]], plat);
    // A run cell is `workbench run`, whose inputs default to index (element
    // i = i, the numbers the lessons quote); a check uses the step check's
    // random inputs.
    const fill = (shared && shared.fill) || (this.flags.fill && this.flags.fill[0]) || (this.action === "check" ? "randn" : "index");
    this.fillSel = select("fill", "Inputs", ["index", "randn", "ones", "zeros"].map((v) => [v, v]), fill);
    this.fillSel.label.title = "index: element i is i; randn: seeded random; ones; zeros";
    const runLabel = this.action === "ir" ? "Lower" : this.action === "compare" ? "Compare" : this.action === "check" ? "Check" : "Run";
    this.runBtn = el("button", { type: "button", class: "btn primary", "data-test": "run", onclick: () => this.run({}), title: `${runLabel} (Ctrl/Cmd-Enter in the editor)` }, `▶ ${runLabel}`);
    this.stopBtn = el("button", { type: "button", class: "btn", "data-test": "stop", disabled: true, onclick: () => this.stop(), "aria-label": "Stop the run" }, "■ Stop");
    const bits = [this.runBtn, this.stopBtn, this.ranksSel.label];
    if (this.action !== "ir") bits.push(this.schedSel.label);
    if (RUNS.has(this.action) || this.action === "compare") bits.push(this.fillSel.label);
    bits.push(this.platSel.label);
    if (RUNS.has(this.action) && s.step && (s.step.variants || []).length) {
      const v = (shared && shared.variant) || this.defaultVariant();
      this.variantSel = select("variant", "Check as", [...new Set([...s.step.variants, v])].map((x) => [x, x]), v);
      this.variantSel.label.title = "which of the step's kernels the outputs are checked against";
      bits.push(this.variantSel.label);
    }
    if (this.action === "ir") {
      const after = (this.flags.after && this.flags.after[0]) || "";
      this.afterInput = el("input", { type: "text", class: "mono", "data-test": "after", value: after, placeholder: "final", size: "10", "aria-label": "IR after pass" });
      bits.push(el("label", { class: "ctl" }, "after pass ", this.afterInput));
    }
    this.histSel = el("select", { class: "hist", "aria-label": "Restore an earlier version", "data-test": "history", onfocus: () => this.fillHistory(), onmousedown: () => this.fillHistory(), onchange: () => this.restoreVersion() });
    this.fillHistory();
    this.undoBtn = el("button", { type: "button", class: "btn small", hidden: true, onclick: () => this.undoReset(), "data-test": "undo-reset" }, "Undo reset");
    const right = [this.histSel, el("button", { type: "button", class: "btn small", "data-test": "reset", onclick: () => this.reset() }, "Reset"), this.undoBtn];
    return el("div", { class: "cell-controls" }, bits, el("span", { class: "spacer" }), s.key ? right : null);
  }

  defaultVariant() {
    const a = this.action;
    if (a === "bug" || a === "starter") return a;
    const k = this.spec.kernel;
    if (k && k.variant) return k.variant === "bug" || k.variant === "starter" ? "solution" : k.variant;
    const names = (this.spec.step && this.spec.step.kernel_names) || {};
    if (names.builtin === this.spec.name) return "builtin";
    return "solution";
  }

  setState(st) {
    this.state = st;
    this.root.dataset.state = st;
    const words = { idle: "idle", queued: "◷ queued", running: "● running", done: "✓ done", failed: "✗ failed" };
    this.badge.textContent = words[st] || st;
    this.badge.className = `badge st-${st}`;
    const busy = st === "queued" || st === "running";
    if (this.runBtn) this.runBtn.disabled = busy;
    if (this.stopBtn) this.stopBtn.disabled = !busy || !this.sock;
  }

  getCode() {
    return this.editor.getCode();
  }

  setCode(text) {
    this.editor.setCode(text);
  }

  /** entry returns the host orchestrator for rank count p: the i-th --entry with the lesson's rank count swapped for p. */
  entry(p, i = 0) {
    const list = (this.spec.shared && this.spec.shared.settings && this.spec.shared.settings.entry) ? [this.spec.shared.settings.entry] : this.flags.entry || [];
    let e = list[i] !== undefined ? list[i] : list[0];
    if (!e) return undefined;
    if (this.argRanks) {
      e = e.replace(new RegExp(`^(\\w+)\\(${this.argRanks}(?=[,)])`), `$1({P}`);
    }
    return e.replaceAll("{P}", String(p));
  }

  settings() {
    const ranks = Number(this.ranksSel.select.value);
    return { ranks, schedule: this.schedSel.select.value, platform: this.platSel.select.value, fill: this.fillSel.select.value };
  }

  async lint(text) {
    const st = this.ranksSel ? this.settings() : {};
    this.lintNote.textContent = "checking…";
    this.lintNote.className = "lint-note";
    try {
      const res = await api.check({ code: text, entry: this.ranksSel ? this.entry(st.ranks) : undefined, ranks: st.ranks, platform: st.platform });
      const ds = res.diagnostics || [];
      const errs = ds.filter((d) => d.severity === "error").length;
      const warns = ds.length - errs;
      this.lintNote.textContent = ds.length ? `✗ ${[errs ? plural(errs, "error") : "", warns ? plural(warns, "warning") : ""].filter(Boolean).join(", ")} (hover the marks)` : "✓ checks clean";
      this.lintNote.className = `lint-note ${errs ? "bad" : warns ? "warn" : "ok"}`;
      return ds;
    } catch (e) {
      this.lintNote.textContent = `checker unavailable: ${e.message}`;
      this.lintNote.className = "lint-note warn";
      throw e;
    }
  }

  ensureView() {
    if (this.rv) return this.rv;
    const views = this.action === "ir" ? ["ir"] : this.action === "compare" ? ["compare"] : ["lanes", "outputs", "explain", "traffic"];
    this.rv = new RunView({
      views,
      onLine: (a, b) => this.showLines([a, b].filter(Boolean)),
      onSliceClick: (e) => {
        this.showLines([e.line]);
        this.rv.lanes.setLine(e.line);
      },
    });
    clear(this.outWrap);
    if (this.fullCheckStep()) {
      this.sc = new StepCheck();
      this.outWrap.append(this.sc.root);
    }
    this.outWrap.append(this.rv.root);
    return this.rv;
  }

  showLines(lines) {
    this.editor.mark("focus", lines);
    if (lines.length) this.editor.scrollToLine(lines[0]);
  }

  /** run runs the cell; the promise settles when the run has ended. */
  async run({ advance } = {}) {
    if (!this.runnable) return;
    if (this.state === "queued" || this.state === "running") return this.pending;
    if (advance) this.ctx.focusNext(this);
    const code = this.getCode();
    const n = this.ctx.nextCount();
    if (this.spec.key) store.snapshot(this.spec.key, code, `run [${n}]`);
    this.countEl.textContent = "[*]";
    this.setState("queued");
    this.ensureView();
    for (const k of ["race", "error", "blocked", "focus"]) this.editor.mark(k, []);
    this.pending = (this.action === "ir" ? this.runIR(code) : this.action === "compare" ? this.runCompare(code) : this.runTrace(code)).then((ok) => {
      this.countEl.textContent = `[${n}]`;
      this.setState(ok ? "done" : "failed");
    });
    return this.pending;
  }

  async runIR(code) {
    const st = this.settings();
    this.setState("running");
    try {
      const after = this.afterInput.value.trim();
      const res = await api.ir({ code, entry: this.entry(st.ranks), ranks: st.ranks, platform: st.platform, after: after || undefined });
      this.rv.showIR(res.ir, res.diagnostics);
      this.rv.status.textContent = `IR${after ? ` after ${after}` : ""} at ${st.ranks} ranks`;
      const bad = (res.diagnostics || []).filter((d) => d.severity === "error");
      this.editor.mark("error", bad.map((d) => d.line));
      return !bad.length;
    } catch (e) {
      this.rv.status.textContent = `✗ ${e.message}`;
      this.rv.showIR(e.hint ? `${e.message}\nhint: ${e.hint}` : e.message);
      return false;
    }
  }

  async runCompare(code) {
    const st = this.settings();
    this.setState("running");
    this.rv.status.textContent = "Running both kernels…";
    const other = this.otherName();
    try {
      const res = await api.compare({
        a: { code, entry: this.entry(st.ranks, 0) },
        b: { kernel: other, entry: this.entry(st.ranks, 1) },
        ranks: st.ranks, fill: st.fill, schedule: st.schedule, platform: st.platform,
      });
      const ea = this.entry(st.ranks, 0);
      const eb = this.entry(st.ranks, 1);
      this.rv.compare.render(res, { a: `${this.spec.name}${ea ? ` (${ea})` : ""}`, b: `${other}${eb ? ` (${eb})` : ""}` });
      this.rv.status.textContent = res.verdict === "equal" ? "✓ equal outputs" : "✗ different outputs";
      return true;
    } catch (e) {
      this.rv.status.textContent = `✗ ${e.message}`;
      this.rv.compare.reset(`The comparison failed: ${e.message}${e.hint ? `. Hint: ${e.hint}` : ""}`);
      return false;
    }
  }

  /** fullCheckStep is the step whose full check this cell runs, 0 for none. */
  fullCheckStep() {
    if (!FULL_CHECK.has(this.action) || this.spec.shared) return 0;
    return (this.spec.kernel && this.spec.kernel.step) || (this.spec.step && this.spec.step.number) || 0;
  }

  /**
   * runFullCheck posts the step check of code and shows its verdict table;
   * it resolves to the answer's ok (false when it could not run). A starter
   * cell is checked as the step's own kernel (what `workbench step N
   * --check FILE` does with the learner's finished starter); a check or bug
   * cell as the variant its "check as" select names, standing in for the
   * cell's own kernel when that is a kernel of that variant.
   */
  async runFullCheck(stepNo, code) {
    let variant = this.variantSel ? this.variantSel.select.value : this.defaultVariant();
    if (variant === "starter") variant = undefined;
    const k = this.spec.kernel;
    const body = { code, variant };
    if (variant && k && k.variant === variant) body.kernel = k.name;
    this.sc.pending();
    let res;
    try {
      res = await api.stepCheck(stepNo, body);
    } catch (e) {
      this.sc.fail(e.message, e.hint);
      return false;
    }
    this.sc.render(res, stepNo);
    if (res.ok && (res.variant === "solution" || res.variant === "builtin")) this.ctx.markDone(stepNo);
    return !!res.ok;
  }

  async runTrace(code) {
    const full = this.fullCheckStep();
    if (!full) return this.runOnce(code);
    const [runOK, checkOK] = await Promise.all([this.runOnce(code), this.runFullCheck(full, code)]);
    // A bug cell's run fails by design: its state follows the run, as
    // before; a check or starter cell is done only when the full check is.
    return this.action === "bug" ? runOK : runOK && checkOK;
  }

  async runOnce(code) {
    const st = this.settings();
    const body = { code, ranks: st.ranks, fill: st.fill, schedule: st.schedule, platform: st.platform };
    const stepNo = (this.spec.kernel && this.spec.kernel.step) || (this.spec.step && this.spec.step.number) || (this.spec.shared && this.spec.shared.settings && this.spec.shared.settings.step);
    if (stepNo) {
      body.step = stepNo;
      body.variant = this.variantSel ? this.variantSel.select.value : (this.spec.shared && this.spec.shared.settings && this.spec.shared.settings.variant) || this.defaultVariant();
      // Check against this cell's own kernel when it is one of that
      // variant's (step 20 has several solutions and bugs).
      const k = this.spec.kernel;
      if (k && k.step === stepNo && k.variant === body.variant) body.kernel = k.name;
      else if (this.spec.shared && this.spec.shared.settings && this.spec.shared.settings.kernel) body.kernel = this.spec.shared.settings.kernel;
    }
    const entry = this.entry(st.ranks);
    if (entry) body.entry = entry;
    this.rv.begin("Posting the run…");
    let res;
    try {
      res = await api.postRun(body);
    } catch (e) {
      this.rv.fail(e.message, e.hint);
      return false;
    }
    return this.watch(res.id, res.cached ? "Cached: replaying the stored run…" : "Starting…");
  }

  /** watch follows run id over the websocket; resolves true when it ended ok. */
  watch(id, text) {
    this.ensureView();
    this.rv.begin(text);
    this.runId = id;
    const races = [];
    this.stopping = false;
    return new Promise((resolve) => {
      let done = null;
      this.sock = openRun(
        id,
        (m) => {
          this.rv.handle(m);
          if (m.type === "status") this.setState(m.status === "queued" ? "queued" : "running");
          else if (m.type === "race") {
            races.push(m.race);
            this.editor.mark("race", races.flatMap((r) => [r.a.line, r.b.line]));
            if (races.length === 1) this.editor.scrollToLine(m.race.a.line, true);
            this.rv.lanes.setRaceMarks(races.flatMap((r) => [r.a, r.b]));
          } else if (m.type === "deadlock") {
            this.editor.mark("blocked", ((m.deadlock && m.deadlock.ranks) || []).map((b) => b.line));
          } else if (m.type === "diagnostic" && m.diagnostic.severity === "error") {
            this.editor.mark("error", [m.diagnostic.line]);
          } else if (m.type === "done") {
            done = m;
            if (m.error) this.editor.mark("error", [m.error.line]);
          }
        },
        (sawDone, reason) => {
          this.sock = null;
          if (!sawDone && this.stopping) {
            // Stop closes the socket a second after asking the server to
            // cancel, before a client that is behind the stream reaches
            // done: the run was stopped, not lost.
            this.rv.stopped();
            resolve(false);
            return;
          }
          if (!sawDone) {
            this.rv.fail("the connection closed before the run finished", reason ? `${reason}; run it again` : "is the server still running? Run it again");
            resolve(false);
            return;
          }
          resolve(done.status === "ok" && !(done.check && !done.check.pass && done.check.status !== "no_golden"));
        },
      );
      this.setState("queued");
    });
  }

  stop() {
    if (!this.sock) return;
    this.stopping = true;
    this.sock.stop();
  }

  dispose() {
    if (this.sock) this.sock.close();
  }

  fillHistory() {
    const h = this.spec.key ? store.history(this.spec.key) : [];
    clear(this.histSel).append(el("option", { value: "" }, h.length ? `History (${h.length})` : "History (empty)"));
    h.forEach((v, i) => this.histSel.append(el("option", { value: String(i) }, `${timeOfDay(v.t)} · ${v.label} · ${v.code.split("\n").length} lines`)));
  }

  restoreVersion() {
    const i = this.histSel.value;
    if (i === "") return;
    const h = store.history(this.spec.key);
    const v = h[Number(i)];
    this.histSel.value = "";
    if (!v) return;
    store.snapshot(this.spec.key, this.getCode(), "before restore");
    this.setCode(v.code);
    this.note.textContent = `Restored the version from ${timeOfDay(v.t)} (${v.label}). Ctrl/Cmd-Z undoes it.`;
  }

  reset() {
    const cur = this.getCode();
    if (cur === this.original) {
      this.note.textContent = "This cell already holds the lesson's code.";
      return;
    }
    if (!window.confirm("Reset this cell to the lesson's code? Your current text is kept in History, and Undo reset brings it back.")) return;
    store.snapshot(this.spec.key, cur, "before reset");
    this.preReset = cur;
    this.setCode(this.original);
    this.undoBtn.hidden = false;
    this.note.textContent = "Reset to the lesson's code.";
  }

  undoReset() {
    if (this.preReset === undefined) return;
    this.setCode(this.preReset);
    this.preReset = undefined;
    this.undoBtn.hidden = true;
    this.note.textContent = "Your text is back.";
  }
}

function select(test, label, options, value) {
  const s = el("select", { "data-test": test, "aria-label": label });
  for (const [v, t] of options) s.append(el("option", { value: v, selected: v === value }, t));
  s.value = value;
  return { select: s, label: el("label", { class: "ctl" }, `${label.toLowerCase()} `, s) };
}
