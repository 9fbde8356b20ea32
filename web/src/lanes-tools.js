// What the swimlanes compute about a trace beyond drawing it, as Perfetto's
// details panel, flow following, area selection and omnibox do: a slice's
// flow chain, its details in words, the events and bytes in a time range,
// and the slices a search names. Pure functions over a Lanes' state (its
// lanes, byKey and arrows), so the drawing code stays about pixels.

import { el, fmtNs, fmtBytes, plural } from "./util.js";

// chainHops bounds the backward walk of a flow chain: a ring at 64 ranks
// has 2·63 hops; more would only be a loop the set below already stops.
const chainHops = 512;

// A dragged lane height stays between these (px): below 6 a slice is a
// hairline, above 60 eight ranks no longer fit a screen.
const LANE_MIN = 6;
const LANE_MAX = 60;
const HEIGHTS = { auto: 0, compact: 10, comfortable: 18, tall: 30 };

// backScan bounds how far back in one lane a chain looks for the wait that
// let a notify happen; a kernel's notify follows its wait within a few ops.
const backScan = 4096;

/**
 * flowChain follows the flow arrows through ev: forward to the waits a
 * notify released, and backward from a wait to the notify that released
 * it, then to the wait that rank passed before notifying, and so on to
 * where the chain starts. Returns {events: Set, arrows: [{from, to}],
 * origin} where origin is the earliest notify reached.
 */
export function flowChain(L, ev) {
  const events = new Set([ev]);
  const arrows = [];
  for (const a of L.arrows) if (a.from === ev) {
    arrows.push(a);
    events.add(a.to);
  }
  let cur = ev;
  let origin = null;
  for (let hop = 0; hop < chainHops; hop++) {
    const w = cur.released_by ? cur : prevReleased(cur);
    if (!w) break;
    const n = L.byKey.get(`${w.released_by.rank}:${w.released_by.seq}`);
    if (!n || events.has(n)) break;
    events.add(w);
    events.add(n);
    arrows.push({ from: n, to: w });
    origin = n;
    cur = n;
  }
  return { events, arrows, origin };
}

// prevReleased is the last released wait on ev's lane that started before it.
function prevReleased(ev) {
  const evs = ev._lane.evs;
  // The lane is sorted by start: find ev by binary search, not a scan of
  // a 100k-event lane per hop.
  let i = lowerBound(evs, ev.start_ns);
  while (i < evs.length && evs[i] !== ev) i++;
  for (let k = 0; i > 0 && k < backScan; k++) {
    i--;
    if (evs[i].released_by && evs[i].end_ns <= ev.start_ns) return evs[i];
  }
  return null;
}

/** where names an event's place: "rank 2", "rank 1 block 3", "host". */
export function where(e) {
  if (e.rank < 0) return "host";
  return `rank ${e.rank}${e.block ? ` block ${e.block}` : ""}`;
}

/** details renders the selected slice's panel: every argument, the release, the chain. */
export function details(L, e, chain, onPick) {
  const rows = [
    ["op", e.op + (e.callee ? ` ${e.callee}` : "") + (e.blocks ? ` (grid of ${e.blocks})` : "")],
    ["where", where(e)],
    ["line", String(e.line)],
  ];
  if (e.peer !== undefined && e.peer !== null) rows.push(["peer", `rank ${e.peer}`]);
  if (e.bytes) rows.push(["bytes", `${fmtBytes(e.bytes)} (${e.bytes} B)`]);
  if (e.cell) rows.push(["cell", e.cell]);
  if (e.before !== undefined && e.before !== null) rows.push(["cell before → after", `${e.before} → ${e.after}`]);
  if (e.value !== undefined && e.value !== null) rows.push(["satisfied at", String(e.value)]);
  rows.push(["start", `${fmtNs(e.start_ns)} (${e.start_ns} ns)`]);
  rows.push(["duration", `${fmtNs(e.end_ns - e.start_ns)} (${e.end_ns - e.start_ns} ns)`]);
  let release = null;
  if (e.released_by) {
    const n = L.byKey.get(`${e.released_by.rank}:${e.released_by.seq}`);
    const text = n
      ? `${n.op} on ${where(n)}, line ${n.line}${n.cell ? `, ${n.cell} ${n.before} → ${n.after}` : ""}, at ${fmtNs(n.end_ns)}`
      : `rank ${e.released_by.rank}, event ${e.released_by.seq}`;
    release = el("dd", { "data-test": "released-by" }, n ? el("a", { href: "#", onclick: (ev) => (ev.preventDefault(), onPick(n)) }, text) : text);
  }
  const dl = el("dl", null, rows.map(([k, v]) => [el("dt", null, k), el("dd", null, v)]), release ? [el("dt", null, "released by"), release] : null);
  const hops = chain.arrows.length;
  const foot = hops
    ? el("p", { class: "ld-chain", "data-test": "chain" },
      `Flow chain: ${plural(chain.events.size, "slice")} over ${plural(hops, "arrow")}`,
      chain.origin ? `, starting at ${chain.origin.op} on ${where(chain.origin)} line ${chain.origin.line} (${fmtNs(chain.origin.end_ns)})` : "",
      ". Highlighted in the lanes.")
    : el("p", { class: "ld-chain", "data-test": "chain" }, "No flow arrows into or out of this slice.");
  return [el("h5", null, `${e.op} · ${where(e)} · line ${e.line}`), dl, foot];
}

