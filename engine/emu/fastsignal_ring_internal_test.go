package emu

import (
	"math/rand/v2"
	"testing"

	"pldworkbench/engine/ir"
)

// TestFastSignalRingCopyJoins runs ring traffic, each rank notifying its
// right neighbour's cell of the round and then waiting on its own, on a
// detector that takes the fast path and one that takes only the general
// path: after every op both must hold the same state. From a rank's
// second wait on, its base is a copy of its left neighbour's clock, so
// the fast path's wait makes the copy join itself (signalFast calls
// joinCopy, not join, or waitLeaf takes the copy) where the general path
// goes through acquire and join; the first waits, on the ranks' shared
// fork clock, take join.
func TestFastSignalRingCopyJoins(t *testing.T) {
	const ranks, rounds = 4, 12
	rng := rand.New(rand.NewPCG(9, 10))
	// A view per rank (a window the host makes in its dispatch loop:
	// equal views), and one view all ranks share (made once: the ops take
	// the second tier and the leaves, waitLeaf's take among them).
	var shared bool
	mk := func() *raceWorld {
		var view *tref
		return newRaceWorld(ranks, "sig", rounds*4, []opKind{opNotify, opWait}, func(b *bufDesc) *tref {
			if view == nil || !shared {
				view = &tref{name: "sig", dt: ir.INT32, shape: []int{rounds}, buf: b}
			}
			return view
		})
	}
	fastWaits, leafTakes := 0, 0
	for trial := 0; trial < 40; trial++ {
		shared = trial%2 == 1
		fast, slow := mk(), mk()
		// Each world's first notify and first wait set their nodes' site
		// memos on the general path; a rank of its own does them here, on
		// cells the ring does not use, so that the ring's ops all find
		// their sites.
		for _, w := range []*raceWorld{fast, slow} {
			w.b.size += 4
			key := cellKey{buf: w.b, rank: 0, off: rounds * 4}
			m := w.ms[1]
			w.d.release(m, w.d.cellAccess(m, w.nodes[opNotify], w.ts[1], key, accAtomicWrite), false)
			w.d.cellAccess(w.ms[0], w.nodes[opWait], w.ts[0], key, accAtomicRead)
		}
		for round := 0; round < rounds; round++ {
			order := rng.Perm(ranks)
			if shared && rng.IntN(2) == 0 {
				// The ranks in turn round the ring, from a random one: a
				// rank then waits after its left neighbour, which has let
				// go of the clock it published, and before its right one,
				// which has not yet taken its own: a take, in waitLeaf.
				for k := range order {
					order[k] = (order[0] + k) % ranks
				}
			}
			for phase := 0; phase < 2; phase++ {
				for _, i := range order {
					wait := phase == 1
					for wi, w := range []*raceWorld{fast, slow} {
						m, d := w.ms[i], w.d
						r := (i + 1) % ranks
						k, n := accAtomicWrite, w.nodes[opNotify]
						if wait {
							r, k, n = i, accAtomicRead, w.nodes[opWait]
						}
						key := cellKey{buf: w.b, rank: r, off: round * 4}
						if wi == 0 && d.fastSignal(m, n, w.ts[i], key, m.s.lookupCell(key, true), k) {
							if wait {
								fastWaits++
							}
							continue
						}
						if wi == 0 {
							t.Fatalf("trial %d round %d: rank %d's %v took the general path", trial, round, i, k)
						}
						if wait {
							d.cellAccess(m, n, w.ts[i], key, k)
						} else {
							d.release(m, d.cellAccess(m, n, w.ts[i], key, k), false)
						}
					}
					if got, want := worldState(fast.d, fast.ms, fast.b), worldState(slow.d, slow.ms, slow.b); got != want {
						t.Fatalf("trial %d round %d rank %d: fast path\n%s\ngeneral path\n%s", trial, round, i, got, want)
					}
				}
			}
		}
		// Many waits find their neighbour's epoch known already: those
		// join nothing.
		leafTakes += fast.d.leafTakes
		if fast.d.copyJoinCount() < 2*ranks {
			t.Errorf("trial %d: %d copy joins on the fast path, want at least %d", trial, fast.d.copyJoinCount(), 2*ranks)
		}
	}
	if leafTakes == 0 {
		t.Errorf("no wait took its copy in waitLeaf")
	}
	t.Logf("%d waits took their copy in waitLeaf", leafTakes)
	if fastWaits != 40*ranks*rounds {
		t.Errorf("%d waits took the fast path, want %d", fastWaits, 40*ranks*rounds)
	}
}
