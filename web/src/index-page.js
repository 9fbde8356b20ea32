// The lesson index: the 20 steps in order, which ones the learner passed
// (their own kernel passed the step's full check in this browser), started
// or left untouched, and where to continue.

import { el, clear, humanTime } from "./util.js";
import { api } from "./api.js";
import * as store from "./storage.js";
import { errorPage } from "./pages.js";

export async function renderIndex(main, page) {
  let data;
  try {
    data = await api.steps();
  } catch (e) {
    errorPage(main, e.message, e.hint, true);
    return;
  }
  document.title = "PLD Workbench";
  page.crumbs([["Lessons", null]]);
  const steps = data.steps || [];
  const prog = store.progress();
  const done = new Set(steps.filter((s) => prog[s.number] && prog[s.number].done).map((s) => s.number));
  const started = new Set(steps.filter((s) => prog[s.number] && prog[s.number].started && !done.has(s.number)).map((s) => s.number));
  const last = store.lastStep();
  const nDone = steps.filter((s) => done.has(s.number)).length;
  const links = [];
  const list = el("ol", { class: "step-list" }, steps.map((s) => {
    const a = el("a", { href: `/step/${s.number}`, class: "step-link", "data-test": "step-link", "data-step": s.number, "data-progress": done.has(s.number) ? "passed" : started.has(s.number) ? "started" : "untouched" },
      el("span", { class: "step-num" }, String(s.number).padStart(2, "0")),
      el("span", { class: "step-main" },
        el("span", { class: "step-title" }, s.title),
        s.teaches ? el("span", { class: "step-teaches" }, s.teaches) : null,
      ),
      el("span", { class: "step-meta" },
        s.reveals ? el("span", { class: "pill" }, `reveals ${s.reveals}`) : null,
        done.has(s.number) ? el("span", { class: "done-mark", "data-test": "step-done", title: `passed ${humanTime(prog[s.number].passed_at)}` }, "✓ passed")
          : started.has(s.number) ? el("span", { class: "started-mark", "data-test": "step-started" }, "started") : null,
      ),
    );
    links.push(a);
    return el("li", null, a);
  }));
  list.addEventListener("keydown", (e) => {
    const i = links.indexOf(document.activeElement);
    if (i < 0) return;
    let j = -1;
    if (e.key === "ArrowDown" || e.key === "j") j = Math.min(links.length - 1, i + 1);
    else if (e.key === "ArrowUp" || e.key === "k") j = Math.max(0, i - 1);
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = links.length - 1;
    if (j < 0) return;
    e.preventDefault();
    links[j].focus();
  });
  const cont = last && steps.some((s) => s.number === last)
    ? el("a", { class: "btn primary", href: `/step/${last}` }, `Continue with step ${last} →`)
    : steps.length ? el("a", { class: "btn primary", href: `/step/${steps[0].number}` }, "Start with step 1 →") : null;
  clear(main).append(
    el("section", { class: "index" },
      el("h1", null, "Distributed programming with pld, step by step"),
      el("p", { class: "lead" }, "Twenty lessons on window buffers, notify/wait signals, remote loads and stores, put/get and the collectives built from them. Every kernel runs here on an emulator of P ranks: you see each rank's timeline, the checks, races and deadlocks as they happen."),
      el("p", { "data-test": "docs" }, "Before step 1: ", el("a", { href: "/lessons/intro" }, "Step 0: what you are running"),
        " · ", el("a", { href: "/lessons/reference" }, "the pl/pld operations"), " · ", el("a", { href: "/lessons/glossary" }, "glossary")),
      el("div", { class: "progress-row" },
        cont,
        el("span", { class: "progress-text", "data-test": "progress-text" }, `${nDone} of ${steps.length} steps passed, ${started.size} started, in this browser`),
        el("span", { class: "progress", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": String(steps.length), "aria-valuenow": String(nDone), "aria-label": "Steps done" },
          el("i", { style: `width:${steps.length ? (100 * nDone) / steps.length : 0}%` })),
      ),
      list,
      el("p", { class: "muted small" }, "↑/↓ move between steps, Enter opens one. A step counts as passed when your own kernel (the working copy every “your kernel” cell shares) passes its full check: every rank count, under the fair and the adversarial schedule."),
    ),
  );
}
