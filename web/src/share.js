// The share page, /r/{id}: a stored run's code and settings in an editable
// copy, and the stored run replayed over the websocket into the same views
// a live run fills.

import { el, clear, fmtNs, humanTime, lineDiff } from "./util.js";
import { diffView } from "./views/compare.js";
import { api } from "./api.js";
import { Cell } from "./cell.js";
import { errorPage } from "./pages.js";
import { loadPlatforms } from "./platforms.js";

export async function renderShare(main, id, page) {
  let run;
  try {
    [run] = await Promise.all([api.run(id), loadPlatforms()]);
  } catch (e) {
    if (e.status === 404) {
      page.crumbs([["Lessons", "/"], ["Shared run", null]]);
      clear(main).append(
        el("section", { class: "error-page", "data-test": "no-such-run", role: "alert" },
          el("h1", null, "No such run"),
          el("p", null, "There is no stored run ", el("code", null, id), ". Share links name runs stored by this workbench's server; this one is not in its store (a different server, a deleted data folder, or a mistyped link)."),
          el("p", null, el("a", { href: "/" }, "Back to the lessons"))));
      return [];
    }
    errorPage(main, e.message, e.hint, true);
    return [];
  }
  const s = run.settings || {};
  document.title = `Run ${id} · PLD Workbench`;
  page.crumbs([["Lessons", "/"], s.step ? [`Step ${s.step}`, `/step/${s.step}`] : null, [`Run ${id}`, null]].filter(Boolean));
  const ctx = {
    nextCount: () => ++page.counter,
    focusNext: () => {},
    markPassed: () => {},
    markStarted: () => {},
    outKey: "",
  };
  const cell = new Cell({ index: 0, action: "run", name: s.step ? `step ${s.step}` : "", args: "", kernel: null, step: null, code: run.code || "", key: "", shared: run }, ctx);
  const facts = [
    ["status", run.status],
    ["ranks", run.ranks || s.ranks],
    ["entry", run.entry || s.entry],
    ["schedule", s.schedule],
    ["platform", s.platform],
    s.step ? ["step", `${s.step}${s.variant ? ` (checked as ${s.variant})` : ""}`] : null,
    run.stats && run.stats.sim_time_ns ? ["simulated time", fmtNs(run.stats.sim_time_ns)] : null,
    run.created ? ["stored", humanTime(run.created)] : null,
  ].filter((f) => f && f[1] !== undefined && f[1] !== "");
  const changes = el("section", { class: "share-changes", "data-test": "share-changes" });
  clear(main).append(
    el("article", { class: "shared", "data-test": "shared-run", "data-id": id, "data-replay": "true" },
      el("header", { class: "step-head" },
        el("div", { class: "eyebrow" }, "Shared run"),
        el("h1", null, `Run ${id}`),
        el("dl", { class: "facts" }, facts.map(([k, v]) => [el("dt", null, k), el("dd", { class: "mono" }, String(v))])),
        el("p", { class: "muted" }, "This is the stored run replayed exactly as it happened. The code below is your copy: edit it and Run to make a new run (and a new link)."),
      ),
      changes,
      cell.root,
    ),
  );
  showChanges(changes, run);
  cell.countEl.textContent = "[r]";
  cell.watch(id, "Replaying the stored run…").then((ok) => cell.setState(ok ? "done" : "failed"));
  return [cell];
}

/**
 * showChanges shows what the shared code changed from the lesson's kernel
 * it stands for (the step's kernel of its variant), as a line diff.
 */
async function showChanges(box, run) {
  const s = run.settings || {};
  if (!s.step) return;
  let name = s.kernel;
  try {
    if (!name) name = ((await api.step(s.step)).kernel_names || {})[s.variant || "solution"];
    if (!name) return;
    const k = await api.kernel(name);
    const d = lineDiff(k.source, run.code || "", `${name}.py (the lesson's)`, "this run's code");
    box.append(el("h2", null, "What changed from the lesson's kernel"),
      d ? diffView(d) : el("p", { class: "muted", "data-test": "share-unchanged" }, `The code is ${name}.py as the lesson ships it, unchanged.`));
    box.dataset.kernel = name;
    box.dataset.changed = String(!!d);
  } catch {
    /* the diff is a help, not the page: leave it out */
  }
}
