package emu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pldworkbench/engine/ir"
)

// TestCarveGrowth checks reserveCarve on a ring's pattern: a window
// written whole, then read a chunk at a time from its end down, each read
// carved out of what is left of the write. The list grows twice (8,
// then room for the rest), not once per doubling, ends with
// one segment per chunk and room for no more than the chunks left when
// it last grew, and holds what the general path (touchShadow) makes of
// the same accesses.
func TestCarveGrowth(t *testing.T) {
	const cols = 1024 // FP32, 4 per chunk: 256 chunks
	const chunk = 4
	var states [2]string
	for x, general := range []bool{false, true} {
		w, m, touch := rowTouchWorld(cols, general)
		touch(0, 0, cols)
		sh := w.b.shadows[0]
		var caps []int
		for c := cols - chunk; c >= 0; c -= chunk {
			m.hb.released = true
			touch(1, c, chunk)
			if len(caps) == 0 || caps[len(caps)-1] != len(sh.segs) {
				caps = append(caps, len(sh.segs))
			}
		}
		if n := sh.nsegs(); n != cols/chunk {
			t.Fatalf("general=%v: %d segments, want %d", general, n, cols/chunk)
		}
		if want := []int{8, 256}; !slices.Equal(caps, want) {
			t.Errorf("general=%v: the list's room grew %v, want %v", general, caps, want)
		}
		states[x] = shadowsState(w)
	}
	if states[0] != states[1] {
		t.Fatalf("touch:       %s\ntouchShadow: %s", states[0], states[1])
	}
}

// TestCarveRoomBound checks that a carve's guess of the carves to come
// grows a full list by at most carveRoom: a carve of one byte that
// leaves a piece of 1 MiB - 1 bytes makes room for carveRoom(n) more
// segments (32n+32, at most 1 K), not a million.
func TestCarveRoomBound(t *testing.T) {
	s := &shadow{}
	s.insert(0, segment{lo: 0, hi: 1 << 20, acc: [segInline]segAcc{{tid: 0, sk: 1, clk: 1}}})
	for s.gapLen > 0 {
		s.insert(s.nsegs(), segment{lo: 1<<20 + int32(s.nsegs()), hi: 1<<20 + int32(s.nsegs()) + 1})
	}
	n := s.nsegs()
	s.reserveCarve(1, 1, 1<<20-1, 1) // one piece left, of 1 MiB - 1 one-byte pieces
	if got, want := len(s.segs), n+1+carveRoom(n); got != want {
		t.Fatalf("room for %d segments after a carve's reserve at %d, want %d", got, n, want)
	}
	if carveRoom(1<<20) != 1<<10 {
		t.Fatalf("carveRoom(1<<20) = %d, want %d", carveRoom(1<<20), 1<<10)
	}
}

// TestResetLeavesHole checks that a shadow reset after a ring's carves,
// its old segments left in the hole, records a random run of accesses by
// two threads as a new shadow does: the same segments and entries, the
// same races.
func TestResetLeavesHole(t *testing.T) {
	const cols = 64
	view := func(b *bufDesc) *tref {
		return &tref{name: "w", dt: ir.FP32, shape: []int{1, cols}, buf: b}
	}
	ops := []opKind{opWrite, opRead}
	kinds := []accessKind{accWrite, accRead}
	type acc struct{ r, j, c, e int }
	rng := rand.New(rand.NewPCG(7, 11))
	var run []acc
	for range 400 {
		c := rng.IntN(cols)
		run = append(run, acc{rng.IntN(2), rng.IntN(2), c, 1 + rng.IntN(cols-c)})
	}
	var states [2]string
	fresh, reset, freshNodes, resetNodes := twinWorlds(2, cols*4, ops, view)
	for x, reused := range []bool{false, true} {
		w, nodes := fresh, freshNodes
		if reused {
			w, nodes = reset, resetNodes
		}
		touch := func(a acc) {
			m := w.ms[a.r]
			m.touch(nodes[a.j], w.ts[a.r], 0, []int{0, a.c}, []int{1, a.e}, kinds[a.j])
			m.hb.released = true
		}
		// Both worlds run the carves, so that their threads' epochs and
		// memos agree; the fresh one then starts over on a new shadow.
		touch(acc{0, 0, 0, cols})
		for c := cols - 1; c >= 0; c-- {
			touch(acc{0, 1, c, 1})
		}
		if reused {
			w.b.shadows[0].reset()
		} else {
			w.b.shadows[0] = nil
			w.b.race = bufRace{}
		}
		w.d.races, w.d.seen = nil, map[raceKey]bool{}
		for _, a := range run {
			touch(a)
		}
		states[x] = shadowsState(w)
	}
	if states[0] != states[1] {
		t.Fatalf("fresh: %s\nreset: %s", states[0], states[1])
	}
}
