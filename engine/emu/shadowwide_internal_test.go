package emu

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestShadowWideAndFar drives two shadows with the same random accesses
// (as TestShadowMatchesBytes does, whose byte model checks the first): one
// at offset 0 with small thread and site numbers, whose entries fit a
// segment in place, and one across the boundary of its memory's first
// region (shadowRegion) with thread and site numbers past what an entry in
// place holds, so its bytes are split between two regions' shadows and
// its entries all live in spill lists. Both must report the same races on
// the same bytes, with the same entries, and hold the same entries at the
// end of each round.
func TestShadowWideAndFar(t *testing.T) {
	const size, threads = 96, 4
	const base = shadowRegion - size/2     // the wide shadow's bytes start here
	const wideTid, wideSite = 70000, 20000 // past 16 bits, and past 14
	rng := rand.New(rand.NewPCG(3, 4))
	// The threads' clocks, set again at each step (v[o] for o != tid).
	vn := &vclock{v: make([]uint32, threads), refs: 1}
	vw := &vclock{v: make([]uint32, wideTid+threads), refs: 1}
	across, farSegs := 0, 0
	for round := 0; round < 200; round++ {
		var narrow, wide shadow
		clk := make([]uint32, threads)
		applied := map[cellAcc]bool{}
		lastLo, lastHi := 0, 0
		for step := 0; step < 40; step++ {
			tid := int32(rng.IntN(threads))
			if clk[tid] == 0 || rng.IntN(2) == 0 {
				clk[tid]++
			}
			hn := &hbThread{tid: tid, own: clk[tid], base: vn}
			hw := &hbThread{tid: tid + wideTid, own: clk[tid], base: vw}
			for o := range threads {
				if int32(o) != tid {
					v := uint32(rng.IntN(int(clk[o]) + 1))
					hn.base.v[o], hw.base.v[wideTid+o] = v, v
				}
			}
			lo := rng.IntN(size)
			hi := lo + 1 + rng.IntN(min(24, size-lo))
			if step > 0 && rng.IntN(3) == 0 {
				lo, hi = lastLo, lastHi
			}
			lastLo, lastHi = lo, hi
			site, kind := uint32(1+rng.IntN(5)), uint32(rng.IntN(4))
			cn := cellAcc{tid: tid, clk: clk[tid], sk: site<<2 | kind}
			cw := cellAcc{tid: tid + wideTid, clk: clk[tid], sk: (site+wideSite)<<2 | kind}
			fresh := !applied[cn]
			applied[cn] = true

			var gotN, gotW []raceHit
			touch(&narrow, lo, hi, cn, hn, fresh, func(e cellAcc, a, b int) { gotN = append(gotN, raceHit{e, a, b}) })
			touch(&wide, base+lo, base+hi, cw, hw, fresh, func(e cellAcc, a, b int) {
				gotW = append(gotW, raceHit{narrowOf(e, wideTid, wideSite), a - base, b - base})
			})
			if base+lo < shadowRegion && base+hi > shadowRegion {
				across++
			}
			// Per byte: a range the narrow shadow reports in one piece the
			// wide one may report in two, one per region.
			if bn, bw := hitBytes(gotN, lo, hi), hitBytes(gotW, lo, hi); !slices.EqualFunc(bn, bw, sameSet) {
				t.Fatalf("round %d step %d: [%d, %d) races %v at offset 0, %v across the region boundary", round, step, lo, hi, bn, bw)
			}
		}
		for b := range size {
			en, ew := entriesAt(&narrow, b), entriesAt(&wide, base+b)
			for i := range ew {
				ew[i] = narrowOf(ew[i], wideTid, wideSite)
			}
			if !sameSet(en, ew) {
				t.Fatalf("round %d: byte %d holds %v at offset 0, %v across the region boundary", round, b, en, ew)
			}
		}
		if wide.far != nil && wide.far.regions[0] != nil {
			farSegs += wide.far.regions[0].nsegs()
		}
		if n, w := narrow.n(), wide.n(); w < n {
			t.Fatalf("round %d: %d segments across the boundary, fewer than the %d at offset 0", round, w, n)
		}
	}
	if across < 100 || farSegs < 100 {
		t.Fatalf("%d accesses crossed the region boundary, %d segments were past it: the regions are barely tested", across, farSegs)
	}
}

// touch records cur in sh as touchBytes does.
func touch(sh *shadow, lo, hi int, cur cellAcc, h *hbThread, fresh bool, race func(e cellAcc, lo, hi int)) {
	if hi > shadowRegion {
		sh.record(lo, hi, cur, h, fresh, race)
	} else if !fresh || !sh.exact(lo, hi, cur, h) && !sh.carve(lo, hi, cur, h) {
		sh.access(lo, hi, cur, h, fresh, race)
	}
}

// narrowOf maps an entry of the wide shadow to the narrow one's.
func narrowOf(e cellAcc, wideTid int32, wideSite uint32) cellAcc {
	return cellAcc{tid: e.tid - wideTid, clk: e.clk, sk: (e.site()-wideSite)<<2 | uint32(e.kind())}
}

// raceHit is a race a shadow reported: the entry, on bytes [lo, hi).
type raceHit struct {
	e      cellAcc
	lo, hi int
}

// hitBytes returns, for each byte of [lo, hi), the entries reported on it.
func hitBytes(hits []raceHit, lo, hi int) [][]cellAcc {
	out := make([][]cellAcc, hi-lo)
	for _, x := range hits {
		for b := max(x.lo, lo); b < min(x.hi, hi); b++ {
			if !slices.Contains(out[b-lo], x.e) {
				out[b-lo] = append(out[b-lo], x.e)
			}
		}
	}
	return out
}

// entriesAt returns the entries sh holds for byte b of its memory.
func entriesAt(sh *shadow, b int) []cellAcc {
	var out []cellAcc
	sh.regions(b, b+1, false, func(r *shadow, base, lo, hi int) {
		for _, seg := range r.list() {
			if int(seg.lo) <= lo && lo < int(seg.hi) {
				out = r.entries(&seg)
			}
		}
	})
	return out
}
