// Small whole-page states shared by the routes: errors and not-found.

import { el, clear } from "./util.js";

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
