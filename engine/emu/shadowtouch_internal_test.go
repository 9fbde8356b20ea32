package emu

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"pldworkbench/engine/ir"
)

// TestTouchMatchesShadow drives two worlds with the same random plain
// accesses to the ranks' copies of a window, as the interpreter's ops make
// them: one through touch (its own case for part of a row, its carve,
// touchFresh and touchRegion behind it), the other through touchShadow
// alone, the general path, on the same bytes. The view is 2-D, two rows;
// accesses are a ring's chunks going down a row (each the end of what is
// left of a wider write), whole windows, whole rows, random spans within a
// row and regions of both rows; plain kinds and atomic adds. Sites share memo slots, epochs move, clocks
// order some accesses, and the first pend slot names a join sometimes
// (knows): both worlds must report the same races and end each step with
// the same segments, hints and memos.
func TestTouchMatchesShadow(t *testing.T) {
	const ranks, size, cols = 3, 128, 16 // two rows of 16 FP32
	view := func(b *bufDesc) *tref {
		return &tref{name: "w", dt: ir.FP32, shape: []int{2, cols}, buf: b}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 300; round++ {
		ops := []opKind{opRead, opWrite, opRead, opWrite, opRead, opWrite} // lines 1-6: 1 and 5, 2 and 6 share a slot
		kinds := []accessKind{accRead, accWrite, accRead, accWrite, accRead, accAtomicWrite}
		a, b, nodesA, nodesB := twinWorlds(ranks, size, ops, view)
		down := make([]int, ranks) // each rank's next chunk, going down
		for r := range down {
			down[r] = cols - 2
		}
		for step := 0; step < 80; step++ {
			r, p := rng.IntN(ranks), rng.IntN(ranks)
			j := rng.IntN(len(ops))
			k := kinds[j]
			offs, ext := []int{0, 0}, []int{2, cols}
			switch rng.IntN(6) {
			case 0, 1: // a ring's chunk of two elements
				c := down[p]
				if rng.IntN(3) == 0 {
					c = 2 * rng.IntN(cols/2)
				} else if down[p] -= 2; down[p] < 0 {
					down[p] = cols - 2
				}
				offs, ext = []int{0, c}, []int{1, 2}
			case 2: // a row
				offs, ext = []int{rng.IntN(2), 0}, []int{1, cols}
			case 3: // a span within a row
				c := rng.IntN(cols)
				offs, ext = []int{rng.IntN(2), c}, []int{1, 1 + rng.IntN(cols-c)}
			case 4: // both rows, part of each
				c := rng.IntN(cols)
				offs, ext = []int{0, c}, []int{2, 1 + rng.IntN(cols-c)}
			}
			syncTwins(rng, a, b, r)
			if rng.IntN(3) == 0 {
				// A join the first pend slot names: h is ordered after
				// epoch c of thread o, in its clock too.
				o := rng.IntN(ranks)
				c := uint32(rng.IntN(int(a.ms[o].hb.own) + 1))
				for _, w := range []*raceWorld{a, b} {
					if h := &w.ms[r].hb; o != r && c > 0 {
						h.pend[0] = pendJoin{tid: int32(o), own: c}
						h.base.v[o] = max(h.base.v[o], c)
					}
				}
			}
			a.ms[r].touch(nodesA[j], a.ts[p], p, offs, ext, k)
			lo, hi := (offs[0]*cols+offs[1])*4, (offs[0]*cols+offs[1]+ext[1])*4
			if ext[0] == 2 {
				// Two runs: the end of row 0 and the start of row 1 are
				// not one unless the region spans whole rows.
				if offs[1] == 0 && ext[1] == cols {
					b.ms[r].touchShadow(b.d, nodesB[j], b.ts[p], p, 0, size, k)
				} else {
					b.ms[r].touchShadow(b.d, nodesB[j], b.ts[p], p, offs[1]*4, (offs[1]+ext[1])*4, k)
					b.ms[r].touchShadow(b.d, nodesB[j], b.ts[p], p, (cols+offs[1])*4, (cols+offs[1]+ext[1])*4, k)
				}
			} else {
				b.ms[r].touchShadow(b.d, nodesB[j], b.ts[p], p, lo, hi, k)
			}
			if sa, sb := shadowsState(a), shadowsState(b); sa != sb {
				t.Fatalf("round %d step %d: rank %d %v at %v extent %v of rank %d's copy:\ntouch:       %s\ntouchShadow: %s", round, step, r, k, offs, ext, p, sa, sb)
			}
		}
	}
}

// TestTouchCarveTailCases runs the entries touch's carve of the end of
// a segment reads, one by one, through touch and touchShadow: a ring's
// first read of the end of its window's first store, after that store
// alone, after another rank's read of it, after its own read and after
// another rank's atomic add, each with the reader ordered after the other
// rank or not. The second and third chunks are touch's carve (the hint on
// the chunk above), each read its own line, so that a race each finds is
// a report of its own. Both worlds must report the same races and end
// with the same segments.
func TestTouchCarveTailCases(t *testing.T) {
	const ranks, cols = 2, 16
	view := func(b *bufDesc) *tref {
		return &tref{name: "w", dt: ir.FP32, shape: []int{1, cols}, buf: b}
	}
	kinds := []accessKind{accWrite, accRead, accRead, accAtomicWrite, accRead, accRead}
	ops := []opKind{opWrite, opRead, opRead, opWrite, opRead, opRead}
	for second := 0; second < 4; second++ { // none, rank 1's read, rank 0's read, rank 1's add
		for _, ordered := range []bool{false, true} {
			a := newRaceWorld(ranks, "w", cols*4, ops, view)
			b := newRaceWorld(ranks, "w", cols*4, ops, view)
			var nodesA, nodesB []*node
			for i, op := range ops {
				nodesA, nodesB = append(nodesA, a.newNode(op, i+1)), append(nodesB, b.newNode(op, i+1))
			}
			type acc struct{ r, p, j, c, e int } // rank, copy, op, first element, extent
			// Rank 0's reads of rank 1's copy fill the viewSite slots
			// of lines 5 and 6 (an access's first at a site is the
			// general path's).
			steps := []acc{{0, 1, 4, 0, 1}, {0, 1, 5, 0, 1}, {0, 0, 0, 0, cols}}
			switch second {
			case 1:
				steps = append(steps, acc{1, 0, 1, 0, cols})
			case 2:
				steps = append(steps, acc{0, 0, 2, 0, cols})
			case 3:
				steps = append(steps, acc{1, 0, 3, 0, cols})
			}
			steps = append(steps, acc{0, 0, 4, cols - 2, 2}, acc{0, 0, 5, cols - 4, 2}, acc{0, 0, 4, cols - 6, 2})
			for _, w := range []*raceWorld{a, b} {
				for _, m := range w.ms {
					m.hb.base = &vclock{v: make([]uint32, ranks), refs: 1}
				}
			}
			for n, st := range steps {
				for _, w := range []*raceWorld{a, b} {
					h := &w.ms[st.r].hb
					h.released = true // each access an epoch of its own
					if ordered && n == len(steps)-3 {
						o := 1 - st.r
						h.base.v[o] = w.ms[o].hb.own
					}
				}
				a.ms[st.r].touch(nodesA[st.j], a.ts[0], st.p, []int{0, st.c}, []int{1, st.e}, kinds[st.j])
				b.ms[st.r].touchShadow(b.d, nodesB[st.j], b.ts[0], st.p, st.c*4, (st.c+st.e)*4, kinds[st.j])
				if sa, sb := shadowsState(a), shadowsState(b); sa != sb {
					t.Fatalf("second %d ordered %v step %d:\ntouch:       %s\ntouchShadow: %s", second, ordered, n, sa, sb)
				}
			}
		}
	}
}

// TestTouchCarveFullSegs checks touch's carve on a shadow whose segs are
// full, the hole empty at the index its carve would move it from: the
// carve must make room (carveAt's reserve) as touchShadow's does.
func TestTouchCarveFullSegs(t *testing.T) {
	const cols = 16
	var states [2]string
	for x, general := range []bool{false, true} {
		w, m, touch := rowTouchWorld(cols, general)
		touch(0, 0, cols)
		m.hb.released = true
		touch(1, cols-2, 2) // the general path's carve: [0,56) [56,64), hint 1
		m.hb.released = true
		sh := w.b.shadows[0]
		sh.segs = []segment{*sh.at(0), *sh.at(1)} // full, the hole at 2
		sh.gap, sh.gapLen = 2, 0
		touch(1, cols-4, 2)
		states[x] = shadowsState(w)
	}
	if states[0] != states[1] {
		t.Fatalf("touch:       %s\ntouchShadow: %s", states[0], states[1])
	}
}

// TestViewSiteSize keeps a viewSite at 32 bytes, the shift viewSite's
// index takes, with the fields touch's own case reads.
func TestViewSiteSize(t *testing.T) {
	if n := unsafe.Sizeof(viewSite{}); n != 32 {
		t.Fatalf("viewSite is %d bytes, want 32", n)
	}
}

// rowTouchWorld is a one-rank world with an FP32 window of one row of
// cols elements, its thread's base clock, and touch(j, c, e): an access
// of kind j (0 a write, 1 a read) to elements [c, c+e) of the row, by
// touch or, when general, by the general path (touchShadow).
func rowTouchWorld(cols int, general bool) (*raceWorld, *machine, func(j, c, e int)) {
	view := func(b *bufDesc) *tref {
		return &tref{name: "w", dt: ir.FP32, shape: []int{1, cols}, buf: b}
	}
	ops := []opKind{opWrite, opRead}
	kinds := []accessKind{accWrite, accRead}
	w := newRaceWorld(1, "w", cols*4, ops, view)
	var nodes []*node
	for i, op := range ops {
		nodes = append(nodes, w.newNode(op, i+1))
	}
	m := w.ms[0]
	m.hb.base = &vclock{v: make([]uint32, 1), refs: 1}
	touch := func(j, c, e int) {
		if general {
			m.touchShadow(w.d, nodes[j], w.ts[0], 0, c*4, (c+e)*4, kinds[j])
		} else {
			m.touch(nodes[j], w.ts[0], 0, []int{0, c}, []int{1, e}, kinds[j])
		}
	}
	return w, m, touch
}
