// One CodeMirror 6 editor per cell: Python mode, the cell's keys
// (Shift-Enter, Mod-Enter), live lint from POST /api/check, and line
// decorations the run views drive (raced lines, the line of a clicked
// slice, run-time error lines).

import { EditorState, StateEffect, StateField, Prec, RangeSetBuilder, Annotation, Compartment, Transaction } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, Decoration,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  indentOnInput, bracketMatching, syntaxHighlighting, defaultHighlightStyle, indentUnit,
  codeFolding, foldGutter, foldEffect, foldKeymap,
} from "@codemirror/language";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { linter, lintGutter, lintKeymap } from "@codemirror/lint";
import { python } from "@codemirror/lang-python";

// synced marks a transaction that copies another editor's edit of the
// same working copy: it is not the learner's edit here, so it is neither
// echoed back nor put on this editor's undo history.
const synced = Annotation.define();

// Line marks: kind → set of 1-based line numbers.
const setMarks = StateEffect.define();

const markClass = {
  race: "cm-pld-race-line",
  focus: "cm-pld-focus-line",
  error: "cm-pld-error-line",
  blocked: "cm-pld-blocked-line",
};

const marksField = StateField.define({
  create: () => ({ race: [], focus: [], error: [], blocked: [] }),
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setMarks)) value = { ...value, ...e.value };
    return value;
  },
  provide: (f) =>
    EditorView.decorations.compute([f, "doc"], (state) => {
      const marks = state.field(f);
      const byLine = new Map();
      for (const [kind, lines] of Object.entries(marks)) {
        for (const l of lines) {
          if (l < 1 || l > state.doc.lines) continue;
          const cls = byLine.get(l) || [];
          cls.push(markClass[kind]);
          byLine.set(l, cls);
        }
      }
      const b = new RangeSetBuilder();
      for (const l of [...byLine.keys()].sort((x, y) => x - y)) {
        b.add(state.doc.line(l).from, state.doc.line(l).from, Decoration.line({ class: byLine.get(l).join(" ") }));
      }
      return b.finish();
    }),
});

const theme = EditorView.theme({
  "&": { fontSize: "13.5px" },
  ".cm-content": { fontFamily: "var(--mono)" },
  ".cm-gutters": { fontFamily: "var(--mono)" },
});

/**
 * createEditor mounts an editor in parent. Options: doc, readOnly,
 * firstLine (the number shown for line 1: a function excerpt, or a file
 * whose `#!` header is kept out of the editor), onRun (Shift-Enter),
 * onRunHere (Mod-Enter), onChange(text), onEdit(changes) (the learner's
 * own edits, for the other editors of the same working copy),
 * onCursorLine(line), lint (async (text) => [{line, col, end_line,
 * end_col, severity, message, hint, code}], lines numbered in the whole
 * file) and label (the aria-label of the editing area).
 */
export function createEditor(parent, opts) {
  let offset = (opts.firstLine || 1) - 1;
  const ro = new Compartment();
  const roExt = (on) => (on ? [EditorState.readOnly.of(true), EditorView.editable.of(false)] : [highlightActiveLine()]);
  const exts = [
    lineNumbers({ formatNumber: (n) => String(n + offset) }),
    foldGutter(),
    codeFolding({ placeholderText: "…" }),
    highlightActiveLineGutter(),
    drawSelection(),
    history(),
    indentUnit.of("    "),
    indentOnInput(),
    bracketMatching(),
    highlightSelectionMatches(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    python(),
    marksField,
    theme,
    EditorView.contentAttributes.of({ "aria-label": opts.label || "kernel source" }),
    Prec.highest(
      keymap.of([
        { key: "Shift-Enter", run: () => (opts.onRun ? (opts.onRun(), true) : false) },
        { key: "Mod-Enter", run: () => (opts.onRunHere ? (opts.onRunHere(), true) : false) },
      ]),
    ),
    keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap, ...foldKeymap, indentWithTab]),
    ro.of(roExt(!!opts.readOnly)),
  ];
  if (opts.lint) {
    exts.push(lintGutter(), linter(lintSource(opts.lint, () => offset), { delay: 400 }));
  }
  // The page's Content-Security-Policy admits <style> elements only with
  // the nonce the server put in this page; CodeMirror's generated theme is one.
  const nonce = document.querySelector('meta[name="csp-nonce"]')?.content;
  if (nonce) exts.push(EditorView.cspNonce.of(nonce));
  let lastLine = 0;
  exts.push(
    EditorView.updateListener.of((u) => {
      if (u.docChanged && opts.onChange) opts.onChange(u.state.doc.toString());
      if (u.docChanged && opts.onEdit && !u.transactions.some((tr) => tr.annotation(synced))) opts.onEdit(u.changes);
      if ((u.selectionSet || u.docChanged) && opts.onCursorLine && u.view.hasFocus) {
        const line = u.state.doc.lineAt(u.state.selection.main.head).number + offset;
        if (line !== lastLine) {
          lastLine = line;
          opts.onCursorLine(line);
        }
      }
    }),
  );
  const view = new EditorView({ state: EditorState.create({ doc: opts.doc || "", extensions: exts }), parent });

  // Lines from the engine are numbered in the whole file; an excerpt shifts them.
  const local = (lines) => lines.map((l) => l - offset);
  return {
    view,
    getCode: () => view.state.doc.toString(),
    setCode(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    /** setFirstLine changes the number shown for line 1 (a new header's length). */
    setFirstLine(n) {
      offset = (n || 1) - 1;
    },
    /** applyEdit applies another editor's edit of the same text. */
    applyEdit(changes) {
      view.dispatch({ changes, annotations: [synced.of(true), Transaction.addToHistory.of(false)] });
    },
    setReadOnly(on) {
      view.dispatch({ effects: ro.reconfigure(roExt(on)) });
    },
    /** foldDocstring folds a module docstring that opens the text (or follows its comments and imports' blank lines). */
    foldDocstring() {
      const r = docstringRange(view.state.doc.toString());
      if (r) view.dispatch({ effects: foldEffect.of(r) });
    },
    /** scrollTop scrolls the editor's own scroller so that line (file numbering) is near its top; the page stays still. */
    scrollNear(line) {
      const l = line - offset;
      if (l < 1 || l > view.state.doc.lines) return;
      const pos = view.state.doc.line(l).from;
      view.requestMeasure({
        read: () => view.lineBlockAt(pos).top,
        write: (top) => {
          view.scrollDOM.scrollTop = Math.max(0, top - 2 * view.defaultLineHeight);
        },
      });
    },
    mark(kind, lines) {
      view.dispatch({ effects: setMarks.of({ [kind]: local(lines) }) });
    },
    // scrollToLine scrolls the editor to a line; inner keeps the page still.
    scrollToLine(line, inner) {
      const l = line - offset;
      if (l < 1 || l > view.state.doc.lines) return;
      const pos = view.state.doc.line(l).from;
      if (inner) {
        const sd = view.scrollDOM;
        sd.scrollTop = Math.max(0, view.lineBlockAt(pos).top - sd.clientHeight / 2);
        return;
      }
      view.dispatch({ effects: EditorView.scrollIntoView(pos, { y: "center" }) });
      const rect = view.dom.getBoundingClientRect();
      if (rect.top < 0 || rect.bottom > window.innerHeight) view.dom.scrollIntoView({ block: "nearest" });
    },
    focus: () => view.focus(),
  };
}

