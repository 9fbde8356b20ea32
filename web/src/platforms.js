// The platforms the server models, from GET /api/platforms (the one
// platform table, engine/platform): the page names none of its own. A page
// that makes cells awaits loadPlatforms() first, so a cell's controls can
// read the list synchronously.

import { api } from "./api.js";

let table = { default: "", platforms: [] };
let pending = null;

/** loadPlatforms fetches the table once; a failure leaves it empty. */
export function loadPlatforms() {
  if (!pending) {
    pending = api.platforms().then(
      (res) => {
        table = res;
      },
      () => {
        /* the menu then offers only the cell's own platform, or none */
      },
    );
  }
  return pending;
}

/** platformNames are the names, the default first. */
export const platformNames = () => table.platforms.map((p) => p.name);

/** defaultPlatform is the server's default platform ("" before loading). */
export const defaultPlatform = () => table.default;

/**
 * simulatorOf is the PyPTO simulator of a platform (the last of its PyPTO
 * names), or undefined, which lets the server pick its default.
 */
export function simulatorOf(name) {
  const p = table.platforms.find((x) => x.name === name);
  return p && p.pypto.length ? p.pypto[p.pypto.length - 1] : undefined;
}
