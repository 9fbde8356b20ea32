// The step page: the lesson's prose with every cell placeholder turned into
// a live cell, the hints revealed one at a time, Run all, and the links to
// the previous and next steps.

import { el, clear, kernelName } from "./util.js";
import { api } from "./api.js";
import { Cell } from "./cell.js";
import * as store from "./storage.js";
import { errorPage } from "./pages.js";

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
  }

  const holders = [...lesson.querySelectorAll("div.cell")];
  const names = [...new Set(holders.map((h) => kernelName(h.dataset.kernel || "")))];
  const kernels = new Map();
  await Promise.all(names.map(async (name) => {
    try {
      kernels.set(name, await api.kernel(name));
    } catch (e) {
      kernels.set(name, { error: e });
    }
  }));

  const cells = [];
  const ctx = {
    nextCount: () => ++page.counter,
    focusNext: (cell) => {
      const i = cells.indexOf(cell);
      const next = cells.slice(i + 1).find((c) => c.action !== "show") || cells[i + 1];
      if (next) {
        next.root.scrollIntoView({ block: "start", behavior: "smooth" });
        next.editor.focus();
      }
    },
    markDone: (k) => {
      store.markDone(k);
      if (k === step.number) doneMark.hidden = false;
    },
  };
  holders.forEach((h, i) => {
    const name = kernelName(h.dataset.kernel || "");
    const k = kernels.get(name);
    const spec = {
      index: i, action: h.dataset.action || "show", name, args: h.dataset.args || "",
      kernel: k && !k.error ? k : null, step,
      code: k && !k.error ? k.source : "",
      key: `${step.number}:${i}:${name}`,
    };
    const cell = new Cell(spec, ctx);
    if (k && k.error) {
      cell.note.textContent = `Could not load ${name}: ${k.error.message}`;
    }
    h.replaceWith(cell.root);
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
  const doneMark = el("span", { class: "done-mark", "data-test": "step-done", hidden: !store.doneSteps().has(step.number) }, "✓ done");
  const nav = () => el("nav", { class: "step-nav", "aria-label": "Steps" },
    step.prev ? el("a", { href: `/step/${step.prev}`, rel: "prev", "data-test": "prev" }, `← Step ${step.prev}`) : el("span"),
    el("a", { href: "/" }, "All lessons"),
    step.next ? el("a", { href: `/step/${step.next}`, rel: "next", "data-test": "next" }, `Step ${step.next} →`) : el("span"),
  );
  const head = el("header", { class: "step-head" },
    el("div", { class: "eyebrow" }, `Step ${step.number} of 20`, doneMark),
    step.teaches ? el("p", { class: "teaches" }, "Teaches: ", step.teaches, step.reveals ? ` · reveals ${step.reveals}` : "") : null,
    el("div", { class: "step-tools" }, runAllBtn, el("span", { class: "muted" }, "Shift-Enter runs a cell and moves on; Ctrl/Cmd-Enter runs it in place.")),
  );
  const article = el("article", { class: "notebook", "data-test": "notebook", "data-step": step.number },
    nav(), head, lesson, hintsBox(step.hints || []), nav());
  clear(main).append(article);
  return cells;
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
