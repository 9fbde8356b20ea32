package emu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"pldworkbench/engine/ir"
)

// TestRecordInPlaceKinds checks recordInPlace, whose plain read and write
// have loops of their own (and a read whose kept entries come first
// appends itself where they end), against recordAnyInPlace, the one loop
// for every kind, on every segment of up to segInline entries drawn from
// a small set (three threads, each kind, an epoch the recording thread is
// ordered after or not) and every access kind of thread 0: both must
// agree on whether they record and on the entries they leave.
func TestRecordInPlaceKinds(t *testing.T) {
	var pool []segAcc
	for tid := uint16(0); tid < 3; tid++ {
		for k := uint16(0); k < 4; k++ {
			for _, clk := range []uint32{1, 3} {
				pool = append(pool, segAcc{tid: tid, sk: 1<<2 | k, clk: clk})
			}
		}
	}
	// Thread 0 at epoch 4, ordered after epoch 2 of threads 1 and 2: the
	// entries at epoch 1 are ordered before it, those at 3 are not.
	h := &hbThread{tid: 0, own: 4, base: &vclock{v: []uint32{0, 2, 2}, refs: 1}}
	var segs [][]segAcc
	var grow func(acc []segAcc)
	grow = func(acc []segAcc) {
		segs = append(segs, acc)
		if len(acc) == segInline {
			return
		}
		for _, e := range pool {
			grow(append(acc[:len(acc):len(acc)], e))
		}
	}
	grow(nil)
	checked, recorded := 0, 0
	for _, acc := range segs {
		var seg segment
		copy(seg.acc[:], acc)
		seg.lo, seg.hi = 8, 24
		for k := uint32(0); k < 4; k++ {
			cur := cellAcc{tid: 0, clk: 4, sk: 2<<2 | k}
			fast, slow := seg, seg
			okF := recordInPlace(&fast, cur, h)
			okS := recordAnyInPlace(&slow, cur, h)
			if okF != okS || fast != slow {
				t.Fatalf("entries %v, kind %d: recordInPlace %v %v, recordAnyInPlace %v %v", acc, k, okF, fast.acc, okS, slow.acc)
			}
			if !okF && fast != seg {
				t.Fatalf("entries %v, kind %d: not recorded but changed to %v", acc, k, fast.acc)
			}
			checked++
			if okF {
				recorded++
			}
		}
	}
	if recorded == 0 || recorded == checked {
		t.Fatalf("%d of %d recorded: the cases do not cover both outcomes", recorded, checked)
	}
	// A spilled segment is never recorded in place.
	var sp segment
	sp.acc[0] = segAcc{tid: spillMark, clk: 1}
	sp.acc[1].clk = 4
	for k := uint32(0); k < 4; k++ {
		if c := sp; recordInPlace(&c, cellAcc{tid: 0, clk: 4, sk: 2<<2 | k}, h) || c != sp {
			t.Fatalf("kind %d: a spilled segment recorded in place", k)
		}
	}
}

// TestPlainMemoLines checks where plainClk and pend[0] are: in the cache
// line of the thread's epoch (own, released), which every access reads,
// for every machine on the heap, and that this line is one the
// interpreter reads at every op anyway. A machine's size class is a
// multiple of 64 bytes and the allocator puts an 8-byte header before it,
// so the machine's offsets 56 and 120 start lines in every machine.
func TestPlainMemoLines(t *testing.T) {
	for range 4 {
		machineSink = &machine{} // on the heap, as the sim's machines are
		h := &machineSink.hb
		first := uintptr(unsafe.Pointer(&h.own))
		last := uintptr(unsafe.Pointer(&h.plainClk)) + unsafe.Sizeof(h.plainClk) - 1
		if first/64 != last/64 || uintptr(unsafe.Pointer(&h.tid))/64 != first/64 {
			t.Fatalf("hb at %#x: own at %#x, plainClk's bytes to %#x: not one cache line", uintptr(unsafe.Pointer(h)), first, last)
		}
		// knows reads pend[0] beside them (shadowseg.go).
		if p := uintptr(unsafe.Pointer(&h.pend[0])); p/64 != first/64 || (p+7)/64 != first/64 {
			t.Fatalf("hb at %#x: pend[0] at %#x, not in the line of own at %#x", uintptr(unsafe.Pointer(h)), p, first)
		}
		// That line is one the interpreter reads at every op anyway
		// (parent, for owner), as are those of s and clock (machine).
		m := machineSink
		if p := uintptr(unsafe.Pointer(&m.parent)); p/64 != first/64 {
			t.Fatalf("machine at %#x: parent at %#x, not in the line of hb's own at %#x", uintptr(unsafe.Pointer(m)), p, first)
		}
		line := func(p unsafe.Pointer) uintptr { return uintptr(p) / 64 }
		if l := line(unsafe.Pointer(&m.s)); line(unsafe.Pointer(&m.seq)) != l || line(unsafe.Pointer(&m.clock)) != l {
			t.Fatalf("machine at %p: s, clock and seq not in one line", m)
		}
		if l := line(unsafe.Pointer(&m.state)); line(unsafe.Pointer(&m.block)) != l || line(unsafe.Pointer(&m.wait.n)) != l || uintptr(unsafe.Pointer(&m.state))%64 != 0 {
			t.Fatalf("machine at %p: state does not start the line of block and wait", m)
		}
	}
}

