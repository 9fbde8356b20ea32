// The Export button of a runnable cell: POST /api/export with the cell's
// code and settings, then the browser saves the PyPTO script (and, for
// randn inputs, the data file it reads beside it). See server/API.md,
// "Export to PyPTO".

import { el } from "./util.js";
import { api } from "./api.js";
import { simulatorOf } from "./platforms.js";

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

/**
 * exportButton returns the button for cell (a Cell with settings(),
 * entry(p) and code()) and, beside it, its own note saying what happened
 * (its own: the checker's note under the editor is rewritten by every
 * lint).
 */
export function exportButton(cell) {
  const note = el("span", { class: "lint-note", "data-test": "export-note" });
  const btn = el("button", { type: "button", class: "btn small", "data-test": "export", title: "save this kernel as a Python script PyPTO runs on NPUs or its simulator (workbench export)" }, "Export");
  btn.addEventListener("click", async () => {
    const st = cell.settings();
    const k = cell.wc ? cell.wc.reference : cell.spec.kernel;
    btn.disabled = true;
    note.textContent = "exporting…";
    note.className = "lint-note";
    try {
      // The platform's PyPTO simulator: an export runs where PyPTO is
      // installed, and the simulators need no cards.
      const res = await api.exportScript({ code: cell.code(), entry: cell.entry(st.ranks), ranks: st.ranks, fill: st.fill, seed: 1, platform: simulatorOf(st.platform), kernel: (k && k.name) || undefined });
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
  return el("span", { class: "export" }, btn, note);
}