/** rangeStats counts what overlaps [a, b] in the shown lanes: events and bytes. */
export function rangeStats(rows, a, b) {
  let events = 0;
  let bytes = 0;
  for (const lane of rows) {
    const evs = lane.evs;
    let i = lowerBound(evs, a);
    while (i > 0 && evs[i - 1].end_ns > a) i--;
    for (; i < evs.length && evs[i].start_ns < b; i++) {
      if (evs[i].end_ns < a) continue;
      events++;
      bytes += evs[i].bytes || 0;
    }
  }
  return { events, bytes };
}

/**
 * search finds the slices a query names, in time order: "42" or "line 42"
 * is a source line, anything else a case-blind part of the op, the callee
 * or the signal cell ("notify", "remote_store", "signal[1").
 */
export function search(order, q) {
  q = q.trim().toLowerCase();
  if (!q) return [];
  const m = q.match(/^(?:line\s*)?(\d+)$/);
  const line = m ? +m[1] : 0;
  const out = [];
  for (const lane of order) {
    for (const e of lane.evs) {
      if (line ? e.line === line : e.op.toLowerCase().includes(q) || (e.cell && e.cell.toLowerCase().includes(q)) || (e.callee && e.callee.toLowerCase().includes(q))) out.push(e);
    }
  }
  out.sort((a, b) => a.start_ns - b.start_ns || a.rank - b.rank || (a.block || 0) - (b.block || 0));
  return out;
}

