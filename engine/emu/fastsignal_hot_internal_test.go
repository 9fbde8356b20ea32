package emu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"pldworkbench/engine/ir"
)

// TestHotSignalMatchesGeneral runs random signal traffic on one view all
// ranks share (a host's window, whose ops take notifyFast and waitFast
// once signalFast has noted them in the buffer's references) on two
// detectors: one through notifyLeaf and waitLeaf, else notifyFast and
// waitFast, as notify and waitOp call them (onNotify, onWait), the other
// through the general path only. Among the ops are
// two nodes of each kind (so that the buffer's one noted node of a kind
// changes), second notifies and waits of a cell (wide words), waits by
// another thread, plain reads and writes of the cells (the buffer's plain
// flag), epochs far apart (words that do not fit), join edges and
// dispatch joins (the references start over). After every step both must
// hold the same clocks, the same cell states and races; and most ops must
// have found their node noted, the case the test is for, and many of
// them taken the leaves. (Its waits rarely find the leaves' cases: a
// barrier's waits take them in TestPendingJoinsMatchGeneral, a ring's in
// TestRingFastPathMatchesGeneral.)
func TestHotSignalMatchesGeneral(t *testing.T) {
	const ranks, cells = 4, 8
	rng := rand.New(rand.NewPCG(21, 22))
	mk := func() *raceWorld {
		var view *tref
		w := newRaceWorld(ranks, "sig", cells*4, []opKind{opNotify, opWait, opRead, opWrite}, func(b *bufDesc) *tref {
			if view == nil {
				view = &tref{name: "sig", dt: ir.INT32, shape: []int{cells}, buf: b}
			}
			return view
		})
		w.nodes[opNotify+100] = w.newNode(opNotify, 9)
		w.nodes[opNotify+100].sigSet = true
		w.nodes[opWait+100] = w.newNode(opWait, 10)
		return w
	}
	hotHits, hotOps, leafHits, notifyLeaves := 0, 0, 0, 0
	for round := 0; round < 200; round++ {
		hot, slow := mk(), mk()
		for step := 0; step < 120; step++ {
			// A barrier's cells mostly: rank i notifies element i of a
			// peer's cells and waits on element p of its own.
			i, r := rng.IntN(ranks), rng.IntN(ranks)
			c := (i + ranks*rng.IntN(2)) % cells
			op := rng.IntN(48)
			if op >= 10 && op < 20 {
				c = (r + ranks*rng.IntN(2)) % cells
			}
			other := rng.IntN(10) == 0
			j := rng.IntN(ranks)
			jump := rng.IntN(16) == 0
			for wi, w := range []*raceWorld{hot, slow} {
				m, d := w.ms[i], w.d
				switch {
				case op < 10 || op >= 24: // rank i notifies rank r's cell c
					key := cellKey{buf: w.b, rank: r, off: c * 4}
					n := w.nodes[opNotify]
					if other {
						n = w.nodes[opNotify+100]
					}
					if wi == 0 {
						noted := w.b.sig.hot[accAtomicWrite&1].n == n && w.b.sig.hot[accAtomicWrite&1].t == w.ts[i]
						// onNotify, its two tiers counted apart.
						cl := m.s.lookupCell(key, true)
						if d.notifyLeaf(m, n, w.ts[i], key, cl) {
							leafHits++
							notifyLeaves++
							hotHits++
						} else if d.notifyFast(m, n, w.ts[i], key, cl, true) && noted {
							hotHits++
						}
						hotOps++
						continue
					}
					d.release(m, d.cellAccess(m, n, w.ts[i], key, accAtomicWrite), n.sigSet)
				case op < 20: // a wait of rank i (or now and then a block of it: another thread) on its cell c
					key := cellKey{buf: w.b, rank: i, off: c * 4}
					if other {
						key.rank = r
					}
					n := w.nodes[opWait]
					if (c+step)%5 == 0 {
						n = w.nodes[opWait+100]
					}
					if wi == 0 {
						noted := w.b.sig.hot[accAtomicRead&1].n == n && w.b.sig.hot[accAtomicRead&1].t == w.ts[i]
						cl := m.s.lookupCell(key, true)
						if d.waitLeaf(m, n, w.ts[i], &key, cl) {
							leafHits++
							hotHits++
						} else if d.waitFast(m, n, w.ts[i], &key, cl, true) && noted {
							hotHits++
						}
						hotOps++
						continue
					}
					d.cellAccess(m, n, w.ts[i], key, accAtomicRead)
				case op == 20 && other: // pl.read or pl.write of rank r's cell c
					k, n := accRead, w.nodes[opRead]
					if other {
						k, n = accWrite, w.nodes[opWrite]
					}
					m.touchBytes(n, w.ts[i], r, c*4, c*4+4, k)
				case op == 21: // a dispatch join, as joinRanks makes it for the cells
					for _, sh := range d.all {
						d.dropClocks(sh)
						sh.reset()
					}
					d.nextGen(m.s)
				default: // a join edge from thread j, or an own access
					if j != i {
						d.join(&m.hb, w.ms[j].hb.view())
					} else if m.hb.epoch(); jump {
						m.hb.own += rwBias / 2
					}
				}
			}
			if got, want := worldState(hot.d, hot.ms, hot.b)+holds(hot), worldState(slow.d, slow.ms, slow.b)+holds(slow); got != want {
				t.Fatalf("round %d step %d: fast path\n%s\ngeneral path\n%s", round, step, got, want)
			}
		}
	}
	if hotHits < hotOps/3 {
		t.Errorf("%d of %d signal ops found their node noted and took the fast path: barely tested", hotHits, hotOps)
	}
	if leafHits < hotHits/4 {
		t.Errorf("%d of the %d ops on the noted path took notifyLeaf or waitLeaf: barely tested", leafHits, hotHits)
	}
	t.Logf("%d of %d signal ops on the noted path, %d of them on the leaves (%d notifies)", hotHits, hotOps, leafHits, notifyLeaves)
}

// holds renders the holds on the threads' vclocks and the detector's
// spare ones: a fast path that let go of a clock the general path keeps
// (or kept one it lets go of) differs here.
func holds(w *raceWorld) string {
	s := ""
	for _, m := range w.ms {
		s += fmt.Sprintf("t%d base held %d", m.hb.tid, m.hb.base.refs)
		if m.hb.from != nil {
			s += fmt.Sprintf(", from held %d", m.hb.from.refs)
		}
		s += "\n"
	}
	return s + fmt.Sprintf("%d spare vclocks\n", len(w.d.pool))
}
