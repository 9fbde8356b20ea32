// Small DOM and formatting helpers shared by every view.

/**
 * el builds an element: el("div", {class: "x", "data-test": "cell"}, child...).
 * Attributes whose value is null, undefined or false are skipped; "on*"
 * function values become event listeners; children may be strings, nodes,
 * arrays or null.
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") {
        node.addEventListener(k.slice(2), v);
      } else if (k === "text") {
        node.textContent = v;
      } else if (k === "style") {
        // Through the CSSOM: the page's CSP refuses style attributes.
        node.style.cssText = String(v);
      } else {
        node.setAttribute(k, v === true ? "" : String(v));
      }
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** clear removes every child of node and returns it. */
export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

/** fmtNs renders a simulated duration: 850 ns, 12.4 µs, 3.10 ms. */
export function fmtNs(ns) {
  const a = Math.abs(ns);
  if (a < 1e3) return `${Math.round(ns)} ns`;
  if (a < 1e6) return `${trim(ns / 1e3)} µs`;
  if (a < 1e9) return `${trim(ns / 1e6)} ms`;
  return `${trim(ns / 1e9)} s`;
}

function trim(v) {
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** fmtBytes renders a byte count: 256 B, 4.0 KiB, 1.5 MiB. */
export function fmtBytes(b) {
  if (b < 1024) return `${b} B`;
  if (b < 1024 * 1024) return `${(b / 1024).toFixed(1)} KiB`;
  return `${(b / 1024 / 1024).toFixed(1)} MiB`;
}

/** fmtNum renders a tensor value compactly. */
export function fmtNum(v) {
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(2);
  return v.toFixed(4).replace(/0+$/, "").replace(/\.$/, "");
}

/** plural renders "1 event" / "3 events". */
export function plural(n, word, many) {
  return `${n} ${n === 1 ? word : many || word + "s"}`;
}

/** kernelName turns "kernels/08_allreduce_mesh.py" into "08_allreduce_mesh". */
export function kernelName(path) {
  return path.replace(/^.*\//, "").replace(/\.py$/, "");
}

/**
 * parseArgs reads a cell's CLI-style args ("--ranks 4 --entry f(4).g") into
 * {positional: [...], flags: {ranks: ["4"], entry: ["f(4).g"]}}.
 */
export function parseArgs(s) {
  const out = { positional: [], flags: {} };
  const toks = (s || "").trim().split(/\s+/).filter(Boolean);
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t.startsWith("--")) {
      let name = t.slice(2);
      let val = "";
      const eq = name.indexOf("=");
      if (eq >= 0) {
        val = name.slice(eq + 1);
        name = name.slice(0, eq);
      } else if (i + 1 < toks.length && !toks[i + 1].startsWith("--")) {
        val = toks[++i];
      }
      (out.flags[name] ||= []).push(val);
    } else {
      out.positional.push(t);
    }
  }
  return out;
}

/** hashText is a short non-cryptographic hash (FNV-1a) used to key saved edits. */
export function hashText(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** timeOfDay renders a timestamp as 14:03:27. */
export function timeOfDay(ms) {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => String(x).padStart(2, "0")).join(":");
}

/**
 * lineDiff is a unified diff of two texts by lines (longest common
 * subsequence), with three lines of context, "" when they are equal.
 */
export function lineDiff(a, b, nameA, nameB) {
  const x = a.split("\n");
  const y = b.split("\n");
  const n = x.length;
  const m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push([" ", x[i++], i, j++ + 1]);
    else if (j < m && (i >= n || L[i][j + 1] >= L[i + 1][j])) ops.push(["+", y[j++], i, j]);
    else ops.push(["-", x[i++], i, j]);
  }
  if (!ops.some((o) => o[0] !== " ")) return "";
  const out = [`--- ${nameA}`, `+++ ${nameB}`];
  const keep = ops.map((o, k) => ops.slice(Math.max(0, k - 3), k + 4).some((p) => p[0] !== " "));
  for (let k = 0; k < ops.length; k++) {
    if (!keep[k]) continue;
    if (k === 0 || !keep[k - 1]) out.push(`@@ line ${ops[k][0] === "+" ? ops[k][3] : ops[k][2]} @@`);
    out.push(ops[k][0] + ops[k][1]);
  }
  return out.join("\n");
}

/** humanTime renders a timestamp (ms or an ISO string) as "1 Dec 2026, 14:03 UTC" style local text. */
export function humanTime(t) {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toLocaleString(undefined, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
}
