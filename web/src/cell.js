// A notebook cell: the kernel in an editor, the controls for its action
// (run, check, bug, starter, ir, compare; show is read-only) and the run
// views. A cell either acts on the learner's working copy of the step
// (workcopy.js: one text shared by every such cell) or shows a reference
// kernel (the solution, the builtin, a bug), read-only until the learner
// asks for an editable copy. It keeps its last run's id, so the output
// comes back on reload, and drives one run at a time over the websocket.

import { el, clear, plural, parseArgs, hashText, timeOfDay, humanTime, fmtBytes, fmtNs } from "./util.js";
import { api, openRun, startRun } from "./api.js";
import { platformNames, defaultPlatform } from "./platforms.js";
import { createEditor, functionExcerpt, splitHeader, firstTodo } from "./editor.js";
import { RunView } from "./runview.js";
import { placeEntryDiag, placeEntryDiags } from "./entrydiag.js";
import { exportButton } from "./exportbtn.js";
import { StepCheck } from "./views/stepcheck.js";
import { ScheduleExplorer } from "./views/schedules.js";
import { passPicker } from "./views/irpane.js";
import * as store from "./storage.js";
import { versionMethods } from "./versions.js";

const RUNS = new Set(["run", "check", "bug", "starter"]);
// The cells that also run the step's full check (POST /api/steps/{n}/check),
// as `workbench step N --check` does: every rank count, both schedules.
const FULL_CHECK = new Set(["check", "bug", "starter"]);
const LABEL = { run: "Run", check: "Check", bug: "Bug", starter: "Your turn", ir: "IR", compare: "Compare", show: "Code" };
// A bug's documented failure, by its status, in words.
const BUG_WORDS = { race: "a race", deadlock: "a deadlock", runtime_error: "a run-time error", wrong_data: "wrong data", compile_error: "a compile error" };
const SCHEDULES = ["fair", "adversarial", "random:1", "random:2", "random:3", "random:4", "random:5", "random:6", "random:7", "random:8"];