export function lowerBound(evs, t) {
  let lo = 0;
  let hi = evs.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (evs[m].start_ns < t) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** label shortens an op for a slice label: pld.tensor.notify → notify. */
export function shortOp(op) {
  const i = op.lastIndexOf(".");
  return i >= 0 ? op.slice(i + 1) : op;
}

/**
 * toolMethods are the Lanes methods behind the bar above the lanes and the
 * selection (lanes.js mixes them into its class): search with
 * next/previous, the arrow mode, lane height, folding, the measure and
 * the details panel.
 */
export const toolMethods = {
  // buildTools makes the bar above the lanes: search with next/previous,
  // the arrow mode, the lane height, fold all blocks, and the measure.
  buildTools() {
    this.searchBox = el("input", { type: "search", class: "lt-search", "data-test": "lane-search", placeholder: "Find: op, line 42, signal[1", "aria-label": "Find slices by op, line or cell" });
    this.searchCount = el("span", { class: "lt-count", "data-test": "lane-search-count", "aria-live": "polite" });
    this.searchBox.addEventListener("input", () => this.runSearch(this.searchBox.value));
    this.searchBox.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.stepMatch(e.shiftKey ? -1 : 1);
      }
    });
    const mode = (test, label, options, onchange) => {
      const s = el("select", { "data-test": test, "aria-label": label, onchange: () => onchange(s.value) },
        options.map(([v, t]) => el("option", { value: v }, t)));
      return s;
    };
    this.arrowSel = mode("lane-arrows", "Which arrows to draw", [["all", "All arrows"], ["view", "Arrows in view"], ["selection", "Selection's arrows"]], (v) => {
      this.arrowMode = v;
      this.schedule(true);
    });
    this.heightSel = mode("lane-height", "Lane height", [["auto", "Height: fit"], ["compact", "Compact"], ["comfortable", "Comfortable"], ["tall", "Tall"]], (v) => {
      this.heightMode = v;
      this.schedule(true);
    });
    this.foldBtn = el("button", { type: "button", class: "btn small", "data-test": "lane-fold", hidden: true, onclick: () => this.foldAll() }, "Fold blocks");
    this.measureOut = el("span", { class: "lt-measure", "data-test": "lane-measure", "aria-live": "polite" });
    return el("div", { class: "lanes-tools", hidden: true },
      this.searchBox,
      el("button", { type: "button", class: "btn small", "data-test": "lane-search-prev", "aria-label": "Previous match", onclick: () => this.stepMatch(-1) }, "‹"),
      el("button", { type: "button", class: "btn small", "data-test": "lane-search-next", "aria-label": "Next match", onclick: () => this.stepMatch(1) }, "›"),
      this.searchCount, this.arrowSel, this.heightSel, this.foldBtn, this.measureOut);
  },

  /** select makes e the selection (null clears it): details panel, flow chain, arrows. */
  select(e, fromClick) {
    this.selected = e || null;
    this.chain = e ? flowChain(this, e) : null;
    const box = this.detailsBox;
    this.root.dataset.chain = String(this.chain ? this.chain.events.size : 0);
    if (e) {
      box.replaceChildren(...details(this, e, this.chain, (n) => this.select(n, true)));
      box.hidden = false;
      this.root.dataset.selected = `${e.op}@${e.rank}:${e.seq}`;
    } else {
      box.hidden = true;
      delete this.root.dataset.selected;
    }
    this.schedule(true);
    if (e && fromClick && this.opts.onSliceClick) this.opts.onSliceClick(e);
  },

  // gutterClick folds a rank's blocks (the ▾ column) or pins a lane.
  gutterClick(mx, my) {
    const rows = this.rows || [];
    const lane = rows[Math.floor((my - this.axisH) / this.laneHeight())];
    if (!lane || my < this.axisH) return;
    if (mx < 13 && !lane.block && this.hasBlocks(lane.rank)) {
      if (this.collapsed.has(lane.rank)) this.collapsed.delete(lane.rank);
      else this.collapsed.add(lane.rank);
    } else if (this.pinned.has(lane)) this.pinned.delete(lane);
    else this.pinned.add(lane);
    this.schedule(true);
  },

  /** laneHeight is the height of every lane: dragged, picked, or fitted to the lane count. */
  laneHeight() {
    if (this.heightMode === "custom") return this.customH;
    const fixed = HEIGHTS[this.heightMode || "auto"];
    if (fixed) return fixed;
    const n = Math.max(1, this.rows ? this.rows.length : this.order.length);
    return Math.max(6, Math.min(22, Math.floor(560 / n)));
  },

  // edgeAt is the lane boundary under a point of the gutter (1 for the
  // line under the first visible lane, ...), or 0: dragging it sets the
  // lane height, as dragging a track's edge does in Perfetto.
  edgeAt(mx, my) {
    const rows = this.rows || [];
    if (mx >= this.gutterW || my <= this.axisH || !rows.length) return 0;
    const h = this.laneHeight();
    const i = Math.round((my - this.axisH) / h);
    return i >= 1 && i <= rows.length && Math.abs(my - (this.axisH + i * h)) <= 3 ? i : 0;
  },

  /** setLaneHeight fixes every lane at h px (a drag's result), shown in the height picker as "Height: h px". */
  setLaneHeight(h) {
    h = Math.max(LANE_MIN, Math.min(LANE_MAX, Math.round(h)));
    if (this.heightMode === "custom" && this.customH === h) return;
    this.heightMode = "custom";
    this.customH = h;
    let opt = this.heightSel.querySelector("option[value=custom]");
    if (!opt) this.heightSel.append((opt = el("option", { value: "custom" })));
    opt.textContent = `Height: ${h} px`;
    this.heightSel.value = "custom";
    this.schedule(true);
  },

  // resizeDrag follows a drag that started on boundary i at clientY y0
  // with lanes h0 px tall: the boundary stays under the pointer, so each
  // of the i lanes above it grows by 1/i of the distance moved.
  resizeDrag(d, clientY) {
    this.setLaneHeight(d.h0 + (clientY - d.y0) / d.edge);
  },

  foldAll() {
    const ranks = [...new Set(this.order.filter((l) => l.block > 0).map((l) => l.rank))];
    const fold = ranks.some((r) => !this.collapsed.has(r));
    for (const r of ranks) fold ? this.collapsed.add(r) : this.collapsed.delete(r);
    this.foldBtn.textContent = fold ? "Unfold blocks" : "Fold blocks";
    this.schedule(true);
  },

  showMeasure() {
    if (!this.range) return;
    const a = Math.min(this.range.a, this.range.b);
    const b = Math.max(this.range.a, this.range.b);
    const st = rangeStats(this.rows || this.order, a, b);
    this.measureOut.dataset.ns = String(Math.round(b - a));
    this.measureOut.dataset.events = String(st.events);
    this.measureOut.textContent = `Range ${fmtNs(b - a)} (${fmtNs(a)} – ${fmtNs(b)}) · ${plural(st.events, "event")} · ${fmtBytes(st.bytes)}`;
  },

  runSearch(q) {
    this.matches = search(this.order, q);
    this.matchSet = new Set(this.matches);
    this.matchIdx = -1;
    this.root.dataset.matches = String(this.matches.length);
    this.searchCount.textContent = q.trim() ? (this.matches.length ? `${this.matches.length} found` : "none") : "";
    this.schedule(true);
  },

  /** stepMatch selects the next (dir 1) or previous (-1) search match and brings it into view. */
  stepMatch(dir) {
    if (!this.matches.length) return;
    const n = this.matches.length;
    this.matchIdx = this.matchIdx < 0 ? (dir > 0 ? 0 : n - 1) : (this.matchIdx + dir + n) % n;
    const e = this.matches[this.matchIdx];
    this.searchCount.textContent = `${this.matchIdx + 1} of ${n}`;
    if (e._lane.block && this.collapsed.has(e.rank)) this.collapsed.delete(e.rank);
    const span = this.plotWidth() * this.nsPerPx;
    if (this.follow) this.fit();
    if (e.start_ns < this.t0 || e.end_ns > this.t0 + this.plotWidth() * this.nsPerPx) {
      this.follow = false;
      this.t0 = (e.start_ns + e.end_ns) / 2 - span / 2;
      this.clampView();
      this.syncView();
    }
    this.select(e, false);
  },

};
