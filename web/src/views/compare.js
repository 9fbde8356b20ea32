// The compare view: the verdict of running two kernels on the same inputs,
// both timelines stacked on one time axis (each side's own run, replayed
// over the websocket), per-output differences, their stats side by side and
// the lowered-IR diff.

import { el, clear, fmtNum, fmtNs, fmtBytes, plural } from "../util.js";
import { openRun } from "../api.js";
import { Lanes, linkAxis } from "../lanes.js";

export class Compare {
  constructor() {
    this.root = el("div", { class: "compare", "data-test": "compare" });
    this.socks = [];
    this.reset();
  }

  /** close stops the replays of a previous comparison. */
  close() {
    for (const s of this.socks) s.close();
    this.socks = [];
  }

  reset(text) {
    this.close();
    clear(this.root).append(el("p", { class: "empty" }, text || "No comparison yet: press Compare to run both kernels on the same inputs and compare their outputs, stats and lowered IR."));
  }

  /** render shows a POST /api/compare answer; labels names the sides. */
  render(res, labels) {
    this.close();
    clear(this.root);
    const eq = res.verdict === "equal";
    this.root.append(
      el("div", { class: `verdict ${eq ? "ok" : "bad"}`, "data-test": "verdict", "data-verdict": res.verdict },
        el("strong", null, eq ? "✓ Equal outputs" : "✗ Different outputs"),
        ` at ${res.ranks} ranks: `, labels.a, " vs ", labels.b,
      ),
    );
    if (res.run_a && res.run_b) this.root.append(timelines(res, labels, this.socks));
    const outs = res.outputs || [];
    if (outs.length) {
      this.root.append(el("h4", null, "Outputs"),
        el("table", { class: "cmp-table" },
          el("thead", null, el("tr", null, ["output (A / B)", "verdict", "max |diff|", "first difference", "note"].map((h) => el("th", { scope: "col" }, h)))),
          el("tbody", null, outs.map((o) => el("tr", { "data-equal": String(o.equal) },
            el("td", { class: "mono" }, o.name_b && o.name_b !== o.name ? `${o.name} / ${o.name_b}` : o.name),
            el("td", null, el("span", { class: o.equal ? "pass" : "fail" }, o.equal ? "✓ equal" : "✗ differs")),
            el("td", { class: "num" }, fmtNum(o.max_abs_diff || 0)),
            el("td", { class: "mono" }, !o.equal && o.first_diff && o.first_diff.length && o.first_diff.every((i) => i >= 0) ? `[${o.first_diff.join(", ")}]` : "–"),
            el("td", null, o.note || ""),
          ))),
        ));
    }
    const sa = (res.a && res.a.stats) || {};
    const sb = (res.b && res.b.stats) || {};
    const row = (label, key, fmt) => {
      const a = sa[key] || 0;
      const b = sb[key] || 0;
      const d = b - a;
      return el("tr", null, el("th", { scope: "row" }, label), el("td", { class: "num" }, fmt(a)), el("td", { class: "num" }, fmt(b)),
        el("td", { class: "num muted" }, d === 0 ? "same" : `${d > 0 ? "+" : "−"}${fmt(Math.abs(d))}${a ? ` (${d > 0 ? "+" : "−"}${Math.round((Math.abs(d) / a) * 100)}%)` : ""}`));
    };
    const n = (v) => String(v);
    this.root.append(el("h4", null, "Stats"),
      el("table", { class: "cmp-table stats", "data-test": "compare-stats" },
        el("thead", null, el("tr", null, el("th", { scope: "col" }, ""), el("th", { scope: "col" }, "A"), el("th", { scope: "col" }, "B"), el("th", { scope: "col" }, "B − A"))),
        el("tbody", null,
          el("tr", null, el("th", { scope: "row" }, "status"), el("td", null, (res.a && res.a.status) || ""), el("td", null, (res.b && res.b.status) || ""), el("td", null, "")),
          row("events", "events", n), row("notifies", "notifies", n), row("waits", "waits", n),
          row("remote bytes", "remote_bytes", fmtBytes), row("local bytes", "local_bytes", fmtBytes),
          row("simulated time", "sim_time_ns", fmtNs), row("statements", "steps", n),
        ),
      ));
    this.root.append(el("h4", null, "Lowered IR: A → B"), diffPanel(res.kernel_diff));
    if (res.ir_a || res.ir_b) {
      this.root.append(el("details", { class: "ir-sides" }, el("summary", null, "Both lowered IRs in full"),
        el("div", { class: "ir-pair" },
          el("div", null, el("h5", null, "A"), el("pre", { class: "ir" }, res.ir_a || "")),
          el("div", null, el("h5", null, "B"), el("pre", { class: "ir" }, res.ir_b || "")),
        )));
    }
  }
}

/**
 * replay feeds a stored (or still running) run's events into lanes over
 * /ws/runs/{id}; onDone(done message) runs at its end.
 */
