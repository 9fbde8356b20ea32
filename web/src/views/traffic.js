// The traffic view: a rank × rank heatmap of the bytes the run moved
// between ranks. put and remote_store move bytes from the rank to its
// peer; get and remote_load move them from the peer to the rank. A time
// scrubber shows the bytes moved up to a simulated moment (each transfer
// counts at its end); a rank's transfers to its own window are listed
// apart, since they cross no link.

import { el, clear, fmtBytes, fmtNs } from "../util.js";

export class Traffic {
  constructor() {
    this.body = el("div", { class: "traffic-body" });
    this.scrub = el("input", { type: "range", min: "0", max: "1000", value: "1000", step: "1", "data-test": "traffic-time", "aria-label": "Simulated time: bytes moved up to it" });
    this.scrubText = el("span", { class: "traffic-at", "data-test": "traffic-at" });
    this.scrub.addEventListener("input", () => {
      this.dirty = true;
      this.render();
    });
    this.scrubBar = el("div", { class: "traffic-scrub", hidden: true }, el("label", null, "up to ", this.scrub), this.scrubText);
    this.root = el("div", { class: "traffic", "data-test": "traffic" }, this.scrubBar, this.body);
    this.reset(0);
  }

  reset(ranks) {
    this.ranks = ranks || 0;
    this.xfers = [];
    this.selfBytes = new Map();
    this.endNs = 0;
    this.total = 0;
    this.maxRank = -1;
    this.dirty = true;
    clear(this.body).append(el("p", { class: "empty" }, "No traffic yet. After a run, this shows how many bytes each rank sent to each other rank."));
  }

  setRanks(p) {
    this.ranks = p || 0;
  }

  add(ev) {
    if (!ev.bytes || ev.peer === undefined || ev.peer === null || ev.rank < 0) return;
    let src;
    let dst;
    if (/\.put$|remote_store$/.test(ev.op)) [src, dst] = [ev.rank, ev.peer];
    else if (/\.get$|remote_load$/.test(ev.op)) [src, dst] = [ev.peer, ev.rank];
    else return;
    this.endNs = Math.max(this.endNs, ev.end_ns || 0);
    // A put to oneself moves nothing between ranks, and the run's summary
    // leaves it out of the remote bytes: so does the heatmap; it is listed
    // apart, as self-traffic.
    this.xfers.push({ s: src, d: dst, b: ev.bytes, t: ev.end_ns || 0 });
    if (src === dst) return;
    this.total += ev.bytes;
    this.maxRank = Math.max(this.maxRank, src, dst);
    this.dirty = true;
  }

  /** render draws the table; called when the tab is shown or the run ends. */
  render() {
    if (!this.dirty) return;
    this.dirty = false;
    const n = Math.max(this.ranks, this.maxRank + 1);
    clear(this.body);
    this.scrubBar.hidden = !this.xfers.length;
    const full = +this.scrub.value >= 1000;
    const at = full ? Infinity : (this.endNs * +this.scrub.value) / 1000;
    this.m = new Map();
    const self = new Map();
    let total = 0;
    for (const x of this.xfers) {
      if (x.t > at) continue;
      if (x.s === x.d) {
        self.set(x.s, (self.get(x.s) || 0) + x.b);
        continue;
      }
      const k = x.s * 65536 + x.d;
      this.m.set(k, (this.m.get(k) || 0) + x.b);
      total += x.b;
    }
    this.scrubText.textContent = full ? `the whole run (${fmtNs(this.endNs)})` : `${fmtNs(at)} of ${fmtNs(this.endNs)}`;
    this.root.dataset.shownBytes = String(total);
    this.root.dataset.selfBytes = String([...self.values()].reduce((a, b) => a + b, 0));
    if (!this.total) {
      this.body.append(el("p", { class: "empty" }, n ? "This run moved no bytes between ranks (no put, get, remote_load or remote_store with a peer)." : "No traffic yet. After a run, this shows how many bytes each rank sent to each other rank."));
      return;
    }
    let max = 0;
    const rowSum = new Array(n).fill(0);
    const colSum = new Array(n).fill(0);
    for (const [k, v] of this.m) {
      const s = Math.floor(k / 65536);
      const d = k % 65536;
      rowSum[s] += v;
      colSum[d] += v;
      if (v > max) max = v;
    }
    const small = n > 16;
    const head = el("tr", null, el("th", { scope: "col", class: "corner" }, "from ↓ to →"));
    for (let d = 0; d < n; d++) head.append(el("th", { scope: "col" }, String(d)));
    head.append(el("th", { scope: "col" }, "sent"));
    const rows = [];
    for (let s = 0; s < n; s++) {
      const tr = el("tr", null, el("th", { scope: "row" }, String(s)));
      for (let d = 0; d < n; d++) {
        const v = this.m.get(s * 65536 + d) || 0;
        const a = v ? 0.12 + 0.88 * (v / max) : 0;
        tr.append(el("td", {
          class: v ? "hot" : "cold",
          style: v ? `background:rgba(224,122,31,${a.toFixed(3)});color:${a > 0.6 ? "#fff" : "#1f2430"}` : null,
          title: `rank ${s} → rank ${d}: ${fmtBytes(v)}`,
        }, small ? "" : v ? fmtBytes(v) : "·"));
      }
      tr.append(el("td", { class: "sum" }, fmtBytes(rowSum[s])));
      rows.push(tr);
    }
    const foot = el("tr", null, el("th", { scope: "row" }, "received"));
    for (let d = 0; d < n; d++) foot.append(el("td", { class: "sum", title: `rank ${d} received ${fmtBytes(colSum[d])}` }, small ? "" : fmtBytes(colSum[d])));
    foot.append(el("td", { class: "sum total" }, fmtBytes(total)));
    const selfNote = self.size
      ? el("p", { class: "traffic-self", "data-test": "traffic-self" }, "To its own window (no link crossed): ", [...self].sort((a, b) => a[0] - b[0]).map(([r, b]) => `rank ${r} ${fmtBytes(b)}`).join(", "), ".")
      : el("p", { class: "traffic-self muted", "data-test": "traffic-self" }, "No rank moved bytes to its own window" + (full ? "." : " by then."));
    this.body.append(
      el("p", { class: "traffic-total" }, `${fmtBytes(total)} moved between ranks${full ? "" : ` up to ${fmtNs(at)}`}. Rows send, columns receive: a put or remote_store sends from the rank that issues it, a get or remote_load from the peer that owns the data.`),
      el("div", { class: "legend heat-legend" }, "0 B ", el("i", { class: "heat-scale" }), ` ${fmtBytes(max)} per pair`),
      el("div", { class: "heat-wrap" }, el("table", { class: `heat${small ? " small" : ""}` }, el("thead", null, head), el("tbody", null, rows, foot))),
      selfNote,
    );
  }
}
