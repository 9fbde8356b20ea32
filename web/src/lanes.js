// The swimlanes: one lane per rank (the host first when it has events, a
// kernel grid's blocks 1.. as sub-lanes right under their rank; block 0
// shares the rank's lane), one slice per event coloured by the kind of op,
// and an arrow from each notify to the wait it released. Events arrive one
// by one from the websocket; add() only files them and asks for a frame, so
// a burst of thousands of messages costs one redraw.
//
// Drawing cost is bounded by the canvas, not the trace: per lane a binary
// search finds the first visible slice, slices narrower than a pixel that
// land on an already painted pixel column are merged, and the rectangles
// of one colour are filled as one path. 64 ranks × 100k events redraw in a
// few milliseconds.

import { el, fmtNs, fmtBytes, plural } from "./util.js";
import { lowerBound, shortOp, toolMethods } from "./lanes-tools.js";

// KINDS are the slice colours, one per event category (trace.Event's cat,
// which the server fills from the IR's operation table: the page classifies
// no op names).
export const KINDS = [
  { id: "compute", label: "compute", color: "#5b7fc7" },
  { id: "memory", label: "load / store", color: "#2a9d8f" },
  { id: "rma", label: "remote / put / get", color: "#e8892b" },
  { id: "notify", label: "notify", color: "#8e5cc2" },
  { id: "wait", label: "wait", color: "#e8a3ad", ink: "#1f2430" },
  { id: "call", label: "call", color: "#5c6370" },
  { id: "setup", label: "other", color: "#b9c1cc", ink: "#1f2430" },
  { id: "collective", label: "collective", color: "#c9a227", ink: "#1f2430" },
];

const KIND_INDEX = new Map(KINDS.map((k, i) => [k.id, i]));

/** kindOf is the index in KINDS of an event's category. */
export function kindOf(ev) {
  return KIND_INDEX.get(ev.cat) ?? 0;
}

const GUTTER = 72;
const AXIS = 24;
const PAD_R = 12;
const NARROW = 3;
// A slice gets its op's name written on it when it is this wide and its
// lane this tall; at 6 px a character, 24 px holds "wait" or "put".
const LABEL_W = 24;
const LABEL_H = 12;

/**
 * linkAxis puts several Lanes on one time axis: the same extent (the
 * longest run's end), and zooming or panning one moves the others, so
 * stacked timelines compare durations at a glance.
 */
export function linkAxis(...lanes) {
  for (const l of lanes) l.group = lanes;
}

export class Lanes {
  /**
   * opts.onSliceClick(event) runs when a slice is clicked; opts.test is the
   * root's data-test (default "lanes"); opts.legend and opts.help (default
   * true) show the colour legend and the usage line.
   */
  constructor(opts = {}) {
    this.opts = opts;
    this.canvas = el("canvas", {
      tabindex: "0",
      role: "img",
      "aria-label": "Swimlanes: one lane per rank. Keys: + and - zoom, left and right arrows pan, 0 fits the whole run.",
    });
    this.tip = el("div", { class: "lane-tip", role: "tooltip", hidden: true });
    this.empty = el("p", { class: "lanes-empty" });
    this.tools = this.buildTools();
    this.detailsBox = el("div", { class: "lane-details", "data-test": "lane-details", hidden: true });
    this.wrap = el("div", { class: "lanes-canvas" }, this.canvas, this.tip);
    this.root = el(
      "div",
      { class: "lanes", "data-test": opts.test || "lanes", "data-ranks": "0", "data-events": "0", "data-arrows": "0" },
      opts.legend === false ? null : el("div", { class: "legend", "aria-label": "Colours of the ops" },
        KINDS.map((k) => el("span", { class: "legend-item" }, el("i", { style: `background:${k.color}` }), k.label)),
        el("span", { class: "legend-item" }, el("i", { class: "legend-arrow" }), "notify → wait"),
      ),
      this.tools,
      this.empty,
      this.wrap,
      this.detailsBox,
      opts.help === false ? null : el("p", { class: "lanes-help" }, "W/S or the wheel zooms, A/D or drag pans, 0 or double-click fits. Click a slice for its details and flow chain; Shift-drag (or drag on the time axis) measures a range; Esc clears. Click ▾ beside a rank to fold its blocks, click a lane's name to pin it on top, drag a line between two names to set the lane height."),
    );
    // The browser tests (and a curious learner's console) read the view's
    // state from its element: the slices' places, the selection, the scale.
    this.root.__lanes = this;
    this.axisH = AXIS; // the gutter's click and drag handlers (lanes-tools.js) need the axis height
    this.gutterW = GUTTER; // and the gutter's width
    this.reset(0);
    this.bind();
    new ResizeObserver(() => this.schedule(true)).observe(this.wrap);
  }

