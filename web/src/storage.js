// Everything the page remembers lives in localStorage, per browser:
// finished steps, each cell's edits and its version history. A failing
// storage (private mode, quota) never breaks the page: reads fall back to
// nothing, writes are dropped.

const PREFIX = "pld-workbench:";
const HISTORY_MAX = 30;

function read(key, fallback) {
  try {
    const v = localStorage.getItem(PREFIX + key);
    return v === null ? fallback : JSON.parse(v);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    /* storage full or disabled: the page keeps working without it */
  }
}

/** doneSteps returns the set of step numbers whose check passed here. */
export function doneSteps() {
  return new Set(read("done", []));
}

/** markDone records that a check of step n passed. */
export function markDone(n) {
  const s = doneSteps();
  if (s.has(n)) return;
  s.add(n);
  write("done", [...s].sort((a, b) => a - b));
}

/** lastStep / setLastStep remember the step opened last, for "continue". */
export const lastStep = () => read("last", 0);
export const setLastStep = (n) => write("last", n);

/**
 * loadCode returns the saved edit of a cell, {code, orig} where orig is the
 * hash of the lesson code it was edited from, or null.
 */
export const loadCode = (key) => read(`code:${key}`, null);

/** saveCode stores a cell's current text. */
export const saveCode = (key, code, orig) => write(`code:${key}`, { code, orig });

/** history returns a cell's saved versions, newest first: [{t, code, label}]. */
export const history = (key) => read(`hist:${key}`, []);

/** snapshot adds a version unless it equals the newest one. */
export function snapshot(key, code, label) {
  const h = history(key);
  if (h.length && h[0].code === code) {
    h[0].label = label;
    h[0].t = Date.now();
  } else {
    h.unshift({ t: Date.now(), code, label });
  }
  write(`hist:${key}`, h.slice(0, HISTORY_MAX));
}