/**
 * Cell builds one cell. spec: {index, action, name, args, kernel (GET
 * /api/kernels answer or null), step (GET /api/steps/{n} answer or null),
 * code (the source to start from), key (storage key, "" for none), shared
 * (the stored run on a share page), wc (the step's WorkingCopy when the
 * cell acts on it), variant (the reference variant a cell's kernel is:
 * solution, builtin, bug, starter, or "")}. ctx: {nextCount(),
 * focusNext(cell), markPassed(n, hash), markStarted(n), outKey (the
 * storage key prefix of last outputs, "" for none)}.
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
    this.runnable = RUNS.has(this.action) || this.action === "ir" || this.action === "compare" || this.action === "sweep";
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
    this.wc = s.wc || null;
    this.entrySpan = el("span", { class: "muted cell-entry", "data-test": "cell-entry" });
    const role = this.wc ? el("span", { class: "role yours", "data-test": "role", title: "this cell runs the kernel you edit; every cell marked so shares it" }, "your kernel")
      : this.action === "show" ? (s.variant ? el("span", { class: "role ref", "data-test": "role" }, `reference · ${s.variant}`) : null)
        : s.name && !s.shared ? el("span", { class: "role ref", "data-test": "role", title: "a kernel shipped with the lesson: read-only until you ask for your own copy" }, `reference${s.variant ? ` · ${s.variant}` : ""}`) : null;
    const title = el("div", { class: "cell-title" },
      this.runnable ? this.countEl : null,
      el("span", { class: "cell-kind" }, this.wc && this.action === "starter" ? "Your kernel" : LABEL[this.action] || this.action),
      role,
      el("span", { class: "mono cell-file" }, this.wc ? "" : s.name ? `${s.name}.py` : ""),
      this.action === "compare" ? el("span", { class: "mono cell-file" }, ` vs ${this.otherName()}.py`) : null,
      this.flags.function ? el("span", { class: "muted" }, ` · def ${this.flags.function[0]}`) : null,
      this.runnable ? this.entrySpan : null,
      this.runnable ? this.badge : null,
    );
    this.root.append(el("div", { class: "cell-head" }, title));
    this.root.dataset.workingCopy = String(!!this.wc);
    this.setState("idle");

    // The `#!` header is the engine's, not the learner's: it stays out of
    // the editor and goes back in front of what the server gets.
    const split = splitHeader(s.code || "");
    this.header = split.header;
    this.original = split.body;
    let doc = this.wc ? this.wc.body : this.original;
    let firstLine = this.wc ? this.wc.firstLine() : this.header.split("\n").length;
    this.readOnly = this.action === "show" || !s.code || (!this.wc && !s.shared);
    if (this.action === "show" && this.flags.function) {
      const ex = functionExcerpt(s.code || "", this.flags.function[0]);
      if (ex) {
        doc = ex.text;
        firstLine = ex.firstLine;
        this.header = "";
      }
    }
    this.note = el("div", { class: "cell-note", role: "status", "aria-live": "polite" });
    this.timeEl = el("span", { class: "run-time", "data-test": "run-time" });
    if (this.wc) {
      if (this.wc.stale) this.note.textContent = "The lesson's starter changed since you edited your kernel: you see your version; Reset loads the new one (yours stays in History).";
      else if (this.wc.edited) this.note.textContent = "Your kernel, as you left it (kept in this browser). Reset brings back the starter.";
    } else if (this.action !== "show" && s.key && !s.shared) {
      const saved = store.loadCode(s.key);
      if (saved && typeof saved.code === "string" && saved.code !== this.original) {
        doc = saved.code;
        this.readOnly = false;
        this.note.textContent = "Your editable copy of this reference (kept in this browser). Reset brings back the lesson's code.";
      }
    }
    if (this.runnable) this.root.append(this.controls());
    const edWrap = el("div", { class: "cell-editor" });
    this.root.append(edWrap);
    this.lintNote = el("span", { class: "lint-note" });
    this.root.append(el("div", { class: "cell-foot" }, this.lintNote, this.note, el("span", { class: "spacer" }), this.timeEl));
    let saveTimer = 0;
    this.editor = createEditor(edWrap, {
      doc,
      readOnly: this.readOnly,
      firstLine,
      label: `${this.wc ? "your kernel" : s.name || "kernel"} source`,
      onRun: () => this.runnable && this.run({ advance: true }),
      onRunHere: () => this.runnable && this.run({}),
      onEdit: (changes) => {
        if (this.wc) this.wc.onEdit(this.editor, changes, this.editor.getCode());
      },
      onChange: (text) => {
        if (this.wc || !s.key || this.readOnly || s.shared) return;
        clearTimeout(saveTimer);
        saveTimer = setTimeout(() => store.saveCode(s.key, text, hashText(this.original)), 300);
      },
      onCursorLine: (line) => {
        if (this.rv && this.rv.lanes) this.rv.lanes.setLine(line);
        if (this.rv && this.rv.ir && this.rv.ir.right) this.rv.ir.light(line, this.rv.ir.right);
      },
      lint: this.runnable ? (text) => this.lint(this.header + text) : null,
    });
    if (this.wc) this.wc.attach(this, this.editor);
    if (this.action !== "show" || !this.flags.function) this.editor.foldDocstring();
    // A starter opens on the first gap the learner fills (scrolled once
    // the cell is on the page: see reveal).
    this.todoLine = firstTodo(doc) ? firstTodo(doc) + firstLine - 1 : 0;
    if (this.runnable) {
      this.outWrap = el("div", { class: "cell-out" }, el("p", { class: "cell-hint" }, this.idleHint()));
      this.root.append(this.outWrap);
    }
    this.updateHead();
  }

  /** reveal scrolls the editor, once it is on the page, to the first TODO(you) of a starter. */
  reveal() {
    if (this.todoLine) this.editor.scrollNear(this.todoLine);
  }

  /** shownEntry is the entry the cell runs at p ranks, for its header: the kernel's first when none is named. */
  shownEntry(p) {
    const e = this.action === "compare" ? this.entry(p, 0) : this.entry(p);
    if (e) return e;
    const k = this.wc ? this.wc.reference : this.spec.kernel;
    return k && k.entries && k.entries.length ? k.entries[0].replaceAll("{P}", String(p)) : "";
  }

  /** code is the whole file the server gets: the header and this editor's text (a working copy's every editor holds the same). */
  code() {
    return (this.wc ? this.wc.header : this.header) + this.editor.getCode();
  }

  /** updateHead names the entry and the rank count in the cell's header. */
  updateHead() {
    if (!this.runnable || !this.ranksSel) return;
    const p = Number(this.ranksSel.select.value);
    const e = this.shownEntry(p);
    this.entrySpan.textContent = `${e ? `entry ${e} · ` : ""}${plural(p, "rank")}`;
  }

  /** editCopy makes a reference cell editable: the learner's own copy of it. */
  editCopy() {
    this.readOnly = false;
    this.editor.setReadOnly(false);
    if (this.copyBtn) this.copyBtn.hidden = true;
    this.note.textContent = "This is now your editable copy of the reference (kept in this browser); Reset brings back the lesson's code.";
    this.editor.focus();
  }

  idleHint() {
    if (this.action === "sweep") return "Press Sweep to run every variant of the kernel's #! sweep: lines over the rank counts and sizes and plot their bandwidth.";
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
    const plat = (shared && shared.platform) || (this.flags.platform && this.flags.platform[0]) || defaultPlatform();
    this.platSel = select("platform", "Platform", [...new Set([...platformNames(), plat])].filter(Boolean).map((v) => [v, v]), plat);
    // A run cell is `workbench run`, whose inputs default to index (element
    // i = i, the numbers the lessons quote); a check uses the step check's
    // random inputs.
    // A bug cell uses them too: its schedule comes from where the bug's
    // documented failure shows under the check (GET /api/kernels/{name}/bug).
    const fill = (shared && shared.fill) || (this.flags.fill && this.flags.fill[0]) || (this.action === "check" || this.action === "bug" ? "randn" : "index");
    this.fillSel = select("fill", "Inputs", ["index", "randn", "ones", "zeros"].map((v) => [v, v]), fill);
    this.fillSel.label.title = "index: element i is i; randn: seeded random; ones; zeros";
    const runLabel = this.action === "sweep" ? "Sweep" : this.action === "ir" ? "Lower" : this.action === "compare" ? "Compare" : this.action === "check" ? "Check" : "Run";
    this.runBtn = el("button", { type: "button", class: "btn primary", "data-test": "run", onclick: () => this.run({}), title: `${runLabel} (Ctrl/Cmd-Enter in the editor)` }, `▶ ${runLabel}`);
    this.stopBtn = el("button", { type: "button", class: "btn", "data-test": "stop", disabled: true, onclick: () => this.stop(), "aria-label": "Stop the run" }, "■ Stop");
    this.entrySel = this.entryPicker();
    const bits = [this.runBtn, this.stopBtn, this.entrySel ? this.entrySel.label : null, this.ranksSel.label];
    this.ranksSel.select.addEventListener("change", () => {
      this.updateHead();
      if (this.action === "bug") this.loadBug();
    });
    this.schedSel.select.addEventListener("change", () => (this.schedPicked = true));
    if (this.action === "sweep") {
      // A sweep has its own rank counts and sizes (the cell's --ranks 2,4,8
      // and --sizes 1K:16M), not one run's.
      bits.length = 2;
      this.sweepRanks = el("input", { type: "text", class: "mono", size: "8", "data-test": "sweep-ranks-in", "aria-label": "Rank counts", value: (this.flags.ranks && this.flags.ranks[0]) || "2,4,8" });
      this.sweepSizes = el("input", { type: "text", class: "mono", size: "8", "data-test": "sweep-sizes", "aria-label": "Sizes", value: (this.flags.sizes && this.flags.sizes[0]) || "1K:16M" });
      bits.push(el("label", { class: "ctl" }, "ranks ", this.sweepRanks), el("label", { class: "ctl" }, "sizes ", this.sweepSizes));
    } else if (this.action !== "ir") bits.push(this.schedSel.label);
    if (RUNS.has(this.action) || this.action === "compare") bits.push(this.fillSel.label);
    bits.push(this.platSel.label);
    if (RUNS.has(this.action) && !this.wc && s.step && (s.step.variants || []).length) {
      const v = (shared && shared.variant) || this.defaultVariant();
      this.variantSel = select("variant", "Check as", [...new Set([...s.step.variants, v])].map((x) => [x, x]), v);
      this.variantSel.label.title = "which of the step's kernels the outputs are checked against";
      bits.push(this.variantSel.label);
    }
    if (this.action === "run" && !s.shared) {
      this.explorer = new ScheduleExplorer({ body: () => this.explorerBody(), open: (sched) => this.openSchedule(sched) });
      bits.push(this.explorer.control);
    }
    if (this.action === "ir") {
      const after = (this.flags.after && this.flags.after[0]) || "";
      this.afterInput = passPicker(after);
      bits.push(el("label", { class: "ctl" }, "after pass ", this.afterInput));
    }
    this.histSel = el("select", { class: "hist", "aria-label": "Restore an earlier version", "data-test": "history", onfocus: () => this.fillHistory(), onmousedown: () => this.fillHistory(), onchange: () => this.restoreVersion() });
    this.fillHistory();
    this.undoBtn = el("button", { type: "button", class: "btn small", hidden: true, onclick: () => this.undoReset(), "data-test": "undo-reset" }, "Undo reset");
    this.clearBtn = el("button", { type: "button", class: "btn small", "data-test": "clear-output", onclick: () => this.clearOutput(), title: "clear this cell's output" }, "Clear output");
    if (this.readOnly && !s.shared) {
      this.copyBtn = el("button", { type: "button", class: "btn small", "data-test": "edit-copy", onclick: () => this.editCopy(), title: "make an editable copy of this reference kernel" }, "Edit a copy");
    }
    const right = [this.copyBtn || null, this.histSel, el("button", { type: "button", class: "btn small", "data-test": "reset", onclick: () => this.reset() }, "Reset"), this.undoBtn];
    if (this.action === "bug") this.loadBug();
    return el("div", { class: "cell-controls" }, bits, el("span", { class: "spacer" }), this.ranksSel ? exportButton(this) : null, this.clearBtn, s.key || this.wc ? right : null, this.explorer ? this.explorer.root : null);
  }

  /**
   * entryPicker offers the kernel's entries when it has several: a
   * working-copy cell those of the kernel that judges it. The lesson's
   * --entry (its rank count written as {P}) is the default.
   */
  entryPicker() {
    const s = this.spec;
    const k = this.wc ? this.wc.reference : s.kernel;
    const list = (k && k.entries) || [];
    if (list.length < 2 || s.shared) return null;
    const norm = (e) => e.replace(/\s+/g, "");
    const flag = this.flags.entry && this.flags.entry[0];
    let def = list[0];
    if (flag) {
      const templ = this.argRanks ? flag.replace(new RegExp(`^(\\w+)\\(${this.argRanks}(?=[,)])`), "$1({P}") : flag;
      def = list.find((e) => norm(e) === norm(templ)) || list.find((e) => norm(e) === norm(flag)) || templ;
    }
    const opts = [...new Set([...list, def])].map((e) => [e, e.replaceAll("{P}", "P")]);
    const sel = select("entry", "Entry", opts, def);
    sel.label.title = "which host orchestrator of the kernel runs";
    sel.select.addEventListener("change", () => this.updateHead());
    return sel;
  }

  /** loadBug asks where this bug cell's documented failure shows and picks that schedule. */
  loadBug() {
    const k = this.spec.kernel;
    if (!k || !k.bug) return Promise.resolve(null);
    const p = Number(this.ranksSel.select.value);
    this.bugInfo = null;
    this.bugPending = api.kernelBug(k.name, p).then((b) => {
      this.bugInfo = b;
      if (!this.schedPicked && !this.flags.schedule && b.reproduced) this.schedSel.select.value = b.schedule;
      this.schedSel.label.title = b.reproduced ? `the ${b.schedule} schedule shows this bug at ${plural(p, "rank")}` : "";
      return b;
    }, () => null);
    return this.bugPending;
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
    // A queued run keeps its place through a repeated "queued" status: the
    // server sends the place again only when it changes.
    if (st !== "queued") this.queuePlace = null;
    const q = this.queuePlace;
    this.badge.textContent = q ? `${words.queued}: ${q[0]} of ${q[1]}` : words[st] || st;
    if (q) this.root.dataset.queue = `${q[0]}/${q[1]}`;
    else delete this.root.dataset.queue;
    this.badge.className = `badge st-${st}`;
    const busy = st === "queued" || st === "running";
    if (this.runBtn) this.runBtn.disabled = busy;
    if (this.stopBtn) this.stopBtn.disabled = !busy || !this.sock;
  }

  /** explorerBody is the schedule explorer's request: this cell's code and settings. */
  explorerBody() {
    const st = this.settings();
    const body = { code: this.getCode(), ranks: st.ranks, platform: st.platform, fill: st.fill };
    const entry = this.entry(st.ranks);
    if (entry) body.entry = entry;
    return body;
  }

  /** openSchedule runs this cell under schedule (a seed the explorer listed). */
  openSchedule(sched) {
    const sel = this.schedSel.select;
    if (![...sel.options].some((o) => o.value === sched)) sel.append(el("option", { value: sched }, sched));
    sel.value = sched;
    this.schedPicked = true;
    return this.run({});
  }

  /** showQueue puts a queued run's place in the badge: "◷ queued: 2 of 3". */
  showQueue(position, of) {
    if (this.state !== "queued") return;
    this.queuePlace = [position, of];
    this.setState("queued");
  }

  /** getCode is the whole file this cell runs (an excerpt shows only its function). */
  getCode() {
    return this.code();
  }

  /** setCode replaces the whole file: its `#!` header (if any) stays out of the editor, the rest goes in. */
  setCode(text) {
    if (this.wc) {
      this.wc.set(text);
      return;
    }
    const { header, body } = splitHeader(text);
    this.header = header;
    this.editor.setFirstLine(header.split("\n").length);
    this.editor.setCode(body);
  }

  /** entry returns the host orchestrator for rank count p: the i-th --entry with the lesson's rank count swapped for p. */
  entry(p, i = 0) {
    if (i === 0 && this.entrySel) return this.entrySel.select.value.replaceAll("{P}", String(p));
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
      const entry = this.ranksSel ? this.entry(st.ranks) : undefined;
      const res = await api.check({ code: text, entry, ranks: st.ranks, platform: st.platform });
      const ds = placeEntryDiags(res.diagnostics, text, this.ranksSel ? this.shownEntry(st.ranks) : undefined);
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
    const views = this.action === "sweep" ? ["sweep"] : this.action === "ir" ? ["ir"] : this.action === "compare" ? ["compare"] : ["lanes", "outputs", "explain", "traffic"];
    this.rv = new RunView({
      views,
      onLine: (a, b) => this.showLines([a, b].filter(Boolean)),
      onIRLine: (n) => this.editor.mark("focus", n ? [n] : []),
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
    const histKey = this.histKey();
    if (histKey) store.snapshot(histKey, code, `run [${n}]`);
    if (this.spec.step && this.ctx.markStarted) this.ctx.markStarted(this.spec.step.number);
    this.countEl.textContent = "[*]";
    this.setState("queued");
    this.ensureView();
    this.timeEl.textContent = "";
    this.lastCheck = null;
    for (const k of ["race", "error", "blocked", "focus"]) this.editor.mark(k, []);
    const t0 = performance.now();
    const started = Date.now();
    this.pending = (this.action === "sweep" ? this.runSweep(code) : this.action === "ir" ? this.runIR(code) : this.action === "compare" ? this.runCompare(code) : this.runTrace(code)).then((ok) => {
      const ms = performance.now() - t0;
      this.countEl.textContent = `[${n}]`;
      this.finalState(ok);
      this.showTime(started, ms);
      const key = this.outKey();
      if (key && this.runId && this.action !== "ir" && this.action !== "compare" && this.action !== "sweep") {
        store.saveOutput(key, { id: this.runId, t: started, ms: Math.round(ms), n, check: this.lastCheck, code: hashText(code) });
      }
      return { state: this.state, summary: this.summary() };
    });
    return this.pending;
  }

  /** finalState sets done or failed; a bug cell also says whether its bug showed. */
  finalState(ok) {
    this.setState(ok ? "done" : "failed");
    if (this.action !== "bug") return;
    const r = this.bugVerdict;
    this.root.dataset.bug = r ? (r.reproduced ? "reproduced" : "not-reproduced") : "";
    if (r) {
      this.badge.textContent = r.reproduced ? "✗ bug reproduced" : "bug not reproduced";
      this.badge.className = `badge ${r.reproduced ? "st-bug" : "st-idle"}`;
    }
  }

  /** summary is the cell's last result in words: the run's status line and the step check's headline. */
  summary() {
    const parts = [];
    if (this.rv) parts.push(this.rv.status.textContent);
    if (this.sc && this.sc.headline) parts.push(this.sc.headline);
    return parts.filter(Boolean).join(" · ");
  }

  showTime(t, ms) {
    this.timeEl.textContent = `ran ${timeOfDay(t)} · took ${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`}`;
    this.timeEl.title = humanTime(t);
  }

  /** outKey is where this cell's last output is kept, "" for none. */
  outKey() {
    return this.ctx.outKey ? `${this.ctx.outKey}:${this.spec.index}:${this.spec.name}` : "";
  }

  /** restore shows the last output kept for this cell (after a reload), replayed from the run store. */
  restore() {
    const key = this.outKey();
    const saved = key && store.lastOutput(key);
    if (!saved || !saved.id || !this.runnable || this.action === "ir" || this.action === "compare" || this.action === "sweep") return null;
    this.ensureView();
    if (this.sc && saved.check) {
      this.sc.render(saved.check, saved.check.step || this.fullCheckStep(), this.action === "bug");
      this.lastCheck = saved.check;
    }
    this.countEl.textContent = `[${saved.n || " "}]`;
    this.showTime(saved.t, saved.ms || 0);
    this.timeEl.textContent += " · restored";
    const changed = saved.code && saved.code !== hashText(this.getCode());
    if (changed) this.note.textContent = "This output is from an earlier version of the code; run again to see the current one.";
    // A run this server's store does not have (another data folder) is
    // forgotten quietly, not shown as a failed connection.
    this.pending = api.run(saved.id).then(
      () => this.watch(saved.id, "Restoring the last output…").then((ok) => {
        this.finalState(ok);
        return { state: this.state, summary: this.summary() };
      }),
      (e) => {
        if (e.status === 404) this.clearOutput();
        else this.rv.fail(`the last output could not be restored: ${e.message}`, e.hint);
        return { state: this.state, summary: this.summary() };
      },
    );
    return this.pending;
  }

  /** clearOutput removes the cell's output, here and in the browser's memory. */
  clearOutput() {
    if (this.state === "queued" || this.state === "running") return;
    if (this.sock) this.sock.close();
    this.sock = null;
    const key = this.outKey();
    if (key) store.clearOutput(key);
    if (this.rv && this.rv.compare) this.rv.compare.close();
    this.rv = null;
    this.sc = null;
    this.runId = "";
    this.bugVerdict = null;
    delete this.root.dataset.bug;
    if (this.outWrap) clear(this.outWrap).append(el("p", { class: "cell-hint" }, this.idleHint()));
    this.countEl.textContent = "[ ]";
    this.timeEl.textContent = "";
    for (const k of ["race", "error", "blocked", "focus"]) this.editor.mark(k, []);
    this.setState("idle");
  }

  async runSweep(code) {
    this.setState("running");
    const ranks = this.sweepRanks.value.split(",").map((x) => Number(x.trim())).filter((x) => x > 0);
    this.rv.status.textContent = "Sweeping…";
    try {
      const res = await api.sweep({ code, ranks, sizes: this.sweepSizes.value.trim(), platform: this.platSel.select.value });
      this.rv.sweep.show(res);
      const bad = res.rows.filter((r) => r.status).length;
      this.rv.status.textContent = `${res.rows.length} points over ${res.variants.map((v) => v.name).join(", ")}${bad ? ` · ${bad} did not run (see the table)` : ""}`;
      return res.done;
    } catch (e) {
      this.rv.status.textContent = `✗ ${e.message}${e.hint ? ` (${e.hint})` : ""}`;
      return false;
    }
  }

  async runIR(code) {
    const st = this.settings();
    this.setState("running");
    try {
      const after = this.afterInput.value.trim();
      const entry = this.entry(st.ranks);
      const res = await api.irLines({ code, entry, ranks: st.ranks, platform: st.platform, after: after || undefined });
      res.diagnostics = placeEntryDiags(res.diagnostics, code, this.shownEntry(st.ranks));
      this.rv.showIR(res.ir || res.error, res.diagnostics, code);
      this.rv.status.textContent = `IR${after ? ` after ${after}` : ""} at ${st.ranks} ranks`;
      const bad = (res.diagnostics || []).filter((d) => d.severity === "error");
      this.editor.mark("error", bad.map((d) => d.line));
      return !bad.length;
    } catch (e) {
      this.rv.status.textContent = `✗ ${e.message}`;
      this.rv.showIR(e.hint ? `${e.message}\nhint: ${e.hint}` : e.message, null, "");
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
    if (this.wc) {
      body.variant = this.wc.variant;
      body.kernel = this.wc.reference.name;
    } else if (variant && k && k.variant === variant) body.kernel = k.name;
    this.sc.pending();
    let res;
    try {
      res = await api.stepCheck(stepNo, body);
    } catch (e) {
      this.sc.fail(e.message, e.hint);
      return false;
    }
    this.sc.render(res, stepNo, this.action === "bug");
    this.lastCheck = { ...res, step: stepNo };
    // Done means the learner's own kernel passed: a reference kernel (the
    // solution, the builtin) passing its own check says nothing of them.
    if (this.wc && res.ok && (res.variant === "solution" || res.variant === "builtin")) this.ctx.markPassed(stepNo, hashText(code));
    return !!res.ok;
  }

  async runTrace(code) {
    const full = this.fullCheckStep();
    if (!full) return this.runOnce(code);
    const [runOK, checkOK] = await Promise.all([this.runOnce(code), this.runFullCheck(full, code)]);
    // A bug cell's run fails by design: it is done when the bug showed
    // (finalState says so in words); a check or starter cell is done only
    // when the full check is.
    return this.action === "bug" ? !!(this.bugVerdict && this.bugVerdict.reproduced) : runOK && checkOK;
  }

  async runOnce(code) {
    if (this.action === "bug" && this.bugPending) await this.bugPending;
    const st = this.settings();
    const body = { code, ranks: st.ranks, fill: st.fill, schedule: st.schedule, platform: st.platform };
    const stepNo = (this.spec.kernel && this.spec.kernel.step) || (this.spec.step && this.spec.step.number) || (this.spec.shared && this.spec.shared.settings && this.spec.shared.settings.step);
    if (stepNo) {
      body.step = stepNo;
      body.variant = this.variantSel ? this.variantSel.select.value : (this.spec.shared && this.spec.shared.settings && this.spec.shared.settings.variant) || this.defaultVariant();
      // Check against this cell's own kernel when it is one of that
      // variant's (step 20 has several solutions and bugs).
      const k = this.spec.kernel;
      if (this.wc) {
        body.variant = this.wc.variant;
        body.kernel = this.wc.reference.name;
      } else if (k && k.step === stepNo && k.variant === body.variant) body.kernel = k.name;
      else if (this.spec.shared && this.spec.shared.settings && this.spec.shared.settings.kernel) body.kernel = this.spec.shared.settings.kernel;
    }
    const entry = this.entry(st.ranks);
    if (entry) body.entry = entry;
    this.rv.begin("Posting the run…");
    let res;
    try {
      res = await startRun(body);
    } catch (e) {
      this.rv.fail(e.message, e.hint);
      return false;
    }
    return this.watch(res.id, res.cached ? "Cached: replaying the stored run…" : "Starting…", res.open, { code, entry: this.shownEntry(st.ranks) });
  }

  /**
   * watch follows run id, on the page's session when open (startRun's)
   * is given, else over the run's own websocket; resolves true when it
   * ended ok. run, when given, is the code and entry the run was
   * posted with (its entry's diagnostics go on the def it calls).
   */
  watch(id, text, open, run) {
    this.ensureView();
    this.rv.begin(text);
    this.runId = id;
    const races = [];
    this.stopping = false;
    return new Promise((resolve) => {
      let done = null;
      this.sock = (open || ((onMessage, onClose) => openRun(id, onMessage, onClose)))(
        (m) => {
          if (m.type === "diagnostic" && run) m = { ...m, diagnostic: placeEntryDiag(m.diagnostic, run.code, run.entry) };
          this.rv.handle(m);
          if (m.type === "status") this.setState(m.status === "queued" ? "queued" : "running");
          else if (m.type === "queue") this.showQueue(m.position, m.of);
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
          if (this.action === "bug") this.judgeBug(done);
          resolve(done.status === "ok" && !(done.check && !done.check.pass && done.check.status !== "no_golden"));
        },
      );
      this.setState("queued");
    });
  }

  /**
   * judgeBug says whether this bug cell's run showed the documented
   * failure: the run's verdict has the status the `#! bug:` header names
   * (its regexp stays on the server). The words are the engine's.
   */
  judgeBug(done) {
    const kind = (this.bugInfo && this.bugInfo.kind) || ((this.spec.kernel && this.spec.kernel.bug) || "").split(" ")[0];
    const c = done.check;
    const reproduced = !!(kind && c && !c.pass && c.status === kind);
    const sched = this.schedSel.select.value;
    this.bugVerdict = { reproduced, kind, schedule: sched, words: reproduced ? `${BUG_WORDS[kind] || kind}: ${c.reason || done.status}` : "" };
    const s = done.stats || {};
    const stats = s.events ? ` · ${plural(s.events, "event")} · ${fmtBytes(s.remote_bytes || 0)} remote · ${fmtNs(s.sim_time_ns || 0)} simulated` : "";
    this.rv.status.textContent = reproduced
      ? `bug reproduced: ${this.bugVerdict.words}`
      : `bug not reproduced under this schedule (${sched})${this.bugInfo && this.bugInfo.reproduced && this.bugInfo.schedule !== sched ? `; it shows under ${this.bugInfo.schedule}` : ""}${stats}`;
    this.rv.status.dataset.bug = reproduced ? "reproduced" : "not-reproduced";
    this.rv.status.classList.toggle("bug-shown", reproduced);
    if (reproduced && this.rv.outputs && c.status === "wrong_data") this.rv.select("outputs");
  }

  stop() {
    if (!this.sock) return;
    this.stopping = true;
    this.sock.stop();
  }

  dispose() {
    if (this.sock) this.sock.close();
  }
}

// The version history, Reset and Undo reset (versions.js).
Object.assign(Cell.prototype, versionMethods);

function select(test, label, options, value) {
  const s = el("select", { "data-test": test, "aria-label": label });
  for (const [v, t] of options) s.append(el("option", { value: v, selected: v === value }, t));
  s.value = value;
  return { select: s, label: el("label", { class: "ctl" }, `${label.toLowerCase()} `, s) };
}
