// The sweep view: nccl-tests' table and the plot people make of it. One
// line per variant of bus (or algorithm) bandwidth against payload size on
// a log axis, at one rank count; the crossover where the fastest variant
// changes marked; the numbers beneath, the same as `workbench sweep`; a CSV
// download with `workbench sweep --csv`'s columns.

import { el, clear, fmtBytes } from "../util.js";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#2563eb", "#e8892b", "#2a9d8f", "#8e5cc2", "#c1121f"];
const W = 640;
const H = 300;
const M = { l: 52, r: 16, t: 14, b: 40 };

function svg(tag, attrs, ...kids) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
  for (const k of kids) n.append(k);
  return n;
}

export class SweepView {
  constructor() {
    this.root = el("div", { class: "sweepview", "data-test": "sweep" }, el("p", { class: "empty" }, "Press Sweep to run every variant over the rank counts and sizes, as workbench sweep does."));
    this.metric = "busbw_gbs";
  }

  show(res) {
    this.res = res;
    const ranks = [...new Set(res.rows.map((r) => r.ranks))].sort((a, b) => a - b);
    if (!ranks.includes(this.ranks)) this.ranks = ranks[ranks.length - 1];
    const root = clear(this.root);
    root.dataset.variants = String(res.variants.length);
    const rankSel = el("select", { "data-test": "sweep-ranks", "aria-label": "Rank count", onchange: () => ((this.ranks = +rankSel.value), this.show(res)) },
      ranks.map((p) => el("option", { value: String(p) }, `${p} ranks`)));
    rankSel.value = String(this.ranks);
    const metSel = el("select", { "data-test": "sweep-metric", "aria-label": "Bandwidth", onchange: () => ((this.metric = metSel.value), this.show(res)) },
      el("option", { value: "busbw_gbs" }, "busbw (GB/s)"), el("option", { value: "algbw_gbs" }, "algbw (GB/s)"));
    metSel.value = this.metric;
    const csv = el("a", { class: "btn small", "data-test": "sweep-csv", download: "sweep.csv", href: URL.createObjectURL(new Blob([toCSV(res)], { type: "text/csv" })) }, "Download CSV");
    const line = (res.crossover_lines || {})[this.ranks] || "";
    root.append(
      el("div", { class: "sweep-bar" }, rankSel, metSel, csv, res.done ? null : el("span", { class: "fail" }, " the time limit cut the sweep short")),
      el("p", { class: "sweep-cross", "data-test": "sweep-crossover" }, line),
      this.chart(res),
      this.table(res),
    );
  }

