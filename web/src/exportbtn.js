// The Export button of a runnable cell: POST /api/export with the cell's
// code and settings, then the browser saves the PyPTO script (and, for
// randn inputs, the data file it reads beside it); beside it the PyPTO
// platform to export for, and "Run on PyPTO", which runs the script
// through PyPTO on the server (POST /api/pypto/run) and shows the stored
// run in the cell as an emulator run is shown; and "Check with PyPTO",
// which compiles the exported script with PyPTO's own compiler
// (--compile-only, POST /api/pypto/check) and shows its verdict and
// messages beside the workbench's. See server/API.md, "Export to PyPTO".

import { el, hashText } from "./util.js";
import { api } from "./api.js";
import { simulatorOf } from "./platforms.js";
import * as store from "./storage.js";

function save(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function bytes(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// pyptoInfo is GET /api/pypto, asked once per page and only when the
// learner opens the platform list (it probes python3 and the cards).
let pyptoInfo = null;
const askPyPTO = () => (pyptoInfo = pyptoInfo || api.pypto().catch(() => null));

/**
 * platformSelect is the PyPTO platform an export or a PyPTO run is for.
 * It starts at the simulator of the cell's cost-model profile; opened, it
 * lists every platform the server knows, each marked ready or not here.
 */
function platformSelect(cell) {
  const s = el("select", { "data-test": "pypto-platform", "aria-label": "PyPTO platform to export for or run on", title: "the PyPTO platform: a card (a2a3, a5) or PyPTO's simulator of it (a2a3sim, a5sim)" });
  const fill = (info) => {
    const cur = s.value;
    const names = info && info.platforms ? info.platforms : [cur];
    const ready = new Set((info && info.ready) || []);
    s.replaceChildren(...names.map((p) => el("option", { value: p }, info ? `${p}${ready.has(p) ? " · ready" : " · not here"}` : p)));
    s.value = names.includes(cur) ? cur : names[0];
    if (info) s.dataset.loaded = "true";
  };
  s.append(el("option", { value: simulatorOf(cell.settings().platform) || "a2a3sim" }, simulatorOf(cell.settings().platform) || "a2a3sim"));
  const load = () => { if (!s.dataset.loaded) askPyPTO().then(fill); };
  s.addEventListener("focus", load);
  s.addEventListener("mousedown", load);
  return s;
}

/**
 * runOnPyPTO runs the cell's program through PyPTO on the server and
 * shows the stored run in the cell (lanes of task slices, Outputs,
 * Explain, a share link), kept for reload as an emulator run is.
 */
async function runOnPyPTO(cell, body, note) {
  if (cell.state === "queued" || cell.state === "running") return;
  const n = cell.ctx.nextCount();
  cell.countEl.textContent = "[*]";
  cell.setState("running");
  cell.ensureView();
  cell.rv.begin(`Running on PyPTO (${body.platform})…`);
  cell.timeEl.textContent = "";
  const t0 = performance.now();
  const started = Date.now();
  note.textContent = `running on PyPTO (${body.platform})…`;
  note.className = "lint-note";
  let ok = false;
  try {
    const res = await api.pyptoRun(body);
    if (!res.id) {
      const first = (res.diagnostics || []).find((d) => d.severity === "error");
      note.textContent = `✗ not run: ${first ? `${first.code} ${first.message}` : res.error || "the program has errors"}`;
      note.className = "lint-note bad";
      cell.rv.fail("the program did not export for PyPTO");
    } else {
      ok = await cell.watch(res.id, `Replaying the PyPTO run (${res.platform})…`);
      note.textContent = `PyPTO ${res.pypto} on ${res.platform}: ${res.status}${res.cached ? " (stored earlier)" : ""}, ${res.events} task slices`;
      note.title = `the lanes are ${res.lanes || "empty"}`;
      note.className = `lint-note ${res.status === "ok" || res.status === "no_golden" ? "ok" : "warn"}`;
      const key = cell.outKey();
      if (key) store.saveOutput(key, { id: res.id, t: started, ms: Math.round(performance.now() - t0), n, code: hashText(body.code) });
    }
  } catch (e) {
    note.textContent = `✗ PyPTO: ${e.message}${e.hint ? ` — ${e.hint}` : ""}`;
    note.className = "lint-note warn";
    cell.rv.fail(`PyPTO: ${e.message}`, e.hint);
  }
  cell.countEl.textContent = `[${n}]`;
  cell.finalState(ok);
  cell.showTime(started, performance.now() - t0);
}

/**
 * checkWithPyPTO shows, in box, the workbench's verdict under the NPU's
 * rules beside PyPTO's compiler's: its error, the cell line it points at,
 * whether the fault is PyPTO's own, and its messages (the server has left
 * out its debug and info log and named the cell's lines).
 */
async function checkWithPyPTO(body, box) {
  const line = (cls, text) => el("div", { class: `pc-line ${cls}` }, text);
  box.replaceChildren(line("lint-note", `compiling with PyPTO (${body.platform})…`));
  box.dataset.state = "running";
  let res;
  try {
    res = await api.pyptoCheck(body);
  } catch (e) {
    box.replaceChildren(line("lint-note warn", `✗ PyPTO check: ${e.message}${e.hint ? ` — ${e.hint}` : ""}`));
    box.dataset.state = "failed";
    return;
  }
  const errors = (res.diagnostics || []).filter((d) => d.severity === "error");
  const rows = [];
  if (!res.exported) {
    const d = errors[0];
    rows.push(line("lint-note bad", `workbench: ✗ ${d ? `${d.code} line ${d.span?.start?.line ?? "?"}: ${d.message}` : "the program has errors"}`));
    rows.push(line("lint-note", "PyPTO: not asked (the workbench's check has errors to fix first)"));
  } else {
    rows.push(line("lint-note ok", `workbench: ✓ ok at ${body.ranks} ranks, under the NPU's rules`));
    if (!res.pypto) {
      rows.push(line("lint-note warn", "PyPTO: not found on the server, so only the workbench's verdict is shown:"));
      for (const m of res.missing || []) rows.push(line("lint-note", `– ${m}`));
    } else if (res.status === "compiled") {
      rows.push(line("lint-note ok", `PyPTO ${res.pypto}: ✓ compiled for ${body.ranks} ranks (${body.platform}, ${res.seconds.toFixed(2)} s)`));
    } else if (res.status === "timeout") {
      rows.push(line("lint-note warn", `PyPTO ${res.pypto}: did not finish before the server's deadline`));
    } else {
      const r = res.refusal;
      rows.push(line("lint-note bad", `PyPTO ${res.pypto}: ✗ refused the program${r ? `: ${r.error.split("\n")[0]}` : ""}`));
      if (r) {
        rows.push(line("lint-note", r.where ? `at ${r.where}` : "at no line of the program (PyPTO failed inside its own compile)"));
        for (const h of r.help || []) rows.push(line("lint-note", h));
        if (r.internal) rows.push(line("lint-note warn", `an internal error of PyPTO's${r.check ? ` (check failed: ${r.check})` : ""}: a defect in PyPTO rather than in the program`));
      }
    }
    if (res.messages) rows.push(el("pre", { class: "diff", "data-test": "pypto-messages" }, res.messages));
  }
  box.replaceChildren(...rows);
  box.dataset.state = res.status || (res.exported ? "missing" : "refused");
}

/**
 * exportButton returns the button for cell (a Cell with settings(),
 * entry(p) and code()) and, beside it, its own note saying what happened
 * (its own: the checker's note under the editor is rewritten by every
 * lint).
 */
export function exportButton(cell) {
  const note = el("span", { class: "lint-note", "data-test": "export-note" });
  const btn = el("button", { type: "button", class: "btn small", "data-test": "export", title: "save this kernel as a Python script PyPTO runs on NPUs or its simulator (workbench export)" }, "Export");
  const plat = platformSelect(cell);
  const body = () => {
    const st = cell.settings();
    const k = cell.wc ? cell.wc.reference : cell.spec.kernel;
    return { code: cell.code(), entry: cell.entry(st.ranks), ranks: st.ranks, fill: st.fill, seed: 1, platform: plat.value, kernel: (k && k.name) || undefined };
  };
  const runBtn = el("button", { type: "button", class: "btn small", "data-test": "pypto-run", title: "run this kernel through PyPTO on the chosen platform, where the server finds PyPTO; the run is stored and shared like an emulator run" }, "Run on PyPTO");
  runBtn.addEventListener("click", async () => {
    runBtn.disabled = true;
    try {
      await runOnPyPTO(cell, body(), note);
    } finally {
      runBtn.disabled = false;
    }
  });
  const checkBox = el("div", { class: "pypto-check", "data-test": "pypto-check" });
  const checkBtn = el("button", { type: "button", class: "btn small", "data-test": "pypto-check-btn", title: "compile this kernel with PyPTO's own compiler on the server (workbench check --with-pypto) and show its verdict beside the workbench's" }, "Check with PyPTO");
  checkBtn.addEventListener("click", async () => {
    checkBtn.disabled = true;
    try {
      await checkWithPyPTO(body(), checkBox);
    } finally {
      checkBtn.disabled = false;
    }
  });
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    note.textContent = "exporting…";
    note.className = "lint-note";
    try {
      const res = await api.exportScript(body());
      if (!res.script) {
        const first = (res.diagnostics || []).find((d) => d.severity === "error");
        note.textContent = `✗ not exported: ${first ? `${first.code} ${first.message}` : res.error || "the program has errors"}`;
        note.className = "lint-note bad";
        return;
      }
      save(res.filename, new Blob([res.script], { type: "text/x-python" }));
      if (res.data_base64) save(res.data_name, new Blob([bytes(res.data_base64)], { type: "application/octet-stream" }));
      note.textContent = `exported ${res.filename}${res.data_name ? ` and ${res.data_name}` : ""}: python3 ${res.filename} where PyPTO is installed`;
      note.className = "lint-note ok";
    } catch (e) {
      note.textContent = `export failed: ${e.message}`;
      note.className = "lint-note warn";
    } finally {
      btn.disabled = false;
    }
  });
  return el("span", { class: "export" }, plat, btn, checkBtn, runBtn, note, checkBox);
}
