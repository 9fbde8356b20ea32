// Diagnostics of the entry expression. The engine names a span in the
// entry a cell runs ("build_ring_allreduce(8).ring_allreduce") with the
// file "<entry>" (engine/diag's EntryFile), its line and column counting
// in that expression, not in the kernel. Marked as they come they landed
// on the kernel's first line; placeEntryDiags puts them on the def the
// entry calls, whose signature is most often what the learner changed,
// and says which entry they are about.

/** ENTRY_FILE is the file of a span in an entry expression (engine/diag.EntryFile). */
export const ENTRY_FILE = "<entry>";

/** entryDefLine returns the 1-based line of `def NAME(` in code for the name the entry starts with, or 0. */
export function entryDefLine(code, entry) {
  const m = /^\s*([A-Za-z_]\w*)/.exec(entry || "");
  if (!m) return 0;
  const re = new RegExp(`^\\s*def\\s+${m[1]}\\s*\\(`);
  return code.split("\n").findIndex((l) => re.test(l)) + 1;
}

/**
 * placeEntryDiag returns d unchanged unless it is in the entry; then a
 * copy on the line of the def the entry calls (the whole line; when the
 * code has no such def, on no line at all) whose message names the
 * entry.
 */
export function placeEntryDiag(d, code, entry) {
  if (!d || d.file !== ENTRY_FILE) return d;
  const line = entryDefLine(code || "", entry);
  return { ...d, line, col: 1, end_line: line, end_col: 0, message: `in the entry ${entry || "expression"}: ${d.message}` };
}

/** placeEntryDiags is placeEntryDiag over a list. */
export function placeEntryDiags(diags, code, entry) {
  return (diags || []).map((d) => placeEntryDiag(d, code, entry));
}
