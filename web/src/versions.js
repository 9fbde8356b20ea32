// A cell's versions: every run and every Reset or restore snapshots the
// text (storage.js keeps them per working copy, or per cell for a reference
// copy), the History select restores one, and Reset returns to the
// pristine text with Undo reset one click away. These are Cell methods
// (cell.js installs them on its prototype), kept here by construct.

import { el, clear, timeOfDay } from "./util.js";
import * as store from "./storage.js";

export const versionMethods = {
  /** histKey is where this cell's versions are kept: the working copy's, or its own. */
  histKey() {
    return this.wc ? this.wc.key : this.spec.key;
  },

  fillHistory() {
    const key = this.histKey();
    const h = key ? store.history(key) : [];
    clear(this.histSel).append(el("option", { value: "" }, h.length ? `History (${h.length})` : "History (empty)"));
    h.forEach((v, i) => this.histSel.append(el("option", { value: String(i) }, `${timeOfDay(v.t)} · ${v.label} · ${v.code.split("\n").length} lines`)));
  },

  restoreVersion() {
    const i = this.histSel.value;
    if (i === "") return;
    const key = this.histKey();
    const h = store.history(key);
    const v = h[Number(i)];
    this.histSel.value = "";
    if (!v) return;
    store.snapshot(key, this.getCode(), "before restore");
    this.setCode(v.code);
    this.note.textContent = `Restored the version from ${timeOfDay(v.t)} (${v.label}). Ctrl/Cmd-Z undoes it.`;
  },

  /** pristine is the text Reset returns to: the starter for the working copy, else the lesson's kernel. */
  pristine() {
    return this.wc ? this.wc.starter.source : this.header + this.original;
  },

  reset() {
    const cur = this.getCode();
    const to = this.pristine();
    if (cur === to) {
      this.note.textContent = this.wc ? "Your kernel already is the starter." : "This cell already holds the lesson's code.";
      return;
    }
    const what = this.wc ? "your kernel to the step's starter (every cell that uses your kernel follows)" : "this cell to the lesson's code";
    if (!window.confirm(`Reset ${what}? Your current text is kept in History, and Undo reset brings it back.`)) return;
    store.snapshot(this.histKey(), cur, "before reset");
    this.preReset = cur;
    this.setCode(to);
    this.undoBtn.hidden = false;
    this.note.textContent = this.wc ? "Reset to the starter." : "Reset to the lesson's code.";
  },

  undoReset() {
    if (this.preReset === undefined) return;
    this.setCode(this.preReset);
    this.preReset = undefined;
    this.undoBtn.hidden = true;
    this.note.textContent = "Your text is back.";
  },
};