function replay(lanes, id, onDone) {
  lanes.reset(0, "Loading the run's events…");
  return openRun(
    id,
    (m) => {
      if (m.type === "status" && m.ranks) lanes.setRanks(m.ranks);
      else if (m.type === "event") lanes.add(m.event);
      else if (m.type === "deadlock") lanes.setDeadlock(m.deadlock);
      else if (m.type === "done") {
        if (!lanes.count) lanes.setEmpty(m.status === "compile_error" ? "No events: this side did not compile." : "This run produced no events.");
        onDone(m);
      }
    },
    (sawDone, reason) => {
      if (!sawDone && !lanes.count) lanes.setEmpty(`The run's events could not be loaded${reason ? `: ${reason}` : ""}.`);
    },
  );
}

/**
 * timelines stacks both sides' swimlanes, A above B, on one time axis, each
 * labelled with its kernel and simulated time; the replays' sockets go into
 * socks.
 */
function timelines(res, labels, socks) {
  const a = new Lanes({ test: "compare-lanes-a", help: false });
  const b = new Lanes({ test: "compare-lanes-b", legend: false });
  linkAxis(a, b);
  const side = (key, name, lanes, id, stats) => {
    const info = el("span", { class: "muted" });
    const show = (s, status) => {
      info.textContent = ` · ${fmtNs((s && s.sim_time_ns) || 0)} simulated${s && s.events ? ` · ${plural(s.events, "event")}` : ""}${status && status !== "ok" ? ` · ${status.replace("_", " ")}` : ""}`;
    };
    show(stats, "");
    socks.push(replay(lanes, id, (m) => show(m.stats || stats, m.status)));
    return el("div", { class: "cmp-side" },
      el("h5", null, `${key} · `, el("span", { class: "mono" }, name), info,
        el("a", { class: "cmp-share", href: `/r/${encodeURIComponent(id)}`, title: "this side's run on its own share page" }, "share")),
      lanes.root);
  };
  return el("section", { class: "cmp-lanes", "aria-label": "Both timelines on one time axis" },
    el("h4", null, "Timelines on one time axis"),
    side("A", labels.a, a, res.run_a, res.a && res.a.stats),
    side("B", labels.b, b, res.run_b, res.b && res.b.stats));
}

/** diffView colours a unified diff by its +, − and @@ lines. */
export function diffView(text) {
  const pre = el("pre", { class: "diff", "data-test": "ir-diff" });
  if (!text) {
    pre.append(el("span", { class: "muted" }, "The two lowered kernels are identical."));
    return pre;
  }
  for (const line of text.split("\n")) {
    const c = line.startsWith("+++") || line.startsWith("---") ? "d-file" : line.startsWith("+") ? "d-add" : line.startsWith("-") ? "d-del" : line.startsWith("@@") ? "d-hunk" : "";
    pre.append(el("span", { class: `d-line ${c}` }, line || " "));
  }
  return pre;
}

/**
 * diffPanel shows the kernel diff side by side (the default, as Compiler
 * Explorer's diff view) or unified, with a toggle.
 */
function diffPanel(text) {
  const uni = diffView(text);
  if (!text) return uni;
  const sbs = sideBySide(text);
  uni.hidden = true;
  const btn = el("button", { type: "button", class: "btn small", "data-test": "diff-mode" }, "Unified");
  btn.addEventListener("click", () => {
    uni.hidden = !uni.hidden;
    sbs.hidden = !sbs.hidden;
    btn.textContent = uni.hidden ? "Unified" : "Side by side";
  });
  return el("div", { class: "diff-panel" }, el("div", { class: "diff-bar" }, btn), sbs, uni);
}

/**
 * sideBySide lays a unified diff out in two aligned columns: a context
 * line on both sides of one row, a run of removals beside the run of
 * additions that replaced it (row by row), the rest against a blank.
 */
export function sideBySide(text) {
  const rows = [];
  let a = 0;
  let b = 0;
  let dels = [];
  let adds = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push([dels[i] || null, adds[i] || null, dels[i] && adds[i] ? "chg" : dels[i] ? "del" : "add"]);
    dels = [];
    adds = [];
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("---") || line.startsWith("+++")) continue;
    const h = line.match(/^@@ -(\d+)(?:,\d+)? \+(\d+)/);
    if (h) {
      flush();
      a = +h[1];
      b = +h[2];
      rows.push([null, null, "hunk", line]);
      continue;
    }
    if (line.startsWith("-")) dels.push([a++, line.slice(1)]);
    else if (line.startsWith("+")) adds.push([b++, line.slice(1)]);
    else {
      flush();
      rows.push([[a++, line.slice(1)], [b++, line.slice(1)], "same"]);
    }
  }
  flush();
  const cell = (x, cls) => x ? [el("td", { class: "sbs-no" }, String(x[0])), el("td", { class: `sbs-text ${cls}` }, x[1] || " ")] : [el("td", { class: "sbs-no" }), el("td", { class: "sbs-text sbs-blank" })];
  return el("table", { class: "sbs", "data-test": "ir-diff-sbs" },
    el("colgroup", null, el("col", { class: "sbs-nc" }), el("col"), el("col", { class: "sbs-nc" }), el("col")),
    el("tbody", null, rows.map(([l, r, kind, text]) => kind === "hunk"
      ? el("tr", { class: "sbs-hunk" }, el("td", { colspan: "4" }, text))
      : el("tr", { "data-kind": kind }, cell(l, kind === "same" ? "" : "d-del"), cell(r, kind === "same" ? "" : "d-add")))));
}
