// The step page: the lesson's prose with every cell placeholder turned into
// a live cell, the learner's working copy those cells share, the step's
// progress, the hints revealed one at a time, Run all, Clear outputs, the
// split layout, and the links to the previous and next steps.

import { el, clear, kernelName, humanTime } from "./util.js";
import { api } from "./api.js";
import { Cell } from "./cell.js";
import { WorkingCopy } from "./workcopy.js";
import { createEditor, splitHeader } from "./editor.js";
import * as store from "./storage.js";
import { errorPage, docLinks } from "./pages.js";
import { SplitView } from "./split.js";
import { loadPlatforms } from "./platforms.js";

// The cells that act on "your kernel" when their kernel is the step's
// starter or the kernel that judges it.
const ON_COPY = new Set(["run", "check", "ir", "compare", "starter"]);

/** renderNotebook fills main with step n; it returns the page's cells. */
export async function renderNotebook(main, n, page) {
  let step;
  try {
    step = await api.step(n);
  } catch (e) {
    errorPage(main, e.status === 404 ? `There is no step ${n}.` : e.message, e.status === 404 ? "The lessons are numbered 1 to 20." : e.hint, e.status !== 404);
    return [];
  }
  store.setLastStep(step.number);
  document.title = `${step.number}. ${step.title} · PLD Workbench`;
  page.crumbs([["Lessons", "/"], [`Step ${step.number}`, null]]);

  const lesson = el("div", { class: "lesson" });
  lesson.innerHTML = step.html || "";
  stripHints(lesson, (step.hints || []).length > 0);
  for (const a of lesson.querySelectorAll("a[href]")) {
    const m = /^(?:\.\/)?(\d{2})-[\w-]+\.md(#.*)?$/.exec(a.getAttribute("href"));
    if (m) a.setAttribute("href", `/step/${Number(m[1])}`);
    else if (/^(?:\.\/)?README\.md(#.*)?$/.test(a.getAttribute("href"))) a.setAttribute("href", "/lessons/README");
  }
  docLinks(lesson);

  const holders = [...lesson.querySelectorAll("div.cell")];
  const kn = step.kernel_names || {};
  const refVariant = kn.solution ? "solution" : kn.builtin ? "builtin" : "";
  const refName = kn[refVariant];
  const names = [...new Set([...holders.map((h) => kernelName(h.dataset.kernel || "")), kn.starter, refName].filter(Boolean))];
  const kernels = new Map();
  await Promise.all([loadPlatforms(), ...names.map(async (name) => {
    try {
      kernels.set(name, await api.kernel(name));
    } catch (e) {
      kernels.set(name, { error: e });
    }
  })]);

  const ks = kernels.get(kn.starter);
  const kr = kernels.get(refName);
  const wc = ks && !ks.error && kr && !kr.error ? new WorkingCopy(step, ks, kr, refVariant) : null;

  const cells = [];
  const split = new SplitView();
  const layoutBtn = split.button;
  const ctx = {
    outKey: `${step.number}`,
    markStarted: (k) => {
      store.markStarted(k);
      showProgress();
    },
    markPassed: (k, hash) => {
      store.markPassed(k, hash);
      showProgress();
    },
    nextCount: () => ++page.counter,
    focusNext: (cell) => {
      const i = cells.indexOf(cell);
      const next = cells.slice(i + 1).find((c) => c.action !== "show") || cells[i + 1];
      if (next && split.mode === "split") split.activate(next, true);
      else if (next) {
        next.root.scrollIntoView({ block: "start", behavior: "smooth" });
        next.editor.focus();
      }
    },
  };
  holders.forEach((h, i) => {
    const name = kernelName(h.dataset.kernel || "");
    const k = kernels.get(name);
    // A predict cell is a run cell whose answer (the element after it)
    // stays hidden until the learner has run it (predictCell).
    const predict = h.dataset.action === "predict";
    const answer = predict && h.nextElementSibling && h.nextElementSibling.classList.contains("predict-answer") ? h.nextElementSibling : null;
    const action = predict ? "run" : h.dataset.action || "show";
    const mine = wc && ON_COPY.has(action) && wc.names.has(name);
    const spec = {
      index: i, action, name, args: h.dataset.args || "",
      kernel: k && !k.error ? k : null, step,
      code: mine ? wc.text() : k && !k.error ? k.source : "",
      key: `${step.number}:${i}:${name}`,
      wc: mine ? wc : null,
      variant: k && !k.error ? k.variant : "",
    };
    const cell = new Cell(spec, ctx);
    if (k && k.error) {
      cell.note.textContent = `Could not load ${name}: ${k.error.message}`;
    }
    h.replaceWith(cell.root);
    if (predict) predictCell(cell, answer);
    cells.push(cell);
  });

  const runAllBtn = el("button", { type: "button", class: "btn", "data-test": "run-all", onclick: () => runAll() }, "▶▶ Run all");
  const runAll = async () => {
    runAllBtn.disabled = true;
    try {
      for (const c of cells) if (c.runnable) await c.run({});
    } finally {
      runAllBtn.disabled = false;
    }
  };
  const clearAllBtn = el("button", { type: "button", class: "btn", "data-test": "clear-all", onclick: () => cells.forEach((c) => c.runnable && c.clearOutput()) }, "Clear outputs");
  const doneMark = el("span", { class: "done-mark", "data-test": "step-done", hidden: true }, "✓ done");
  const progressEl = el("p", { class: "step-progress", "data-test": "step-progress", role: "status" });
  const showProgress = () => {
    const p = store.stepProgress(step.number);
    doneMark.hidden = !p.done;
    doneMark.title = p.done ? `your kernel passed the step's full check on ${humanTime(p.passed_at)}` : "";
    const ran = cells.filter((c) => c.runnable && c.state !== "idle").length;
    const runnable = cells.filter((c) => c.runnable).length;
    progressEl.dataset.done = String(!!p.done);
    progressEl.textContent = p.done
      ? `✓ Your kernel passed this step's full check (${humanTime(p.passed_at)}). ${ran} of ${runnable} cells ran on this visit.`
      : `${p.started ? "Started" : "Not started"}: this step is done when your kernel passes its full check (a Check or Your-kernel cell). ${ran} of ${runnable} cells ran on this visit.`;
  };
  const nav = () => el("nav", { class: "step-nav", "aria-label": "Steps" },
    step.prev ? el("a", { href: `/step/${step.prev}`, rel: "prev", "data-test": "prev" }, `← Step ${step.prev}`) : el("span"),
    el("a", { href: "/" }, "All lessons"),
    step.next ? el("a", { href: `/step/${step.next}`, rel: "next", "data-test": "next" }, `Step ${step.next} →`) : el("span"),
  );
  const head = el("header", { class: "step-head" },
    el("div", { class: "eyebrow" }, `Step ${step.number} of 20`, doneMark),
    step.teaches ? el("p", { class: "teaches" }, "Teaches: ", step.teaches, step.reveals ? ` · reveals ${step.reveals}` : "") : null,
    el("div", { class: "step-tools" }, runAllBtn, clearAllBtn, layoutBtn, el("span", { class: "muted" }, "Shift-Enter runs a cell and moves on; Ctrl/Cmd-Enter runs it in place.")),
    progressEl,
  );
  const article = el("article", { class: "notebook", "data-test": "notebook", "data-step": step.number },
    nav(), head, lesson, solutionBox(wc), hintsBox(step.hints || []), nav());
  clear(main).append(article);
  for (const c of cells) c.reveal();
  for (const c of cells) {
    const p = c.restore();
    if (p) p.then(showProgress);
  }
  showProgress();
  split.attach(article, lesson, cells);
  return cells;
}

/**
 * solutionBox reveals the kernel that judges the learner's, on purpose
 * (as the Go tour and exercism do): hidden until asked for, read-only.
 */
function solutionBox(wc) {
  if (!wc) return null;
  const body = el("div", { class: "solution-body" });
  let shown = false;
  const btn = el("button", { type: "button", class: "btn", "data-test": "show-solution" }, "Show solution");
  btn.addEventListener("click", () => {
    if (!shown && !window.confirm("Show the step's solution? Try the hints first; you can still solve it yourself afterwards.")) return;
    shown = !shown;
    btn.textContent = shown ? "Hide solution" : "Show solution";
    body.hidden = !shown;
    if (shown && !body.firstChild) {
      const { header, body: text } = splitHeader(wc.reference.source);
      createEditor(body, { doc: text, readOnly: true, firstLine: header.split("\n").length, label: "the step's solution (read-only)" }).foldDocstring();
    }
  });
  return el("section", { class: "solution", "aria-label": "Solution", "data-test": "solution" },
    el("h2", null, "Solution"),
    el("p", { class: "muted" }, `The reference kernel that judges yours (${wc.reference.name}.py), read-only.`), btn, body);
}

// stripHints removes the lesson's "Hints" section from the prose when the
// API hands the hints over separately, so they can be revealed one by one.
function stripHints(root, have) {
  if (!have) return;
  for (const h of root.querySelectorAll("h2")) {
    if (h.textContent.trim().toLowerCase() !== "hints") continue;
    let n = h.nextElementSibling;
    while (n && n.tagName !== "H2") {
      const next = n.nextElementSibling;
      if (n.tagName === "OL" || n.tagName === "UL") {
        n.remove();
        break;
      }
      n = next;
    }
    h.remove();
  }
}

function hintsBox(hints) {
  if (!hints.length) return null;
  const list = el("ol", { class: "hints-list" });
  let shown = 0;
  const btn = el("button", { type: "button", class: "btn", "data-test": "hint-next" });
  const label = () => {
    btn.textContent = shown === 0 ? `Show a hint (${hints.length} in all)` : `Show hint ${shown + 1} of ${hints.length}`;
    btn.hidden = shown >= hints.length;
  };
  btn.addEventListener("click", () => {
    const li = el("li", { "data-test": "hint", tabindex: "-1" });
    li.innerHTML = hints[shown++];
    list.append(li);
    li.focus();
    label();
  });
  label();
  return el("section", { class: "hints", "aria-label": "Hints" }, el("h2", null, "Hints"), el("p", { class: "muted" }, "Try first; then take one hint at a time."), list, btn);
}

/** predictCell keeps a predict cell's answer hidden until the cell has run
 * in this page: the learner commits to a guess first (issue 14). */
function predictCell(cell, answer) {
  cell.root.dataset.predict = "true";
  if (!answer) return;
  answer.hidden = true;
  const run = cell.run.bind(cell);
  cell.run = async (opts) => {
    const r = await run(opts);
    answer.hidden = false;
    return r;
  };
  // An output restored on reload is a run the learner made: its answer
  // comes back with it. Clearing the output hides the answer again.
  const restore = cell.restore.bind(cell);
  cell.restore = () => {
    const p = restore();
    if (p) p.then(() => { if (cell.state !== "idle") answer.hidden = false; });
    return p;
  };
  const clearOutput = cell.clearOutput.bind(cell);
  cell.clearOutput = () => {
    clearOutput();
    if (cell.state === "idle") answer.hidden = true;
  };
}
