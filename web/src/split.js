// The Go-tour layout of a notebook: the lesson's prose on the left, the
// active cell (its editor and output) on the right, following the cell the
// learner reads at or clicks. Beside it the single column of today; the
// choice is remembered in this browser.

import { el } from "./util.js";
import * as store from "./storage.js";

export class SplitView {
  constructor() {
    this.mode = store.layout() === "split" ? "split" : "column";
    this.button = el("button", { type: "button", class: "btn", "data-test": "layout", "aria-pressed": String(this.mode === "split"), onclick: () => this.toggle() });
    this.label();
    this.cells = [];
    this.onScroll = () => this.follow();
  }

  label() {
    this.button.textContent = this.mode === "split" ? "◧ Single column" : "◧ Split view";
    this.button.title = this.mode === "split" ? "show the cells inside the lesson, one column" : "lesson on the left, the active cell on the right";
    this.button.setAttribute("aria-pressed", String(this.mode === "split"));
  }

  /** attach takes the rendered notebook; it applies the remembered layout. */
  attach(article, lesson, cells) {
    this.article = article;
    this.lesson = lesson;
    this.cells = cells.filter((c) => c.action !== "show");
    this.pane = el("aside", { class: "split-pane", "data-test": "split-pane", "aria-label": "The active cell" });
    this.row = el("div", { class: "split-row" });
    this.stubs = new Map();
    if (this.mode === "split") this.enter();
  }

  toggle() {
    this.mode = this.mode === "split" ? "column" : "split";
    store.setLayout(this.mode);
    this.label();
    if (!this.article) return;
    if (this.mode === "split") this.enter();
    else this.leave();
  }

  enter() {
    this.article.classList.add("split");
    this.lesson.replaceWith(this.row);
    this.row.append(this.lesson, this.pane);
    for (const c of this.cells) {
      const stub = el("button", { type: "button", class: "cell-stub", "data-test": "cell-stub", "data-index": c.spec.index, onclick: () => this.activate(c, true) },
        el("span", { class: "cell-kind" }, c.root.querySelector(".cell-kind").textContent),
        " ", c.root.querySelector(".cell-entry") ? c.root.querySelector(".cell-entry").textContent : c.spec.name);
      this.stubs.set(c, stub);
      c.root.replaceWith(stub);
    }
    this.active = null;
    if (this.cells.length) this.activate(this.cells[0]);
    window.addEventListener("scroll", this.onScroll, { passive: true });
  }

  leave() {
    window.removeEventListener("scroll", this.onScroll);
    for (const [c, stub] of this.stubs) stub.replaceWith(c.root);
    this.stubs.clear();
    this.pane.replaceChildren();
    this.row.replaceWith(this.lesson);
    this.article.classList.remove("split");
    this.active = null;
  }

  /** activate shows cell c in the right pane; focus puts the cursor in its editor. */
  activate(c, focus) {
    if (this.mode !== "split" || !this.stubs.has(c)) return;
    if (this.active !== c) {
      if (this.active) this.stubs.get(this.active).classList.remove("on");
      this.pane.replaceChildren(c.root);
      this.stubs.get(c).classList.add("on");
      this.active = c;
      c.editor.view.requestMeasure();
      // Moving the editor resets its scroll: a starter opens on its TODO again.
      if (!c.editor.view.hasFocus) c.reveal();
      if (c.rv && c.rv.lanes) c.rv.lanes.schedule(true);
    }
    if (focus) c.editor.focus();
  }

  /** follow activates the cell whose place in the prose the reader has reached. */
  follow() {
    if (this.mode !== "split") return;
    const line = window.innerHeight * 0.45;
    let pick = null;
    for (const [c, stub] of this.stubs) {
      if (stub.getBoundingClientRect().top < line) pick = c;
    }
    if (pick && !this.pane.contains(document.activeElement)) this.activate(pick);
  }
}