  /** reset forgets the trace; ranks is the run's P when known. */
  reset(ranks, emptyText) {
    this.lanes = new Map();
    this.order = [];
    this.byKey = new Map();
    this.pending = new Map();
    this.arrows = [];
    this.count = 0;
    this.firstDrawAt = 0;
    this.maxEnd = 0;
    this.declared = ranks || 0;
    this.follow = true;
    this.t0 = 0;
    this.nsPerPx = 1;
    this.deadlock = null;
    this.line = 0;
    this.selected = null;
    this.raceMarks = [];
    this.hover = null;
    this.chain = null;
    this.range = null;
    this.matches = [];
    this.matchSet = new Set();
    this.matchIdx = -1;
    this.collapsed = new Set();
    this.pinned = new Set();
    if (this.detailsBox) this.detailsBox.hidden = true;
    if (this.measureOut) this.measureOut.textContent = "";
    if (this.searchCount) this.searchCount.textContent = "";
    this.setEmpty(emptyText === undefined ? "No run yet: press Run (or Shift-Enter in the editor) and the ranks' timelines fill in here as the run goes." : emptyText);
    this.schedule();
  }

  setEmpty(text) {
    this.empty.textContent = text || "";
    this.empty.hidden = !text;
  }

  setRanks(p) {
    this.declared = p || 0;
    this.schedule();
  }

