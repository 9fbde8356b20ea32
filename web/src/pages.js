// Small whole-page states shared by the routes: errors and not-found.

import { el, clear } from "./util.js";
import { api } from "./api.js";

/** renderReadme shows the lessons' README, which the lessons link to. */
export async function renderReadme(main, page) {
  page.crumbs([["Lessons", "/"], ["The lessons' README", null]]);
  let res;
  try {
    res = await api.readme();
  } catch (e) {
    errorPage(main, e.message, e.hint, true);
    return;
  }
  document.title = "The lessons' README · PLD Workbench";
  const body = el("div", { class: "lesson", "data-test": "readme" });
  body.innerHTML = res.html || "";
  clear(main).append(el("article", { class: "notebook" }, body));
}

// docTitles names the pages beside the lessons (server/API.md).
const docTitles = { intro: "Step 0: what you are running", reference: "The pl/pld operations", glossary: "Glossary" };

/** renderDoc shows step 0, the operation reference or the glossary. */
export async function renderDoc(main, page, name) {
  page.crumbs([["Lessons", "/"], [docTitles[name], null]]);
  let res;
  try {
    res = await api.doc(name);
  } catch (e) {
    errorPage(main, e.message, e.hint, true);
    return;
  }
  document.title = `${docTitles[name]} · PLD Workbench`;
  const body = el("div", { class: "lesson", "data-test": `doc-${name}` });
  body.innerHTML = res.html || "";
  docLinks(body);
  clear(main).append(el("article", { class: "notebook" }, body));
}

/** docLinks turns a rendered page's relative .md links into routes. */
export function docLinks(root) {
  for (const a of root.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href");
    const m = /^(?:\.\/)?(\d{2})-[\w-]+\.md(#.*)?$/.exec(href);
    const d = /^(?:\.\/)?(intro|reference|glossary)\.md(#.*)?$/.exec(href);
    if (m) a.setAttribute("href", `/step/${Number(m[1])}`);
    else if (d) a.setAttribute("href", `/lessons/${d[1]}`);
  }
}

/** errorPage says what went wrong and what to try. */
export function errorPage(main, message, hint, retry) {
  clear(main).append(
    el("section", { class: "error-page", role: "alert" },
      el("h1", null, "Something is missing"),
      el("p", null, message),
      hint ? el("p", { class: "hint" }, hint) : null,
      el("p", null,
        retry ? el("button", { type: "button", class: "btn", onclick: () => location.reload() }, "Try again") : null,
        " ", el("a", { href: "/" }, "Back to the lessons")),
    ),
  );
}
