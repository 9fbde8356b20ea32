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