var machineSink *machine

// TestTouchFreshMatchesShadow drives two worlds with the same random plain
// accesses to the ranks' copies of a window: one through touchBytes,
// whose common cases touchFresh records, the other through touchShadow
// alone, the general path. Chunks a quarter of the window wide (a ring's,
// found by exact, cut out of a wider segment by carve), random spans, sites
// that share a memo slot, epochs that move and clocks that order some
// accesses: both must report the same races and end each step with the
// same segments, hints and memos.
func TestTouchFreshMatchesShadow(t *testing.T) {
	const ranks, size = 3, 64
	view := func(b *bufDesc) *tref {
		return &tref{name: "w", dt: ir.FP32, shape: []int{1, size / 4}, buf: b}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 100; round++ {
		ops := []opKind{opRead, opWrite, opRead, opWrite, opRead} // lines 1-5: 1 and 5 share a slot
		a, b, nodesA, nodesB := twinWorlds(ranks, size, ops, view)
		for step := 0; step < 60; step++ {
			r, p := rng.IntN(ranks), rng.IntN(ranks)
			j := rng.IntN(len(ops))
			k := accRead
			if ops[j] == opWrite {
				k = accWrite
			}
			lo, hi := 0, size
			switch rng.IntN(4) {
			case 0, 1:
				c := rng.IntN(4)
				lo, hi = c*size/4, (c+1)*size/4
			case 2:
				lo = 4 * rng.IntN(size/4)
				hi = lo + 4*(1+rng.IntN((size-lo)/4))
			}
			syncTwins(rng, a, b, r)
			a.ms[r].touchBytes(nodesA[j], a.ts[p], p, lo, hi, k)
			b.ms[r].touchShadow(b.d, nodesB[j], b.ts[p], p, lo, hi, k)
			if sa, sb := shadowsState(a), shadowsState(b); sa != sb {
				t.Fatalf("round %d step %d: rank %d %v [%d, %d) of rank %d's copy:\ntouchBytes:  %s\ntouchShadow: %s", round, step, r, k, lo, hi, p, sa, sb)
			}
		}
	}
}

// shadowsState renders w's races, the segments and hint of each rank's
// shadow of its window and each machine's plain slots (plainClk).
// syncTwins moves rank r of twin worlds a and b on alike, at random:
// maybe a release, and joins of the other ranks' epochs up to their own.
func syncTwins(rng *rand.Rand, a, b *raceWorld, r int) {
	release := rng.IntN(3) == 0
	clocks := make([]uint32, len(a.ms))
	for o := range clocks {
		clocks[o] = uint32(rng.IntN(int(a.ms[o].hb.own) + 1))
	}
	for _, w := range []*raceWorld{a, b} {
		h := &w.ms[r].hb
		if release {
			h.released = true
		}
		for o := range clocks {
			if o != r {
				h.base.v[o] = max(h.base.v[o], clocks[o])
			}
		}
	}
}

func shadowsState(w *raceWorld) string {
	s := fmt.Sprint(len(w.d.races))
	for _, rc := range w.d.races {
		s += " " + rc.Message
	}
	for p, sh := range w.b.shadows {
		if sh == nil {
			continue
		}
		s += fmt.Sprintf("\\n  rank %d hint %d:", p, sh.hint)
		for i := range sh.nsegs() {
			seg := sh.at(i)
			s += fmt.Sprintf(" [%d,%d)%v", seg.lo, seg.hi, sh.entries(seg))
		}
	}
	for _, m := range w.ms {
		s += fmt.Sprintf("\\n  t%d own %d: %v", m.hb.tid, m.hb.own, m.hb.plainClk)
	}
	return s
}

// TestRecordInPlaceKnown checks recordInPlace's use of the epoch in h's
// first pend slot (knows), which stands for an entry of h's clock: a
// thread whose slot says epoch 3 of thread 1, that epoch pending in its
// clock's joins too (so that reading the clock, which flushes them, gives
// 3), must record as recordAnyInPlace does for a thread with 3 in its
// clock, on every segment of up to two entries and every access kind of
// thread 0. With the slot stale (npend 0, the epoch already in the base)
// the same must hold.
func TestRecordInPlaceKnown(t *testing.T) {
	var pool []segAcc
	for tid := uint16(0); tid < 3; tid++ {
		for k := uint16(0); k < 4; k++ {
			for _, clk := range []uint32{2, 3, 4} {
				pool = append(pool, segAcc{tid: tid, sk: 1<<2 | k, clk: clk})
			}
		}
	}
	segs := [][]segAcc{nil}
	for _, a := range pool {
		segs = append(segs, []segAcc{a})
		for _, b := range pool {
			segs = append(segs, []segAcc{a, b})
		}
	}
	for _, acc := range segs {
		var seg segment
		copy(seg.acc[:], acc)
		for k := uint32(0); k < 4; k++ {
			for _, pending := range []bool{true, false} {
				clock := &hbThread{tid: 0, own: 5, base: &vclock{v: []uint32{0, 3, 2}, refs: 1}}
				known := &hbThread{tid: 0, own: 5, base: &vclock{v: []uint32{0, 2, 2}, refs: 1}}
				known.pend[0] = pendJoin{tid: 1, own: 3}
				if pending {
					known.npend = 1
				} else {
					known.base.v[1] = 3
				}
				cur := cellAcc{tid: 0, clk: 5, sk: 2<<2 | k}
				fast, slow := seg, seg
				okF, okS := recordInPlace(&fast, cur, known), recordAnyInPlace(&slow, cur, clock)
				if okF != okS || fast != slow {
					t.Fatalf("entries %v, kind %d, pending %v: with the slot %v %v, with the clock %v %v", acc, k, pending, okF, fast.acc, okS, slow.acc)
				}
			}
		}
	}
}

// TestAccessTiledMatchesAccess drives two worlds with the same random
// plain accesses through touchShadow, one with accessTiled, the other
// with access's cover, loop and merge alone: spans of whole chunk
// segments (the tiled case, fresh or not), wider and narrower ones,
// clocks that order some accesses and epochs that move. Both must report
// the same races and end each step with the same segments, hints and
// memos.
func TestAccessTiledMatchesAccess(t *testing.T) {
	const ranks, size = 3, 64
	view := func(b *bufDesc) *tref {
		return &tref{name: "w", dt: ir.FP32, shape: []int{1, size / 4}, buf: b}
	}
	defer func() { noTiled = false }()
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 200; round++ {
		ops := []opKind{opRead, opWrite, opRead, opWrite, opRead}
		a, b, nodesA, nodesB := twinWorlds(ranks, size, ops, view)
		for step := 0; step < 60; step++ {
			r, p := rng.IntN(ranks), rng.IntN(ranks)
			j := rng.IntN(len(ops))
			k := accRead
			if ops[j] == opWrite {
				k = accWrite
			}
			var lo, hi int
			switch rng.IntN(3) {
			case 0: // a chunk of 8 bytes
				c := rng.IntN(size / 8)
				lo, hi = c*8, (c+1)*8
			case 1: // chunks
				lo = 8 * rng.IntN(size/8)
				hi = lo + 8*(1+rng.IntN((size-lo)/8))
			default:
				lo = 4 * rng.IntN(size/4)
				hi = lo + 4*(1+rng.IntN((size-lo)/4))
			}
			syncTwins(rng, a, b, r)
			noTiled = false
			a.ms[r].touchShadow(a.d, nodesA[j], a.ts[p], p, lo, hi, k)
			noTiled = true
			b.ms[r].touchShadow(b.d, nodesB[j], b.ts[p], p, lo, hi, k)
			if sa, sb := shadowsState(a), shadowsState(b); sa != sb {
				t.Fatalf("round %d step %d: rank %d %v [%d, %d) of rank %d's copy:\ntiled:   %s\ngeneral: %s", round, step, r, k, lo, hi, p, sa, sb)
			}
		}
	}
}

// TestAccessTiledOwnMatchesAccess is TestAccessTiledMatchesAccess for
// tiledOwn's case, which random accesses seldom make: rank 0 writes the
// chunks of its copy (some in one epoch) or the whole copy at once, rank
// 1 reads some chunks, rank 0 sometimes reads one itself or
// adds to one atomically (no longer the case), then reads spans of whole
// chunks at one site, some in one epoch (not fresh, the span's
// neighbours then may end up with the same entries). Both
// worlds must report the same races and end with the same segments; the
// case must come up.
func TestAccessTiledOwnMatchesAccess(t *testing.T) {
	const ranks, size, chunk = 2, 64, 8
	view := func(b *bufDesc) *tref {
		return &tref{name: "w", dt: ir.FP32, shape: []int{1, size / 4}, buf: b}
	}
	defer func() { noTiled = false }()
	rng := rand.New(rand.NewPCG(9, 10))
	own := 0
	for round := 0; round < 400; round++ {
		ops := []opKind{opWrite, opRead, opRead, opRead, opWrite}
		kinds := []accessKind{accWrite, accRead, accRead, accRead, accAtomicWrite}
		a, b, nodesA, nodesB := twinWorlds(ranks, size, ops, view)
		do := func(r, j, lo, hi int) {
			if hi > lo && j == 2 {
				sh := a.b.shadows[0]
				ok := sh != nil
				for i := 0; ok && i < sh.nsegs(); i++ {
					if seg := sh.at(i); int(seg.lo) < hi && int(seg.hi) > lo {
						ok = int(seg.lo) >= lo && int(seg.hi) <= hi && ownWriteFirst(seg, cellAcc{tid: 0}) != 0
					}
				}
				if ok && hi-lo > chunk {
					own++
				}
			}
			noTiled = false
			a.ms[r].touchShadow(a.d, nodesA[j], a.ts[0], 0, lo, hi, kinds[j])
			noTiled = true
			b.ms[r].touchShadow(b.d, nodesB[j], b.ts[0], 0, lo, hi, kinds[j])
			if sa, sb := shadowsState(a), shadowsState(b); sa != sb {
				t.Fatalf("round %d: rank %d %v [%d, %d):\ntiled:   %s\ngeneral: %s", round, r, kinds[j], lo, hi, sa, sb)
			}
		}
		release := func(r int) {
			for _, w := range []*raceWorld{a, b} {
				w.ms[r].hb.released = true
			}
		}
		if rng.IntN(3) == 0 {
			do(0, 0, 0, size) // one segment, which the reads carve
		} else {
			for c := 0; c < size/chunk; c++ {
				if rng.IntN(3) != 0 {
					release(0)
				}
				do(0, 0, c*chunk, (c+1)*chunk)
			}
		}
		syncTwins(rng, a, b, 1)
		for c := 0; c < size/chunk; c++ {
			switch rng.IntN(8) {
			case 0, 1, 2:
				do(1, 1, c*chunk, (c+1)*chunk)
			case 4:
				if rng.IntN(4) == 0 {
					do(0, 3, c*chunk, (c+1)*chunk)
				}
			case 5:
				if rng.IntN(4) == 0 {
					do(1, 4, c*chunk, (c+1)*chunk)
				}
			}
			if rng.IntN(4) == 0 {
				release(1)
			}
		}
		syncTwins(rng, a, b, 0)
		// Spans one after the other, then the whole copy.
		for c := 0; c < size/chunk; {
			e := c + 1 + rng.IntN(size/chunk-c)
			do(0, 2, c*chunk, e*chunk)
			if rng.IntN(3) == 0 {
				release(0)
			}
			c = e
		}
		do(0, 2, 0, size)
	}
	if own < 100 {
		t.Fatalf("tiledOwn's case came up %d times", own)
	}
	t.Logf("tiledOwn's case: %d", own)
}

// TestTiledOwnUndoes checks that tiledOwn leaves the segments as they
// were when it does not record (accessTiled's general loop, and access's
// cover after it, then start from them): a span whose last segment goes
// past it, one with a gap, one past the last segment and one whose third
// segment is not its case.
func TestTiledOwnUndoes(t *testing.T) {
	w := func(tid uint16, clk uint32) segAcc { return segAcc{tid, 1<<2 | uint16(accWrite), clk} }
	r := func(tid uint16, clk uint32) segAcc { return segAcc{tid, 2<<2 | uint16(accRead), clk} }
	cur := cellAcc{tid: 0, clk: 9, sk: 3<<2 | uint32(accRead)}
	for x, tc := range []struct {
		segs     []segment
		hi       int
		done, ok bool
	}{
		{[]segment{{0, 8, [3]segAcc{w(0, 1)}}, {8, 16, [3]segAcc{w(0, 2), r(1, 3)}}, {16, 64, [3]segAcc{w(0, 3)}}}, 24, true, false},
		{[]segment{{0, 8, [3]segAcc{w(0, 1)}}, {8, 16, [3]segAcc{w(0, 2), r(1, 3)}}, {24, 64, [3]segAcc{w(0, 3)}}}, 32, true, false},
		{[]segment{{0, 8, [3]segAcc{w(0, 1)}}, {8, 16, [3]segAcc{w(0, 2), r(1, 3)}}, {16, 24, [3]segAcc{w(1, 3)}}}, 24, false, false},
		{[]segment{{0, 8, [3]segAcc{w(0, 1)}}, {8, 16, [3]segAcc{w(0, 2), r(1, 3)}}}, 24, true, false},
		{[]segment{{0, 8, [3]segAcc{w(0, 1)}}, {8, 16, [3]segAcc{w(0, 2), r(1, 3)}}, {16, 24, [3]segAcc{w(0, 3)}}}, 16, true, true},
	} {
		for gap := 0; gap <= len(tc.segs); gap++ {
			sh := &shadow{}
			sh.segs = append(append(slices.Clone(tc.segs[:gap]), segment{}, segment{}), tc.segs[gap:]...)
			sh.gap, sh.gapLen, sh.nseg = int32(gap), 2, int32(len(tc.segs))
			before := slices.Clone(sh.segs)
			n, g, gl := sh.nsegs(), int(sh.gap), int(sh.gapLen)
			runs := [2][]segment{sh.segs[min(0, g):g], sh.segs[max(0, g)+gl : n+gl]}
			done, ok := sh.tiledOwn(&runs, 0, 0, tc.hi, cur, true)
			if done != tc.done || ok != tc.ok {
				t.Fatalf("case %d gap %d: done %v ok %v, want %v %v", x, gap, done, ok, tc.done, tc.ok)
			}
			if !ok && !slices.Equal(before, sh.segs) {
				t.Fatalf("case %d gap %d: segments %v, were %v", x, gap, sh.segs, before)
			}
			if ok && (sh.at(0).acc[1] != pack(cur) || sh.at(1).acc[2] != pack(cur) || sh.at(2).acc != before[2+2*b2i(gap <= 2)].acc) {
				t.Fatalf("case %d gap %d: segments %v", x, gap, sh.segs)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// twinWorlds makes two equal race worlds of ranks ranks over a window "w"
// of size bytes, with a node per op (on lines 1, 2, ...) in each and
// every machine's base clock its own, for the tests that run one world
// by a fast path and the other by the general path and compare them.
func twinWorlds(ranks, size int, ops []opKind, view func(b *bufDesc) *tref) (a, b *raceWorld, nodesA, nodesB []*node) {
	a = newRaceWorld(ranks, "w", size, ops, view)
	b = newRaceWorld(ranks, "w", size, ops, view)
	for i, op := range ops {
		nodesA, nodesB = append(nodesA, a.newNode(op, i+1)), append(nodesB, b.newNode(op, i+1))
	}
	for _, w := range []*raceWorld{a, b} {
		for _, m := range w.ms {
			m.hb.base = &vclock{v: make([]uint32, ranks), refs: 1}
		}
	}
	return a, b, nodesA, nodesB
}