  /** add files one trace event. */
  add(ev) {
    if (this.count === 0) {
      this.setEmpty("");
      this.firstEventAt = performance.now();
    }
    const block = ev.block || 0;
    const key = ev.rank * 4096 + block;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { rank: ev.rank, block, evs: [], sorted: true };
      this.lanes.set(key, lane);
      this.order.push(lane);
      this.order.sort((a, b) => a.rank - b.rank || a.block - b.block);
    }
    ev._k = kindOf(ev);
    ev._lane = lane;
    const n = lane.evs.length;
    if (n && ev.start_ns < lane.evs[n - 1].start_ns) lane.sorted = false;
    lane.evs.push(ev);
    this.count++;
    if (ev.end_ns > this.maxEnd) {
      this.maxEnd = ev.end_ns;
      if (this.group) for (const o of this.group) if (o !== this) o.schedule();
    }
    const k = `${ev.rank}:${ev.seq}`;
    this.byKey.set(k, ev);
    const waiting = this.pending.get(k);
    if (waiting) {
      for (const w of waiting) this.arrows.push({ from: ev, to: w });
      this.pending.delete(k);
    }
    if (ev.released_by) {
      const nk = `${ev.released_by.rank}:${ev.released_by.seq}`;
      const from = this.byKey.get(nk);
      if (from) this.arrows.push({ from, to: ev });
      else (this.pending.get(nk) || this.pending.set(nk, []).get(nk)).push(ev);
    }
    this.schedule();
  }

  /** setDeadlock draws a dangling arrow into each blocked rank's lane. */
  setDeadlock(d) {
    this.deadlock = d;
    this.schedule();
    if (this.group) for (const o of this.group) if (o !== this) o.schedule();
  }

  /** setRaceMarks outlines the slices of [{rank, line}] in red. */
  setRaceMarks(marks) {
    this.raceMarks = marks || [];
    this.schedule();
  }

  /** setLine outlines every slice issued by source line (0: none). */
  setLine(line) {
    if (this.line === line) return;
    this.line = line;
    this.schedule(true);
  }

  // schedule asks for a redraw. While events stream in, redraws are spaced
  // so that drawing takes at most a fifth of the time (a 30 ms frame at
  // 100k events waits 120 ms): otherwise every websocket batch would pay
  // for a full frame and a replay would take seconds instead of a blink.
  // urgent (zoom, pan, hover, selection) draws on the next frame.
  schedule(urgent) {
    if (this.frame) return;
    if (this.timer && !urgent) return;
    clearTimeout(this.timer);
    this.timer = 0;
    const wait = urgent ? 0 : (this.lastDraw || 0) + 4 * (this.drawMs || 0) - performance.now();
    const go = () => {
      this.timer = 0;
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        const t = performance.now();
        this.draw();
        this.lastDraw = performance.now();
        this.drawMs = this.lastDraw - t;
      });
    };
    if (wait > 0) this.timer = setTimeout(go, wait);
    else go();
  }

  /** visibleRows is the lanes drawn, top to bottom: the pinned ones, then the rest, folded blocks left out. */
  visibleRows() {
    const pinned = [];
    const rest = [];
    for (const l of this.order) {
      if (l.block && this.collapsed.has(l.rank)) continue;
      (this.pinned.has(l) ? pinned : rest).push(l);
    }
    return pinned.concat(rest);
  }

  hasBlocks(rank) {
    return this.order.some((l) => l.rank === rank && l.block > 0);
  }

  plotWidth() {
    return Math.max(10, this.canvas.clientWidth - GUTTER - PAD_R);
  }

  ownExtent() {
    return Math.max(1, this.maxEnd * (this.deadlock ? 1.12 : 1.02));
  }

  /** extent is the time the axis spans: the run's end, or the group's longest. */
  extent() {
    return this.group ? Math.max(...this.group.map((l) => l.ownExtent())) : this.ownExtent();
  }

  /** syncView hands this view's zoom and pan to the lanes on the same axis. */
  syncView() {
    if (!this.group) return;
    for (const o of this.group) {
      if (o === this) continue;
      o.t0 = this.t0;
      o.nsPerPx = this.nsPerPx;
      o.follow = this.follow;
      o.schedule(true);
    }
  }

  fit() {
    this.t0 = 0;
    this.nsPerPx = this.extent() / this.plotWidth();
  }

  draw() {
    const r = this.root;
    r.dataset.ranks = String(this.declared || new Set(this.order.filter((l) => l.rank >= 0).map((l) => l.rank)).size);
    r.dataset.events = String(this.count);
    r.dataset.arrows = String(this.arrows.length);
    r.dataset.chain = String(this.chain ? this.chain.events.size : 0);
    r.dataset.rows = String(this.visibleRows().length);
    this.wrap.hidden = this.count === 0 && !this.deadlock;
    this.tools.hidden = this.count === 0;
    const cssW = this.wrap.clientWidth;
    if (!cssW || this.wrap.hidden) return;
    this.rows = this.visibleRows();
    this.foldBtn.hidden = !this.order.some((l) => l.block > 0);
    const laneH = this.laneHeight();
    const cssH = AXIS + this.rows.length * laneH + 6;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.height = cssH + "px";
    if (this.canvas.width !== Math.round(cssW * dpr) || this.canvas.height !== Math.round(cssH * dpr)) {
      this.canvas.width = Math.round(cssW * dpr);
      this.canvas.height = Math.round(cssH * dpr);
    }
    if (this.follow) this.fit();
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    ctx.font = `${Math.min(12, Math.max(8, laneH - 6))}px system-ui, sans-serif`;
    const t0 = this.t0;
    const k = 1 / this.nsPerPx;
    const x = (t) => GUTTER + (t - t0) * k;
    const t1 = t0 + (cssW - GUTTER) * this.nsPerPx;

    // Lane backgrounds and labels.
    const labelEvery = laneH >= 10 ? 1 : Math.ceil(10 / laneH);
    for (const lane of this.order) lane.y = undefined;
    const folds = new Set(this.order.filter((l) => l.block > 0).map((l) => l.rank));
    this.rows.forEach((lane, i) => {
      const y = AXIS + i * laneH;
      ctx.fillStyle = this.pinned.has(lane) ? (i % 2 ? "#eef2fb" : "#f4f7fd") : i % 2 ? "#f6f7f9" : "#ffffff";
      ctx.fillRect(GUTTER, y, cssW - GUTTER, laneH);
      lane.y = y;
      if (i % labelEvery === 0 || lane.block) {
        ctx.fillStyle = lane.block ? "#7a8290" : "#2b303b";
        ctx.textBaseline = "middle";
        const fold = !lane.block && folds.has(lane.rank);
        if (fold) ctx.fillText(this.collapsed.has(lane.rank) ? "▸" : "▾", 2, y + laneH / 2);
        ctx.fillText((this.pinned.has(lane) ? "• " : "") + laneLabel(lane), 14, y + laneH / 2);
      }
    });
    if (this.pinned.size) {
      const n = this.rows.filter((l) => this.pinned.has(l)).length;
      ctx.strokeStyle = "#9aa7c7";
      ctx.beginPath();
      ctx.moveTo(0, AXIS + n * laneH + 0.5);
      ctx.lineTo(cssW, AXIS + n * laneH + 0.5);
      ctx.stroke();
    }
    this.drawAxis(ctx, cssW, x, t0, t1);

    // Slices. Narrow ones (under NARROW px) are rasterised into a row of
    // pixel columns, last writer wins, and each run of one kind becomes one
    // rectangle; wide ones are drawn as they are. A frame therefore draws at
    // most about (canvas width + wide slices) rectangles per lane, however
    // many events the run has.
    const rects = KINDS.map(() => []);
    const outline = [];
    const race = [];
    const found = [];
    const chainBoxes = [];
    const labels = [];
    const chainSet = this.chain ? this.chain.events : null;
    const sh = Math.max(2, laneH - (laneH > 10 ? 4 : 2));
    const raceSet = new Set(this.raceMarks.map((m) => `${m.rank}:${m.line}`));
    const plotW = Math.ceil(cssW - GUTTER);
    if (!this.cols || this.cols.length < plotW) this.cols = new Uint8Array(plotW + 64);
    const cols = this.cols;
    for (const lane of this.order) {
      if (!lane.sorted) {
        lane.evs.sort((a, b) => a.start_ns - b.start_ns);
        lane.sorted = true;
      }
    }
    for (const lane of this.rows) {
      if (!lane.sorted) {
        lane.evs.sort((a, b) => a.start_ns - b.start_ns);
        lane.sorted = true;
      }
      const evs = lane.evs;
      let i = lowerBound(evs, t0);
      while (i > 0 && evs[i - 1].end_ns >= t0) i--;
      const y = lane.y + (laneH - sh) / 2;
      cols.fill(255, 0, plotW);
      let any = false;
      for (; i < evs.length; i++) {
        const e = evs[i];
        if (e.start_ns > t1) break;
        const x0 = (e.start_ns - t0) * k;
        const x1 = (e.end_ns - t0) * k;
        const w = x1 - x0;
        if (w < NARROW) {
          const a = Math.max(0, Math.floor(x0));
          const b = Math.min(plotW, Math.max(a + 1, Math.ceil(x1)));
          for (let c = a; c < b; c++) cols[c] = e._k;
          any = true;
        } else {
          rects[e._k].push(GUTTER + x0, y, w - 0.5, sh);
          if (w >= LABEL_W && laneH >= LABEL_H && labels.length < 4 * 3000) labels.push(GUTTER + Math.max(x0, 0), y, Math.min(x1, plotW) - Math.max(x0, 0), e);
        }
        if (this.line && e.line === this.line) outline.push(GUTTER + x0, y, Math.max(w, 2), sh);
        if (this.matchSet.size && this.matchSet.has(e)) found.push(GUTTER + x0 - 1, y - 1, Math.max(w, 2) + 2, sh + 2);
        if (chainSet && chainSet.has(e)) chainBoxes.push(GUTTER + x0 - 1, y - 1, Math.max(w, 2) + 2, sh + 2);
        if (raceSet.size && raceSet.has(`${e.rank}:${e.line}`)) race.push(GUTTER + x0, y, Math.max(w, 2), sh);
      }
      if (!any) continue;
      for (let c = 0; c < plotW; ) {
        const kk = cols[c];
        let d = c + 1;
        while (d < plotW && cols[d] === kk) d++;
        if (kk !== 255) rects[kk].push(GUTTER + c, y, d - c, sh);
        c = d;
      }
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, AXIS, cssW - GUTTER, cssH - AXIS);
    ctx.clip();
    rects.forEach((list, ki) => {
      if (!list.length) return;
      ctx.fillStyle = KINDS[ki].color;
      for (let j = 0; j < list.length; j += 4) ctx.fillRect(list[j], list[j + 1], list[j + 2], list[j + 3]);
    });
    this.drawLabels(ctx, labels, laneH);
    for (const list of [outline, race, found, chainBoxes]) if (list.length > 4 * 4000) list.length = 4 * 4000;
    strokeRects(ctx, race, "#c1121f", 2);
    strokeRects(ctx, outline, "#111827", 1.5);
    strokeRects(ctx, found, "#d97706", 2);
    strokeRects(ctx, chainBoxes, "#4c1d95", 2);
    if (this.selected && this.selected._lane.y !== undefined) {
      const s = this.selected;
      strokeRects(ctx, [x(s.start_ns) - 1, s._lane.y + 1, Math.max(x(s.end_ns) - x(s.start_ns), 2) + 2, laneH - 2], "#111827", 2.5);
    }
    this.drawArrows(ctx, x, t0, t1, laneH);
    this.drawRange(ctx, x, cssH);
    this.drawDeadlock(ctx, x, laneH, cssW);
    ctx.restore();
    // When the first lanes were on screen, after the first event arrived (e2e's latency test).
    if (this.count && !this.firstDrawAt) r.dataset.firstLaneMs = ((this.firstDrawAt = performance.now()) - this.firstEventAt).toFixed(1);
  }

  drawAxis(ctx, cssW, x, t0, t1) {
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, cssW, AXIS);
    ctx.strokeStyle = "#d5d9e0";
    ctx.beginPath();
    ctx.moveTo(GUTTER, AXIS - 0.5);
    ctx.lineTo(cssW, AXIS - 0.5);
    ctx.stroke();
    const step = niceStep((t1 - t0) / Math.max(1, (cssW - GUTTER) / 110));
    ctx.fillStyle = "#5b6270";
    ctx.textBaseline = "alphabetic";
    ctx.font = "11px system-ui, sans-serif";
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const px = Math.round(x(t)) + 0.5;
      if (px < GUTTER) continue;
      ctx.beginPath();
      ctx.moveTo(px, AXIS - 6);
      ctx.lineTo(px, AXIS);
      ctx.stroke();
      ctx.fillText(fmtNs(t), px + 3, AXIS - 9);
    }
    ctx.fillText("time", 6, AXIS - 9);
  }

  // drawArrows draws the notify→wait arrows the arrow mode asks for: all
  // of them, only those with both ends on screen ("view"), or only the
  // selection's flow chain ("selection"), which is what keeps 8 ranks × 3
  // blocks readable. The chain is drawn on top, thick, in every mode.
  drawArrows(ctx, x, t0, t1, laneH) {
    const mid = (e) => e._lane.y + laneH / 2;
    const mode = this.arrowMode || "all";
    const shown = (e) => e._lane.y !== undefined;
    let drawn = 0;
    if (mode !== "selection") {
      ctx.lineWidth = 1;
      ctx.strokeStyle = this.arrows.length > 400 ? "rgba(110,60,170,0.35)" : "rgba(110,60,170,0.75)";
      ctx.fillStyle = ctx.strokeStyle;
      ctx.beginPath();
      const seen = new Set();
      const heads = [];
      for (const a of this.arrows) {
        if (!shown(a.from) || !shown(a.to)) continue;
        if (mode === "view") {
          if (a.from.end_ns < t0 || a.from.end_ns > t1 || a.to.end_ns < t0 || a.to.end_ns > t1) continue;
        } else {
          if (a.from.end_ns > t1 && a.to.end_ns > t1) continue;
          if (a.from.end_ns < t0 && a.to.end_ns < t0) continue;
        }
        const x1 = x(a.from.end_ns);
        const x2 = x(a.to.end_ns);
        const y1 = mid(a.from);
        const y2 = mid(a.to);
        const key = `${Math.round(x1)},${Math.round(y1)},${Math.round(x2)},${Math.round(y2)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        ctx.moveTo(x1, y1);
        ctx.lineTo(x2, y2);
        if (seen.size < 3000) heads.push([x1, y1, x2, y2]);
      }
      ctx.stroke();
      for (const h of heads) arrowHead(ctx, ...h, 5);
      drawn = seen.size;
    }
    if (this.chain) {
      ctx.strokeStyle = "#4c1d95";
      ctx.fillStyle = "#4c1d95";
      ctx.lineWidth = 2;
      for (const a of this.chain.arrows) {
        if (!shown(a.from) || !shown(a.to)) continue;
        ctx.beginPath();
        ctx.moveTo(x(a.from.end_ns), mid(a.from));
        ctx.lineTo(x(a.to.end_ns), mid(a.to));
        ctx.stroke();
        arrowHead(ctx, x(a.from.end_ns), mid(a.from), x(a.to.end_ns), mid(a.to), 7);
        if (mode === "selection") drawn++;
      }
      ctx.lineWidth = 1;
    }
    this.root.dataset.arrowsDrawn = String(drawn);
  }

  // drawLabels writes each wide slice's op on it, cut to fit (about 6 px a
  // character at 11 px), white on the dark kinds and dark on the light ones.
  drawLabels(ctx, labels, laneH) {
    if (!labels.length) return;
    ctx.font = `${Math.min(11, laneH - 4)}px system-ui, sans-serif`;
    ctx.textBaseline = "middle";
    const sh = Math.max(2, laneH - (laneH > 10 ? 4 : 2));
    for (let j = 0; j < labels.length; j += 4) {
      const w = labels[j + 2];
      const e = labels[j + 3];
      const n = Math.floor((w - 4) / 6);
      if (n < 2) continue;
      let t = shortOp(e.op);
      if (t.length > n) t = t.slice(0, n - 1) + "…";
      ctx.fillStyle = KINDS[e._k].ink || "#ffffff"; // dark text on the light colours
      ctx.fillText(t, labels[j] + 3, labels[j + 1] + sh / 2);
    }
  }

  // drawRange shades the measured range and writes its duration on it.
  drawRange(ctx, x, cssH) {
    if (!this.range) return;
    const a = x(Math.min(this.range.a, this.range.b));
    const b = x(Math.max(this.range.a, this.range.b));
    ctx.fillStyle = "rgba(37,99,235,0.12)";
    ctx.fillRect(a, AXIS, b - a, cssH - AXIS);
    ctx.strokeStyle = "#2563eb";
    ctx.beginPath();
    ctx.moveTo(a + 0.5, 0);
    ctx.lineTo(a + 0.5, cssH);
    ctx.moveTo(b - 0.5, 0);
    ctx.lineTo(b - 0.5, cssH);
    ctx.stroke();
    ctx.fillStyle = "#1d4ed8";
    ctx.font = "bold 11px system-ui, sans-serif";
    ctx.textBaseline = "alphabetic";
    ctx.fillText(fmtNs(Math.abs(this.range.b - this.range.a)), a + 4, AXIS + 12);
  }

  drawDeadlock(ctx, x, laneH, cssW) {
    if (!this.deadlock || !this.deadlock.ranks) return;
    ctx.strokeStyle = "#c1121f";
    ctx.fillStyle = "#c1121f";
    ctx.setLineDash([4, 3]);
    ctx.lineWidth = 1.5;
    ctx.font = "11px system-ui, sans-serif";
    for (const b of this.deadlock.ranks) {
      const lane = this.order.find((l) => l.rank === b.rank && l.block === (b.block || 0));
      if (!lane || lane.y === undefined) continue;
      const last = lane.evs.length ? lane.evs[lane.evs.length - 1].end_ns : 0;
      const xs = x(last);
      const xe = Math.min(cssW - PAD_R, x(this.extent()));
      const y = lane.y + laneH / 2;
      ctx.beginPath();
      ctx.moveTo(xs, y);
      ctx.lineTo(xe, y);
      ctx.stroke();
      // The dangling arrow: it points at the blocked wait and starts nowhere.
      ctx.beginPath();
      ctx.moveTo(xs - 14, lane.y - 2);
      ctx.lineTo(xs, y);
      ctx.stroke();
      arrowHead(ctx, xs - 14, lane.y - 2, xs, y, 6);
      if (laneH >= 10) ctx.fillText(`blocked at line ${b.line}`, xs + 6, y - 2);
    }
    ctx.setLineDash([]);
    ctx.lineWidth = 1;
  }

  hit(mx, my) {
    const laneH = this.laneHeight();
    const rows = this.rows || this.order;
    const i = Math.floor((my - AXIS) / laneH);
    if (i < 0 || i >= rows.length || mx < GUTTER) return null;
    const evs = rows[i].evs;
    const t = this.t0 + (mx - GUTTER) * this.nsPerPx;
    const tol = 3 * this.nsPerPx;
    let j = lowerBound(evs, t - tol);
    while (j > 0 && evs[j - 1].end_ns >= t - tol) j--;
    let best = null;
    let bestD = Infinity;
    for (; j < evs.length && evs[j].start_ns <= t + tol; j++) {
      const e = evs[j];
      const d = t < e.start_ns ? e.start_ns - t : t > e.end_ns ? t - e.end_ns : 0;
      if (d < bestD) {
        best = e;
        bestD = d;
      }
    }
    return bestD <= tol ? best : null;
  }

  bind() {
    const c = this.canvas;
    const pos = (e) => {
      const r = c.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    let drag = null;
    c.addEventListener("mousedown", (e) => {
      const [mx, my] = pos(e);
      const edge = this.edgeAt(mx, my);
      if (edge) {
        drag = { edge, y0: e.clientY, h0: this.laneHeight(), moved: true };
        e.preventDefault();
        return;
      }
      const measure = (e.shiftKey || my < AXIS) && mx >= GUTTER;
      drag = { x: e.clientX, t0: this.t0, moved: false, measure, at: this.timeAt(mx) };
      if (measure) e.preventDefault();
    });
    window.addEventListener("mouseup", (e) => {
      if (drag && !drag.edge && !drag.moved && e.target === c) {
        const [mx, my] = pos(e);
        if (mx < GUTTER) this.gutterClick(mx, my);
        else if (my >= AXIS) this.select(this.hit(mx, my), true);
      } else if (drag && drag.measure && drag.moved) {
        this.showMeasure();
      }
      drag = null;
    });
    c.addEventListener("mousemove", (e) => {
      const [mx, my] = pos(e);
      this.mouseX = mx;
      if (drag && drag.edge) return; // the window's listener below follows it
      if (!drag && this.edgeAt(mx, my)) {
        this.tip.hidden = true;
        c.style.cursor = "row-resize";
        return;
      }
      if (drag) {
        const dx = e.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (drag.moved && drag.measure) {
          this.range = { a: drag.at, b: this.timeAt(mx) };
          this.tip.hidden = true;
          this.schedule(true);
          return;
        }
        if (drag.moved) {
          this.follow = false;
          this.t0 = drag.t0 - dx * this.nsPerPx;
          this.tip.hidden = true;
          this.schedule(true);
          this.syncView();
          return;
        }
      }
      this.showTip(this.hit(mx, my), mx, my);
    });
    // A lane-height drag goes on when the pointer leaves the canvas.
    window.addEventListener("mousemove", (e) => drag && drag.edge && this.resizeDrag(drag, e.clientY));
    c.addEventListener("mouseleave", () => (this.tip.hidden = true));
    c.addEventListener("dblclick", () => {
      this.follow = true;
      this.schedule(true);
      this.syncView();
    });
    c.addEventListener(
      "wheel",
      (e) => {
        if (!this.count) return;
        e.preventDefault();
        const [mx] = pos(e);
        if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          this.pan((e.deltaX || e.deltaY) * this.nsPerPx);
        } else {
          this.zoom(Math.exp(e.deltaY * 0.0015), mx);
        }
      },
      { passive: false },
    );
    c.addEventListener("keydown", (e) => {
      const w = this.plotWidth();
      // W/S zoom at the mouse (the middle when it is elsewhere), A/D pan, as in Perfetto.
      const at = this.mouseX >= GUTTER ? this.mouseX : GUTTER + w / 2;
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (key === "+" || key === "=" || key === "w") this.zoom(1 / 1.4, at);
      else if (key === "-" || key === "_" || key === "s") this.zoom(1.4, at);
      else if (key === "ArrowLeft" || key === "a") this.pan(-w * 0.15 * this.nsPerPx);
      else if (key === "ArrowRight" || key === "d") this.pan(w * 0.15 * this.nsPerPx);
      else if (key === "Escape") {
        this.range = null;
        this.measureOut.textContent = "";
        this.select(null);
      }
      else if (e.key === "0" || e.key === "Home") {
        this.follow = true;
        this.schedule(true);
        this.syncView();
      } else return;
      e.preventDefault();
    });
  }

  zoom(factor, mx) {
    const ta = this.t0 + (mx - GUTTER) * this.nsPerPx;
    const max = (this.extent() / this.plotWidth()) * 1.5;
    this.nsPerPx = Math.min(max, Math.max(0.005, this.nsPerPx * factor));
    this.t0 = ta - (mx - GUTTER) * this.nsPerPx;
    this.follow = false;
    this.clampView();
    this.schedule(true);
    this.syncView();
  }

  pan(dt) {
    this.t0 += dt;
    this.follow = false;
    this.clampView();
    this.schedule(true);
    this.syncView();
  }

  clampView() {
    const span = this.plotWidth() * this.nsPerPx;
    const ext = this.extent();
    this.t0 = Math.max(-span * 0.5, Math.min(this.t0, ext - span * 0.5));
  }

  timeAt(mx) {
    return this.t0 + (mx - GUTTER) * this.nsPerPx;
  }

  showTip(e, mx, my) {
    if (!e) {
      this.tip.hidden = true;
      this.canvas.style.cursor = "";
      return;
    }
    this.canvas.style.cursor = "pointer";
    const rows = [
      ["op", e.op + (e.callee ? ` ${e.callee}` : "") + (e.blocks ? ` (grid of ${e.blocks})` : "")],
      ["rank", e.rank < 0 ? "host" : String(e.rank) + (e.block ? ` block ${e.block}` : "")],
      ["line", String(e.line)],
    ];
    if (e.peer !== undefined && e.peer !== null) rows.push(["peer", String(e.peer)]);
    if (e.bytes) rows.push(["bytes", fmtBytes(e.bytes)]);
    if (e.cell) rows.push(["cell", e.cell]);
    if (e.before !== undefined && e.before !== null) rows.push(["value", `${e.before} → ${e.after}`]);
    if (e.value !== undefined && e.value !== null) rows.push(["satisfied at", String(e.value)]);
    if (e.released_by) rows.push(["released by", `rank ${e.released_by.rank} (event ${e.released_by.seq})`]);
    rows.push(["time", `${e.start_ns} – ${e.end_ns} ns (${fmtNs(e.end_ns - e.start_ns)})`]);
    this.tip.replaceChildren(el("dl", null, rows.map(([k, v]) => [el("dt", null, k), el("dd", null, v)])));
    this.tip.hidden = false;
    // The tip is position: fixed, so the canvas's clipping box cannot cut it.
    const r = this.canvas.getBoundingClientRect();
    const cx = r.left + mx;
    const cy = r.top + my;
    const tw = this.tip.offsetWidth;
    const th = this.tip.offsetHeight;
    const left = cx + 14 + tw > window.innerWidth ? cx - 14 - tw : cx + 14;
    const top = cy + 16 + th > window.innerHeight ? cy - 12 - th : cy + 16;
    this.tip.style.left = Math.max(4, left) + "px";
    this.tip.style.top = Math.max(4, top) + "px";
  }
}

function laneLabel(l) {
  if (l.rank < 0) return "host";
  return l.block ? `  r${l.rank} b${l.block}` : `rank ${l.rank}`;
}

function strokeRects(ctx, list, color, width) {
  if (!list.length) return;
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.beginPath();
  for (let j = 0; j < list.length; j += 4) ctx.rect(list[j], list[j + 1], list[j + 2], list[j + 3]);
  ctx.stroke();
  ctx.lineWidth = 1;
}

function arrowHead(ctx, x1, y1, x2, y2, size) {
  const a = Math.atan2(y2 - y1, x2 - x1);
  ctx.beginPath();
  ctx.moveTo(x2, y2);
  ctx.lineTo(x2 - size * Math.cos(a - 0.4), y2 - size * Math.sin(a - 0.4));
  ctx.lineTo(x2 - size * Math.cos(a + 0.4), y2 - size * Math.sin(a + 0.4));
  ctx.closePath();
  ctx.fill();
}

function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

// The search, selection, measure and fold methods live in lanes-tools.js.
Object.assign(Lanes.prototype, toolMethods);