/**
 * docstringRange finds the module docstring (the first statement, a
 * triple-quoted string) and returns the range to fold, from the end of its
 * first line to the end of its closing quotes, or null.
 */
export function docstringRange(text) {
  const m = /^(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*[rRuU]?("""|\'\'\')/.exec(text);
  if (!m) return null;
  const open = m.index + m[0].length;
  const close = text.indexOf(m[1], open);
  if (close < 0) return null;
  const firstEnd = text.indexOf("\n", open);
  if (firstEnd < 0 || firstEnd >= close) return null;
  return { from: firstEnd, to: close + 3 };
}

/**
 * splitHeader cuts the `#!` metadata lines that open a kernel file off its
 * text: {header, body}, header with its line ends and the blank lines
 * after it ("" when none). The
 * engine reads the header; the learner edits the body.
 */
export function splitHeader(text) {
  // The blank lines after the header go with it: the editor opens on code.
  const m = /^(?:#![^\n]*\n)+(?:[ \t]*\n)*/.exec(text || "");
  if (!m) return { header: "", body: text || "" };
  return { header: m[0], body: text.slice(m[0].length) };
}

/** firstTodo returns the 1-based line of the first `TODO(you)` comment in text, or 0. */
export function firstTodo(text) {
  const lines = text.split("\n");
  const i = lines.findIndex((l) => /#.*TODO\(you\)/.test(l));
  return i + 1;
}

// lintSource adapts the server's diagnostics (1-based line and byte column,
// the end exclusive) to CodeMirror positions.
function lintSource(fetchDiags, offset) {
  return async (view) => {
    const doc = view.state.doc;
    const text = doc.toString();
    let diags;
    try {
      diags = await fetchDiags(text);
    } catch {
      return [];
    }
    if (view.state.doc.toString() !== text) return [];
    const off = offset();
    const pos = (line, col) => {
      line -= off;
      if (!line || line < 1) return 0;
      const l = doc.line(Math.min(line, doc.lines));
      return Math.min(l.from + Math.max(0, (col || 1) - 1), l.to);
    };
    return (diags || []).map((d) => {
      const from = pos(d.line, d.col);
      let to = pos(d.end_line || d.line, d.end_col || d.col);
      if (to <= from) to = Math.min(doc.lineAt(from).to, from + 1);
      const sev = d.severity === "error" || d.severity === "warning" ? d.severity : "info";
      const msg = (d.code ? d.code + " " : "") + d.message + (d.hint ? `\nhint: ${d.hint}` : "");
      return { from, to, severity: sev, message: msg, source: "pld check" };
    });
  };
}

/**
 * functionExcerpt cuts the definition of name (with its decorators) out of
 * src: {text, firstLine}, or null when there is no such def.
 */
export function functionExcerpt(src, name) {
  const lines = src.split("\n");
  const re = new RegExp(`^(\\s*)def\\s+${name.replace(/[^\w]/g, "")}\\s*\\(`);
  let start = -1;
  let indent = "";
  for (let i = 0; i < lines.length; i++) {
    const m = re.exec(lines[i]);
    if (m) {
      start = i;
      indent = m[1];
      break;
    }
  }
  if (start < 0) return null;
  let first = start;
  while (first > 0 && lines[first - 1].trim().startsWith("@") && lines[first - 1].startsWith(indent)) first--;
  // Skip the rest of a signature that spans lines: its closing "):" sits
  // at the def's own indentation.
  let end = start;
  let depth = 0;
  for (; end < lines.length; end++) {
    for (const ch of lines[end].replace(/#.*$/, "")) {
      if ("([{".includes(ch)) depth++;
      else if (")]}".includes(ch)) depth--;
    }
    if (depth <= 0) break;
  }
  end++;
  for (; end < lines.length; end++) {
    const l = lines[end];
    if (l.trim() === "") continue;
    const ind = l.length - l.trimStart().length;
    if (ind <= indent.length) break;
  }
  while (end > start + 1 && lines[end - 1].trim() === "") end--;
  return { text: lines.slice(first, end).join("\n"), firstLine: first + 1 };
}
