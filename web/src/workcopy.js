// The learner's working copy of a step, as a Jupyter kernel's state: one
// text per step, starting as the step's starter, shown by every cell that
// acts on "your kernel" (run, check, IR, compare, the starter cell). An
// edit in any of those editors is applied to all the others, saved in this
// browser with its version history, and is what every one of them runs.
// The `#!` header stays here, out of the editors, and is put back in front
// of the text the server gets.

import { hashText } from "./util.js";
import { splitHeader } from "./editor.js";
import * as store from "./storage.js";

export class WorkingCopy {
  /**
   * step is GET /api/steps/{n}; starter and reference are GET
   * /api/kernels answers for the step's starter and the kernel that judges
   * it (the first solution, or the builtin where the step has none).
   */
  constructor(step, starter, reference, referenceVariant) {
    this.step = step.number;
    this.starter = starter;
    this.reference = reference;
    this.variant = referenceVariant;
    this.key = `wc:${step.number}`;
    this.names = new Set([starter.name, reference.name]);
    this.editors = [];
    const saved = store.loadCode(this.key);
    const orig = hashText(starter.source);
    this.edited = !!(saved && typeof saved.code === "string" && saved.code !== starter.source);
    this.stale = this.edited && saved.orig && saved.orig !== orig;
    this.set(this.edited ? saved.code : starter.source);
  }

  /** set replaces the whole text (header and body), in every editor. */
  set(text) {
    const { header, body } = splitHeader(text);
    this.header = header;
    this.body = body;
    const first = this.firstLine();
    for (const e of this.editors) e.editor.setFirstLine(first);
    if (this.editors.length) this.editors[0].editor.setCode(body);
  }

  /** text is the full file: the header and the learner's body. */
  text() {
    return this.header + this.body;
  }

  /** firstLine is the file line number of the editors' first line. */
  firstLine() {
    return this.header.split("\n").length;
  }

  /** isStarter reports whether the copy still holds the starter unchanged. */
  isStarter() {
    return this.text() === this.starter.source;
  }

  /** attach adds a cell's editor; owner is the cell, for its notes. */
  attach(owner, editor) {
    this.editors.push({ owner, editor });
  }

  /** onEdit is called by an editor with the learner's own edit: copy it to the others, save. */
  onEdit(from, changes, body) {
    this.body = body;
    for (const e of this.editors) if (e.editor !== from) e.editor.applyEdit(changes);
    this.save();
  }

  /** save keeps the text in this browser. */
  save() {
    // At once, not debounced: a few KiB per keystroke is cheap, and a
    // learner who runs and leaves within a debounce would lose the edit.
    store.saveCode(this.key, this.text(), hashText(this.starter.source));
    if (!this.isStarter()) store.markStarted(this.step);
  }
}