  chart(res) {
    const rows = res.rows.filter((r) => r.ranks === this.ranks && !r.status);
    const sizes = [...new Set(res.rows.filter((r) => r.ranks === this.ranks).map((r) => r.bytes))].sort((a, b) => a - b);
    const lx = (b) => Math.log2(b);
    const x0 = lx(sizes[0] || 1);
    const x1 = lx(sizes[sizes.length - 1] || 2);
    const ymax = Math.max(1e-9, ...rows.map((r) => r[this.metric])) * 1.1;
    const X = (b) => M.l + ((lx(b) - x0) / Math.max(1, x1 - x0)) * (W - M.l - M.r);
    const Y = (v) => H - M.b - (v / ymax) * (H - M.t - M.b);
    const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "sweep-chart", role: "img", "aria-label": `${this.metric} against size at ${this.ranks} ranks`, "data-test": "sweep-chart" });
    g.append(svg("line", { x1: M.l, y1: H - M.b, x2: W - M.r, y2: H - M.b, stroke: "#9aa3b2" }), svg("line", { x1: M.l, y1: M.t, x2: M.l, y2: H - M.b, stroke: "#9aa3b2" }));
    sizes.forEach((b, i) => {
      if (i % 2 && sizes.length > 10) return;
      g.append(svg("text", { x: X(b), y: H - M.b + 14, "text-anchor": "middle", "font-size": 10, fill: "#5b6270" }, fmtBytes(b).replace(".0 ", " ")));
    });
    for (let k = 0; k <= 4; k++) {
      const v = (ymax / 1.1) * (k / 4);
      g.append(svg("text", { x: M.l - 6, y: Y(v) + 3, "text-anchor": "end", "font-size": 10, fill: "#5b6270" }, v.toFixed(v < 10 ? 1 : 0)),
        svg("line", { x1: M.l, y1: Y(v), x2: W - M.r, y2: Y(v), stroke: "#eef0f3" }));
    }
    g.append(svg("text", { x: (W + M.l) / 2, y: H - 6, "text-anchor": "middle", "font-size": 11, fill: "#2b303b" }, "size (bytes, log scale)"),
      svg("text", { x: 12, y: M.t + 4, "font-size": 11, fill: "#2b303b" }, this.metric === "busbw_gbs" ? "busbw GB/s" : "algbw GB/s"));
    res.variants.forEach((v, i) => {
      const pts = rows.filter((r) => r.variant === v.name).sort((a, b) => a.bytes - b.bytes);
      if (!pts.length) return;
      const color = COLORS[i % COLORS.length];
      g.append(svg("polyline", { points: pts.map((r) => `${X(r.bytes).toFixed(1)},${Y(r[this.metric]).toFixed(1)}`).join(" "), fill: "none", stroke: color, "stroke-width": 2, "data-test": "sweep-line", "data-variant": v.name }));
      for (const r of pts) g.append(svg("circle", { cx: X(r.bytes), cy: Y(r[this.metric]), r: 2.5, fill: color }));
      g.append(svg("text", { x: W - M.r - 4, y: M.t + 14 + 14 * i, "text-anchor": "end", "font-size": 11, fill: color, "font-weight": 600 }, v.name));
    });
    for (const c of res.crossovers.filter((c) => c.ranks === this.ranks)) {
      const x = X(c.near_bytes);
      g.append(svg("line", { x1: x, y1: M.t, x2: x, y2: H - M.b, stroke: "#111827", "stroke-dasharray": "4 3", "data-test": "sweep-cross-mark", "data-near": c.near_bytes }),
        svg("text", { x: x + 4, y: M.t + 10, "font-size": 10, fill: "#111827" }, `crossover ≈ ${fmtBytes(c.near_bytes)}: ${c.below} → ${c.above}`));
    }
    return g;
  }

  table(res) {
    const rows = res.rows.filter((r) => r.ranks === this.ranks);
    return el("table", { class: "sweep-table", "data-test": "sweep-table" },
      el("thead", null, el("tr", null, ["variant", "size (B)", "count", "time (µs)", "algbw (GB/s)", "busbw (GB/s)", "link_eff"].map((h) => el("th", null, h)))),
      el("tbody", null, rows.map((r) => el("tr", { "data-variant": r.variant, "data-bytes": String(r.bytes) },
        el("td", null, r.variant), el("td", null, String(r.bytes)), el("td", null, String(r.count)),
        r.status
          ? el("td", { colspan: "4", class: "fail" }, `${r.status}: ${r.error}`)
          : [el("td", null, (r.sim_time_ns / 1000).toFixed(3)), el("td", null, r.algbw_gbs.toFixed(2)), el("td", null, r.busbw_gbs.toFixed(2)), el("td", null, r.link_eff.toFixed(3))]))));
  }
}

// toCSV writes the rows with `workbench sweep --csv`'s columns.
function toCSV(res) {
  const q = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = ["variant,ranks,bytes,count,sim_time_ns,algbw_gbs,busbw_gbs,link_eff,status,error"];
  for (const r of res.rows) lines.push([r.variant, r.ranks, r.bytes, r.count, r.sim_time_ns, r.algbw_gbs, r.busbw_gbs, r.link_eff, r.status || "", q(r.error || "")].join(","));
  return lines.join("\n") + "\n";
}
