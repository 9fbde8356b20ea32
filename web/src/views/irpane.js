// The IR pane, as Compiler Explorer shows a compilation: the source on the
// left, the IR on the right, each IR statement tinted by the source line it
// came from (the `# line N` and `# from pld.tensor.allreduce (line N)`
// comments POST /api/ir/lines writes), the source line in the same tint.
// Hovering a line on either side lights up its partners on the other.

import { el, clear } from "../util.js";
import { api } from "../api.js";

// Ten light tints, told apart side by side; lines beyond ten reuse them in
// order, which keeps neighbours apart.
const TINTS = ["#fde2e4", "#e2ece9", "#dbe7fb", "#fff1c1", "#e9dcf5", "#d7f0f7", "#fbe0c8", "#e4f2d0", "#f6d8ea", "#e6e6e6"];

const ORIGIN = /\s+# (?:line (\d+)|from (.+?) \(line (\d+)\))$/;

/** parseIR splits IR text into lines {text, src, builtin}: the text without a bare `# line N`, the source line it maps to. */
export function parseIR(text) {
  return text.replace(/\n$/, "").split("\n").map((line) => {
    const m = line.match(ORIGIN);
    if (!m) return { text: line, src: 0 };
    if (m[1]) return { text: line.slice(0, m.index), src: +m[1] };
    return { text: line, src: +m[3], builtin: m[2] };
  });
}

export class IRPane {
  /** opts.onLine(n) runs when a line is hovered (0 when the pointer leaves). */
  constructor(opts = {}) {
    this.opts = opts;
    this.root = el("div", { class: "irview", "data-test": "ir" }, el("p", { class: "empty" }, "Press Lower to see the kernel's IR after the chosen pass, beside its source."));
  }

  /** show draws source and IR side by side; diags are the check's diagnostics. */
  show(source, text, diags) {
    const root = clear(this.root);
    if (diags && diags.length) {
      root.append(el("ul", { class: "diags" }, diags.map((d) => el("li", { class: d.severity }, `line ${d.line}:${d.col} ${d.code || ""} ${d.message}`))));
    }
    if (!text) {
      root.append(el("pre", { class: "ir" }, "(no IR)"));
      return;
    }
    const ir = parseIR(text);
    const tint = new Map();
    for (const l of ir) if (l.src && !tint.has(l.src)) tint.set(l.src, TINTS[tint.size % TINTS.length]);
    const srcLines = (source || "").replace(/\n$/, "").split("\n");
    this.srcRows = new Map();
    this.irRows = new Map();
    const row = (cls, n, body, src) => {
      const r = el("div", { class: cls, "data-src": src || null }, el("span", { class: "irp-no" }, n), el("span", { class: "irp-text" }, body || " "));
      if (src && tint.has(src)) r.style.background = tint.get(src);
      return r;
    };
    const left = el("div", { class: "irp-col irp-source", "data-test": "ir-source", "aria-label": "Source" },
      srcLines.map((t, i) => {
        const r = row("irp-line", i + 1, t, tint.has(i + 1) ? i + 1 : 0);
        r.dataset.line = String(i + 1);
        this.srcRows.set(i + 1, r);
        return r;
      }));
    const right = el("div", { class: "irp-col irp-ir", "data-test": "ir-lines", "aria-label": "IR" },
      ir.map((l, i) => {
        const r = row("irp-line", i + 1, l.text, l.src);
        if (l.src) (this.irRows.get(l.src) || this.irRows.set(l.src, []).get(l.src)).push(r);
        if (l.src) r.title = l.builtin ? `from ${l.builtin}, line ${l.src}` : `line ${l.src}`;
        return r;
      }));
    this.left = left;
    this.right = right;
    const hover = (e) => {
      const r = e.target.closest(".irp-line");
      this.light(r && r.dataset.src ? +r.dataset.src : 0, r && r.parentNode === left ? right : left);
    };
    for (const col of [left, right]) {
      col.addEventListener("mouseover", hover);
      col.addEventListener("mouseleave", () => this.light(0));
    }
    root.append(el("p", { class: "irp-help" }, "Each IR line is tinted like the source line it comes from; hover a line on either side to light up the other."),
      el("div", { class: "irp" }, left, right));
  }

  /** light marks source line n and its IR lines (0 clears) and scrolls the other side to them. */
  light(n, other) {
    if (this.hot === n) return;
    this.hot = n;
    for (const r of this.root.querySelectorAll(".irp-line.hot")) r.classList.remove("hot");
    this.root.dataset.hot = String(n);
    if (this.opts.onLine) this.opts.onLine(n);
    if (!n) return;
    const rows = [this.srcRows.get(n), ...(this.irRows.get(n) || [])].filter(Boolean);
    for (const r of rows) r.classList.add("hot");
    const first = rows.find((r) => r.parentNode === other);
    if (first && other) {
      const top = first.offsetTop; // the column is position: relative
      if (top < other.scrollTop || top > other.scrollTop + other.clientHeight - 20) other.scrollTop = top - other.clientHeight / 3;
    }
  }
}

/**
 * passPicker is the IR cell's "after pass" menu, filled from GET
 * /api/passes (the engine's pass table): fully lowered first, then
 * "checked" and every pass in the order they run.
 */
export function passPicker(initial) {
  const sel = el("select", { "data-test": "after", "aria-label": "IR after pass" }, el("option", { value: "" }, "final (every pass)"));
  if (initial) sel.append(el("option", { value: initial }, initial));
  sel.value = initial || "";
  api.passes().then(
    (res) => {
      const keep = sel.value;
      sel.replaceChildren(el("option", { value: "" }, "final (every pass)"), ...res.passes.map((p) => el("option", { value: p.name, title: p.doc }, p.name)));
      sel.value = keep;
      sel.dataset.loaded = String(res.passes.length);
    },
    () => (sel.dataset.loaded = "0"),
  );
  return sel;
}
