// The page's entry point: a tiny router over three kinds of page (the
// lesson index /, a step's notebook /step/{n}, a shared run /r/{id}), and
// window.pldWorkbench, the handle the browser tests use.

import { el, clear } from "./util.js";
import { renderIndex } from "./index-page.js";
import { renderNotebook } from "./notebook.js";
import { renderShare } from "./share.js";
import { errorPage, renderReadme, renderDoc } from "./pages.js";
import * as store from "./storage.js";

const page = {
  cells: [],
  counter: 0,
  crumbs(items) {
    const nav = document.getElementById("crumbs");
    clear(nav);
    items.forEach(([label, href], i) => {
      if (i) nav.append(el("span", { class: "sep", "aria-hidden": "true" }, "/"));
      nav.append(href ? el("a", { href }, label) : el("span", { "aria-current": "page" }, label));
    });
  },
};

async function route() {
  for (const c of page.cells) c.dispose();
  page.cells = [];
  page.counter = 0;
  const main = document.getElementById("main");
  clear(main).append(el("p", { class: "loading" }, "Loading…"));
  const path = location.pathname;
  let m;
  if (path === "/" || path === "/index.html") {
    await renderIndex(main, page);
  } else if ((m = /^\/step\/(\d+)\/?$/.exec(path))) {
    page.cells = await renderNotebook(main, Number(m[1]), page);
  } else if (path === "/lessons/README") {
    await renderReadme(main, page);
  } else if ((m = /^\/lessons\/(intro|reference|glossary)$/.exec(path))) {
    await renderDoc(main, page, m[1]);
  } else if ((m = /^\/r\/([\w-]+)\/?$/.exec(path))) {
    page.cells = await renderShare(main, m[1], page);
  } else {
    page.crumbs([["Lessons", "/"]]);
    errorPage(main, `There is no page at ${path}.`, "Pick a lesson from the list.");
  }
  if (location.hash) {
    const t = document.getElementById(location.hash.slice(1));
    if (t) t.scrollIntoView();
  } else {
    window.scrollTo(0, 0);
  }
}

document.addEventListener("click", (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target.closest("a[href]");
  if (!a || a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !/^\/($|step\/|r\/|lessons\/(README|intro|reference|glossary)$)/.test(url.pathname)) return;
  if (url.pathname === location.pathname && url.hash) return;
  e.preventDefault();
  history.pushState(null, "", url.pathname + url.hash);
  route().then(() => document.getElementById("main").focus({ preventScroll: true }));
});
window.addEventListener("popstate", route);

const cellAt = (i) => {
  const c = page.cells[i];
  if (!c) throw new Error(`no cell ${i}: this page has ${page.cells.length}`);
  return c;
};

window.pldWorkbench = {
  /** setCode replaces the text of cell i (0-based, in page order); on a working-copy cell, of the working copy. */
  setCode: (i, text) => cellAt(i).setCode(text),
  /** getCode returns the whole file cell i runs (its `#!` header included). */
  getCode: (i) => cellAt(i).getCode(),
  /** cells lists the page's cells: {index, action, kernel, entry, state, working_copy}. */
  cells: () => page.cells.map((c, i) => ({
    index: i, action: c.action, kernel: c.spec.name, state: c.state, working_copy: !!c.wc,
    entry: c.runnable && c.ranksSel ? c.shownEntry(Number(c.ranksSel.select.value)) : "",
  })),
  /** run runs cell i; the promise resolves to {state, summary} when it has ended. */
  run: async (i) => {
    const c = cellAt(i);
    if (!c.runnable) throw new Error(`cell ${i} (${c.action}) does not run`);
    return await c.run({});
  },
  /** progress is every step's record in this browser: {"8": {done, passed_at, code_hash, started}}. */
  progress: () => store.progress(),
};

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", route);
else route();
