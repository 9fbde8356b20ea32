package e2e

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// lanesJS is the Lanes view of a cell, read from its element (lanes.js
// leaves itself there for the tests and the console).
func lanesJS(c cell) string { return c.q("[data-test=lanes]") + ".__lanes" }

// searchLanes types q into the lanes' search box (replacing what is there).
func searchLanes(c cell, q string) {
	c.tb.t.Helper()
	box := c.q("[data-test=lane-search]")
	eval[bool](c.tb, "clear the search", fmt.Sprintf(`(%s.value = '', %s.focus(), true)`, box, box))
	c.tb.do("type the search "+q, chromedp.SendKeys(chromedp.JSPath(box), q))
}

// TestLanesSelectMeasureSearch runs step 8's mesh all-reduce at 4 ranks and
// uses the lanes as a Perfetto user would: search "wait" and step to the
// first match, whose details panel names the notify that released it and
// whose flow chain is highlighted; select the same slice with a real click;
// search its line and step through the matches; drag on the time axis to
// measure a range; W zooms.
func TestLanesSelectMeasureSearch(t *testing.T) {
	s, tb := newSession(t)
	c := runMesh(t, s, tb, 4, "")
	c.showView("lanes")
	L := lanesJS(c)
	root := c.q("[data-test=lanes]")

	searchLanes(c, "wait")
	tb.do("next match", chromedp.Click(chromedp.JSPath(c.q("[data-test=lane-search-next]"))))
	waitFor[bool](tb, "a selected wait", root+".dataset.selected?.includes('wait')", root+".dataset.selected")
	type sel struct {
		Op, Cell             string
		Rank, Line, RelRank  int
		RelOp                string
		RelLine, Chain, Hops int
		X, Y                 float64
	}
	got := eval[sel](tb, "read the selection", fmt.Sprintf(`(() => {
		const L = %s, e = L.selected, n = L.byKey.get(e.released_by.rank + ':' + e.released_by.seq);
		const r = L.canvas.getBoundingClientRect(), h = L.laneHeight();
		return {Op: e.op, Cell: n.cell || '', Rank: e.rank, Line: e.line, RelRank: n.rank, RelOp: n.op, RelLine: n.line,
			Chain: +L.root.dataset.chain, Hops: L.chain.arrows.length,
			X: r.left + 72 + ((e.start_ns + e.end_ns) / 2 - L.t0) / L.nsPerPx, Y: r.top + e._lane.y + h / 2};
	})()`, L))
	details := eval[string](tb, "read the details", c.q("[data-test=lane-details]")+".innerText")
	released := eval[string](tb, "read released-by", c.q("[data-test=released-by]")+".textContent")
	t.Logf("selected %s on rank %d line %d; released by: %s; chain %d slices, %d arrows", got.Op, got.Rank, got.Line, released, got.Chain, got.Hops)
	if !strings.Contains(released, got.RelOp) || !strings.Contains(released, fmt.Sprintf("rank %d", got.RelRank)) || !strings.Contains(released, fmt.Sprintf("line %d", got.RelLine)) {
		t.Errorf("released-by says %q, want the releasing %s on rank %d line %d", released, got.RelOp, got.RelRank, got.RelLine)
	}
	if !strings.Contains(got.RelOp, "notify") {
		t.Errorf("the first wait was released by %q, want a notify", got.RelOp)
	}
	for _, w := range []string{"duration", "start", fmt.Sprintf("line\n%d", got.Line)} {
		if !strings.Contains(details, w) {
			t.Errorf("details panel lacks %q: %q", w, details)
		}
	}
	if got.Chain < 2 || got.Hops < 1 || !strings.Contains(eval[string](tb, "chain text", c.q("[data-test=chain]")+".textContent"), "Flow chain") {
		t.Errorf("flow chain of the wait: %d slices, %d arrows; want the wait and its notify at least", got.Chain, got.Hops)
	}
	c.scrollTo()
	tb.elementShot(shotDir(t), "lanes-details.png", root)

	// The same slice with the mouse: Escape clears, a click selects it again.
	tb.do("focus the canvas", chromedp.Focus(chromedp.JSPath(L+".canvas")))
	tb.do("escape", chromedp.KeyEvent(kb.Escape))
	waitFor[bool](tb, "selection cleared", "!"+root+".dataset.selected", root+".dataset.selected")
	pos := eval[sel](tb, "slice position", fmt.Sprintf(`(() => { const L = %s, r = L.canvas.getBoundingClientRect(), e = L.byKey.get(%d + ':' + %s);
		return {X: r.left + 72 + ((e.start_ns + e.end_ns) / 2 - L.t0) / L.nsPerPx, Y: r.top + e._lane.y + L.laneHeight() / 2}; })()`,
		L, got.Rank, fmt.Sprintf("(%s.matches[0].seq)", L)))
	tb.do("click the slice", chromedp.MouseClickXY(pos.X, pos.Y))
	clicked := waitFor[string](tb, "a clicked selection", root+".dataset.selected || ''", root+".outerHTML.slice(0, 200)")
	if !strings.Contains(clicked, "wait") {
		t.Errorf("clicking the wait at (%.0f, %.0f) selected %q", pos.X, pos.Y, clicked)
	}

	// Search the wait's line: every slice of that line, counted from the
	// events the lanes hold, is found, and next steps through them.
	want := eval[int](tb, "count the line's events", fmt.Sprintf(`%s.order.reduce((n, l) => n + l.evs.filter(e => e.line === %d).length, 0)`, L, got.Line))
	searchLanes(c, fmt.Sprintf("line %d", got.Line))
	n := waitFor[int](tb, "matches of the line", root+".dataset.matches|0", root+".dataset.matches")
	if n != want || n == 0 {
		t.Errorf("search line %d found %d slices, the lanes hold %d of that line", got.Line, n, want)
	}
	for range 2 {
		tb.do("next match", chromedp.Click(chromedp.JSPath(c.q("[data-test=lane-search-next]"))))
	}
	count := eval[string](tb, "match counter", c.q("[data-test=lane-search-count]")+".textContent")
	if count != fmt.Sprintf("2 of %d", n) {
		t.Errorf("after next twice the counter says %q, want \"2 of %d\"", count, n)
	}
	if l := eval[int](tb, "selected line", L+".selected.line"); l != got.Line {
		t.Errorf("the selected match is on line %d, want %d", l, got.Line)
	}
	tb.do("previous match", chromedp.Click(chromedp.JSPath(c.q("[data-test=lane-search-prev]"))))
	if count := eval[string](tb, "match counter", c.q("[data-test=lane-search-count]")+".textContent"); count != fmt.Sprintf("1 of %d", n) {
		t.Errorf("after previous the counter says %q, want \"1 of %d\"", count, n)
	}

	// Measure: drag 300 px along the time axis; the range is 300 px of time.
	type scale struct{ Left, Top, NsPerPx float64 }
	sc := eval[scale](tb, "scale", fmt.Sprintf(`(() => { const L = %s, r = L.canvas.getBoundingClientRect(); return {Left: r.left, Top: r.top, NsPerPx: L.nsPerPx}; })()`, L))
	x0, y := sc.Left+72+100, sc.Top+10
	tb.do("drag a range on the axis",
		chromedp.MouseEvent(chromedp.MousePressed, x0, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, x0+150, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, x0+300, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, x0+300, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	ns := waitFor[int](tb, "a measured range", c.q("[data-test=lane-measure]")+".dataset.ns|0", c.q("[data-test=lane-measure]")+".textContent")
	text := eval[string](tb, "measure text", c.q("[data-test=lane-measure]")+".textContent")
	t.Logf("measured: %s", text)
	if wantNs := 300 * sc.NsPerPx; math.Abs(float64(ns)-wantNs) > 0.02*wantNs+1 {
		t.Errorf("measured %d ns over 300 px at %.3f ns/px, want %.0f", ns, sc.NsPerPx, wantNs)
	}
	if !strings.Contains(text, "Range") || !strings.Contains(text, "event") {
		t.Errorf("measure says %q, want the range's duration and its events", text)
	}

	// W zooms in, S out, as in Perfetto.
	before := eval[float64](tb, "scale", L+".nsPerPx")
	tb.do("focus the canvas", chromedp.Focus(chromedp.JSPath(L+".canvas")))
	tb.do("press w", chromedp.KeyEvent("w"))
	if after := eval[float64](tb, "scale", L+".nsPerPx"); !(after < before) {
		t.Errorf("W: %.3f ns/px before, %.3f after; want zoomed in", before, after)
	}
}

// TestLanesManyCoresArrows runs step 17's many-core kernel at 8 ranks (3
// blocks a rank) and checks the arrow toggle: "Selection's arrows" draws
// none without a selection and exactly the selection's chain with one, far
// fewer than all of them; folding blocks hides the sub-lanes.
func TestLanesManyCoresArrows(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/17")
	c := findCell(tb, 17, "run", "17_many_cores")
	waitFor[bool](tb, "the run cell's editor", "!!"+c.q(".cm-editor"), c.state())
	c.pasteKernel(s, "17_many_cores")
	c.setRanks(8)
	if st := c.run(); st != "done" {
		t.Fatalf("step 17 at 8 ranks: data-state=%s; %s", st, eval[string](tb, "state", c.state()))
	}
	c.showView("lanes")
	root := c.q("[data-test=lanes]")
	waitFor[bool](tb, "lanes with arrows", root+".dataset.arrows > 0 && +"+root+".dataset.arrowsDrawn > 0", root+".outerHTML.slice(0, 300)")
	all := c.intAttr("[data-test=lanes]", "data-arrows-drawn")
	rows := c.intAttr("[data-test=lanes]", "data-rows")
	c.scrollTo()
	tb.elementShot(shotDir(t), "step17-all-arrows.png", root)

	tb.do("arrows: selection", chromedp.SetValue(chromedp.JSPath(c.q("[data-test=lane-arrows]")), "selection"))
	waitFor[bool](tb, "no arrows without a selection", root+".dataset.arrowsDrawn === '0'", root+".dataset.arrowsDrawn")
	searchLanes(c, "wait")
	tb.do("next match", chromedp.Click(chromedp.JSPath(c.q("[data-test=lane-search-next]"))))
	waitFor[bool](tb, "a selected wait", root+".dataset.selected?.includes('wait')", root+".dataset.selected")
	drawn := waitFor[int](tb, "the selection's arrows", root+".dataset.arrowsDrawn|0", root+".dataset.arrowsDrawn")
	hops := eval[int](tb, "chain arrows", lanesJS(c)+".chain.arrows.length")
	t.Logf("step 17 at 8 ranks: %d lanes, %d arrows drawn with all, %d with the selection's (chain of %d arrows)", rows, all, drawn, hops)
	if drawn > hops || drawn == 0 {
		t.Errorf("selection mode drew %d arrows, want the selection's %d at most (and some)", drawn, hops)
	}
	if drawn >= all {
		t.Errorf("selection mode drew %d arrows, all mode %d: no fewer", drawn, all)
	}
	tb.elementShot(shotDir(t), "step17-selection.png", root)

	// The gutter: clicking rank 5's name pins it on top; clicking the ▾
	// beside rank 2 folds its two block lanes.
	type pt struct{ X, Y float64 }
	L := lanesJS(c)
	gutter := func(rank int, x float64) pt {
		return eval[pt](tb, "gutter point", fmt.Sprintf(`(() => { const L = %s; L.canvas.scrollIntoView({block: 'center'});
			const r = L.canvas.getBoundingClientRect(), l = L.rows.find(l => l.rank === %d && !l.block);
			return {X: r.left + %g, Y: r.top + l.y + L.laneHeight() / 2}; })()`, L, rank, x))
	}
	p := gutter(5, 40)
	tb.do("pin rank 5", chromedp.MouseClickXY(p.X, p.Y))
	if first := waitFor[string](tb, "rank 5 pinned on top", L+`.rows[0].rank === 5 ? 'rank 5' : ''`, L+".rows[0].rank"); first != "rank 5" {
		t.Errorf("the top lane is %s after pinning rank 5", first)
	}
	p = gutter(2, 5)
	tb.do("fold rank 2", chromedp.MouseClickXY(p.X, p.Y))
	waitFor[bool](tb, "rank 2's blocks folded", fmt.Sprintf(`+%s.dataset.rows === %d`, root, rows-2), root+".dataset.rows")
	tb.do("height: tall", chromedp.SetValue(chromedp.JSPath(c.q("[data-test=lane-height]")), "tall"))
	if h := eval[int](tb, "lane height", L+".laneHeight()"); h != 30 {
		t.Errorf("lane height after choosing tall: %d px, want 30", h)
	}
	// Drag the line under the third lane down by 30 px in the gutter: the
	// line follows the pointer, so each of the three lanes grows by 10 px,
	// and the picker says so. Then drag the first line up past the floor.
	edge := func(i int) pt {
		return eval[pt](tb, "a lane boundary", fmt.Sprintf(`(() => { const L = %s; L.canvas.scrollIntoView({block: 'start'});
			const r = L.canvas.getBoundingClientRect(); return {X: r.left + 30, Y: r.top + L.axisH + %d * L.laneHeight()}; })()`, L, i))
	}
	dragY := func(what string, p pt, dy float64) {
		tb.do(what,
			chromedp.MouseEvent(chromedp.MouseMoved, p.X, p.Y),
			chromedp.MouseEvent(chromedp.MousePressed, p.X, p.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
			chromedp.MouseEvent(chromedp.MouseMoved, p.X, p.Y+dy/2, chromedp.ButtonLeft),
			chromedp.MouseEvent(chromedp.MouseMoved, p.X, p.Y+dy, chromedp.ButtonLeft),
			chromedp.MouseEvent(chromedp.MouseReleased, p.X, p.Y+dy, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	}
	first := eval[int](tb, "the top lane", L+".rows[0].rank")
	dragY("drag the third lane's lower edge down 30 px", edge(3), 30)
	if h := eval[int](tb, "lane height", L+".laneHeight()"); h != 40 {
		t.Errorf("lane height after dragging the third boundary down 30 px from 30 px lanes: %d px, want 40", h)
	}
	if got := eval[string](tb, "the height picker", `(() => { const s = `+c.q("[data-test=lane-height]")+`; return s.value + ' ' + s.selectedOptions[0].textContent; })()`); got != "custom Height: 40 px" {
		t.Errorf("the height picker shows %q after the drag, want custom Height: 40 px", got)
	}
	if now := eval[int](tb, "the top lane", L+".rows[0].rank"); now != first {
		t.Errorf("the drag pinned or folded a lane: the top lane is rank %d, was %d", now, first)
	}
	tb.elementShot(shotDir(t), "step17-dragged-height.png", root)
	dragY("drag the first lane's edge up 100 px", edge(1), -100)
	if h := eval[int](tb, "lane height", L+".laneHeight()"); h != 6 {
		t.Errorf("lane height after dragging far up: %d px, want the floor of 6", h)
	}
	dragY("drag the first lane's edge back down", edge(1), 16)
	tb.do("fold blocks", chromedp.Click(chromedp.JSPath(c.q("[data-test=lane-fold]"))))
	want := eval[int](tb, "lanes without blocks", lanesJS(c)+".order.filter(l => !l.block).length")
	if want < 9 {
		t.Errorf("%d lanes without blocks, want 8 ranks and the host", want)
	}
	waitFor[bool](tb, "one row per rank and the host", fmt.Sprintf(`+%s.dataset.rows === %d`, root, want), root+".dataset.rows")
}

// TestLanesFrameTimes runs a 100,017-event program in step 8's run cell and
// measures, in the page, the time of each redraw while the lanes pan and
// zoom (W/S/A/D on the canvas, one frame each). It reports the figures and
// fails only past a generous bound.
func TestLanesFrameTimes(t *testing.T) {
	src, err := os.ReadFile("testdata/spin_100k.py")
	if err != nil {
		t.Fatal(err)
	}
	s, tb := newSession(t)
	c := stepEightRunCell(s, tb)
	c.setCode(string(src))
	c.setRanks(4)
	// The program is not an all-reduce, so the step's check fails it (the
	// cell ends "failed"); the run itself must finish.
	c.run()
	if status := eval[string](tb, "run status", c.q(".rv-status")+".textContent"); !strings.Contains(status, "finished") {
		t.Fatalf("100k-event run: status %q, want finished; %s", status, eval[string](tb, "state", c.state()))
	}
	c.showView("lanes")
	root := c.q("[data-test=lanes]")
	n := waitFor[int](tb, "100k events in the lanes", root+".dataset.events >= 100000 && +"+root+".dataset.events", root+".dataset.events")
	c.scrollTo()
	type frames struct {
		Draw  []float64
		Frame []float64
	}
	f, err := chromedp.Run(tb.ctx, chromedp.Evaluate[frames](fmt.Sprintf(`(async () => {
		const L = %s, c = L.canvas, draw = [], frame = [];
		const keys = 'wwwwwwddddddaaaaaassssssddwwwwdddaaasssss'.split('').concat('wsadwsadwsadwsad'.split(''));
		const next = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		await next();
		let t = performance.now();
		for (const k of keys) {
			c.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
			await next();
			const now = performance.now();
			draw.push(L.drawMs);
			frame.push(now - t);
			t = now;
		}
		return {Draw: draw, Frame: frame};
	})()`, lanesJS(c)), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("pan and zoom: %v", err)
	}
	if len(f.Draw) == 0 {
		t.Fatal("no frames measured")
	}
	p := func(xs []float64, q float64) float64 {
		ys := append([]float64(nil), xs...)
		sort.Float64s(ys)
		return ys[int(q*float64(len(ys)-1))]
	}
	mean := 0.0
	for _, d := range f.Draw {
		mean += d
	}
	mean /= float64(len(f.Draw))
	fps := 1000 / mean
	t.Logf("%d events, %d pan/zoom frames: draw mean %.1f ms, median %.1f ms, p95 %.1f ms, max %.1f ms (%.0f fps of drawing); frame interval (two rAFs) median %.1f ms",
		n, len(f.Draw), mean, p(f.Draw, 0.5), p(f.Draw, 0.95), p(f.Draw, 1), fps, p(f.Frame, 0.5))
	// Generous: 30 fps is 33 ms a frame; the bound is thrice that at the
	// 95th percentile, so a loaded 2-core machine does not trip it.
	if p95 := p(f.Draw, 0.95); p95 > 100 {
		t.Errorf("p95 redraw %.1f ms while panning and zooming 100k events, want well under 100 ms", p95)
	}
}
