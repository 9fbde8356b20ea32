// Everything the page remembers lives in localStorage, per browser:
// each step's progress, its working copy and version history, the cells'
// last runs and the layout. A failing
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

/**
 * progress returns every step's record, keyed by step number:
 * {"8": {done, passed_at, code_hash, started}}. A step is done only when
 * the learner's working copy passed the step's full check; the record
 * keeps when (ISO time) and the hash of the code that passed. Older
 * browsers kept a bare "done" list that a shipped kernel could fill: it
 * is not read.
 */
export function progress() {
  const p = read("progress", {});
  return p && typeof p === "object" ? p : {};
}

/** stepProgress is progress()[n] or an untouched record. */
export const stepProgress = (n) => progress()[n] || { done: false, started: false };

function updateProgress(n, f) {
  const p = progress();
  p[n] = f({ done: false, started: false, ...(p[n] || {}) });
  write("progress", p);
}

/** markStarted records that the learner ran a cell of step n or edited its working copy. */
export function markStarted(n) {
  if (stepProgress(n).started) return;
  updateProgress(n, (r) => ({ ...r, started: true }));
}

/** markPassed records that the working copy of step n (hash codeHash) passed its full check. */
export function markPassed(n, codeHash) {
  updateProgress(n, (r) => ({ ...r, started: true, done: true, passed_at: new Date().toISOString(), code_hash: codeHash }));
}

/** lastOutput / saveOutput / clearOutput keep a cell's last run: {id, t, ms, check}. */
export const lastOutput = (key) => read(`out:${key}`, null);
export const saveOutput = (key, v) => write(`out:${key}`, v);
export function clearOutput(key) {
  try {
    localStorage.removeItem(PREFIX + `out:${key}`);
  } catch {
    /* nothing kept */
  }
}

/** layout / setLayout remember the notebook layout: "column" or "split". */
export const layout = () => read("layout", "column");
export const setLayout = (v) => write("layout", v);

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
