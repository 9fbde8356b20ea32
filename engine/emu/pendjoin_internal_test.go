package emu

import (
	"math/rand/v2"
	"testing"

	"pldworkbench/engine/ir"
)

// TestPendingJoinsMatchGeneral runs barriers among more ranks than a pend
// buffer holds on two detectors, one through the signal fast path (whose
// waits leave their joins pending), the other through the general path
// only, in a random order of the ranks' steps, with now and then a read
// of a rank's clock (which flushes) or a join edge between two ranks
// between them. Every rank's clock and every cell's state must be the
// same at the end of each barrier, and the fast side must have filled a
// pend buffer (its flush at pendLen) and left joins pending between
// steps, so that both ways to a flush are taken; and many waits must
// have taken waitLeaf.
func TestPendingJoinsMatchGeneral(t *testing.T) {
	const ranks = 2*pendLen + 5
	rng := rand.New(rand.NewPCG(16, 1024))
	mk := func() *raceWorld {
		// One view for every rank, as a window the host makes is passed
		// to all of them (the fast path then finds its site on the node).
		var view *tref
		return newRaceWorld(ranks, "ready", ranks*4, []opKind{opNotify, opWait}, func(b *bufDesc) *tref {
			if view == nil {
				view = &tref{name: "ready", dt: ir.INT32, shape: []int{ranks}, buf: b}
			}
			return view
		})
	}
	full, pending, leaves, waits, runs := false, false, 0, 0, 0
	// Rank r's program: notify element r of every other rank's cells,
	// then wait on element p of its own for every other p once p has
	// notified it. The first pair of worlds notifies in the order of the
	// ranks, as a barrier does (a wait's join then most often extends
	// its pending run), the second each rank in an order of its own
	// (most joins then start a run, and fill the buffer).
	for _, shuffled := range []bool{false, true} {
		fast, slow := mk(), mk()
		for round := 0; round < 4; round++ {
			order := make([][]int, ranks) // rank i's notifies, pos their order
			pos := make([][]int, ranks)
			for i := range order {
				order[i], pos[i] = make([]int, ranks), make([]int, ranks)
				for k := range order[i] {
					order[i][k] = k
				}
				if shuffled {
					rng.Shuffle(ranks, func(a, b int) { order[i][a], order[i][b] = order[i][b], order[i][a] })
				}
				for k, p := range order[i] {
					pos[i][p] = k
				}
			}
			pc := make([]int, ranks)
			done := 0
			for done < ranks {
				i := rng.IntN(ranks)
				if pc[i] == 2*ranks {
					continue
				}
				p := pc[i] % ranks
				if pc[i] < ranks {
					p = order[i][pc[i]]
				}
				if p == i {
					pc[i]++
					if pc[i] == 2*ranks {
						done++
					}
					continue
				}
				waiting := pc[i] >= ranks
				if waiting && pc[p] <= pos[p][i] { // p has not notified i yet
					continue
				}
				pc[i]++
				if pc[i] == 2*ranks {
					done++
				}
				extra := rng.IntN(300)
				j := rng.IntN(ranks)
				for wi, w := range []*raceWorld{fast, slow} {
					m, d := w.ms[i], w.d
					if !waiting {
						key := cellKey{buf: w.b, rank: p, off: i * 4}
						if wi == 1 || !d.fastNotify(m, w.nodes[opNotify], w.ts[i], key, m.s.lookupCell(key, true)) {
							d.release(m, d.cellAccess(m, w.nodes[opNotify], w.ts[i], key, accAtomicWrite), false)
						}
					} else {
						key := cellKey{buf: w.b, rank: i, off: p * 4}
						// fastWait, its two tiers counted apart.
						cl := m.s.lookupCell(key, true)
						leaf := wi == 0 && d.waitLeaf(m, w.nodes[opWait], w.ts[i], &key, cl)
						if leaf {
							leaves++
						}
						if wi == 1 || !leaf && !d.waitFast(m, w.nodes[opWait], w.ts[i], &key, cl, false) {
							d.cellAccess(m, w.nodes[opWait], w.ts[i], key, accAtomicRead)
						}
						if wi == 0 {
							waits++
							if m.hb.npend == pendLen-1 {
								full = true // the next fast wait flushes a full buffer
							}
							if m.hb.npend > 0 {
								pending = true
								if m.hb.run > 0 {
									runs++
								}
							}
						}
					}
					switch {
					case extra == 0: // a read of the clock, which flushes
						m.hb.at(int32(j))
					case extra == 1 && j != i: // a join edge from thread j
						d.join(&m.hb, w.ms[j].hb.view())
					}
				}
			}
			if got, want := worldState(fast.d, fast.ms, fast.b), worldState(slow.d, slow.ms, slow.b); got != want {
				t.Fatalf("shuffled %v, round %d: fast path\n%s\ngeneral path\n%s", shuffled, round, got, want)
			}
		}
	}
	if !full || !pending || runs < waits/16 {
		t.Fatalf("a full pend buffer: %v, joins left pending between steps: %v, %d of %d waits left a run of joins pending; want both, and runs", full, pending, runs, waits)
	}
	// join's O(1) case is a wait on the clock the ranks start on, which
	// the first round's notifies publish (a dispatch would fork them on a
	// new one each round); there a rank's first wait, after its notifies
	// published its base, finds priv unset and takes waitFast, most
	// others the leaf.
	if leaves < waits/8 {
		t.Errorf("%d of %d waits took waitLeaf: barely tested", leaves, waits)
	}
	t.Logf("%d of %d waits took waitLeaf, %d left a run pending", leaves, waits, runs)
}

// TestPendRunsMatchJoins adds random joins to a thread's pend buffer,
// most of them a run's next (the next tid at the same epoch, as a
// barrier's), some not, through pendAdd, and checks that its base, once
// flushed (at random times too), is what the joins written one by one
// give; and that pend[0], while anything is pending, is a join the
// thread made (knows reads it).
func TestPendRunsMatchJoins(t *testing.T) {
	const n = 600
	rng := rand.New(rand.NewPCG(7, 300))
	full, longest := false, false
	for round := 0; round < 200; round++ {
		h := &hbThread{tid: n, base: &vclock{v: make([]uint32, n)}}
		want := make([]uint32, n)
		for i := range want {
			want[i] = uint32(rng.IntN(8))
			h.base.v[i] = want[i]
		}
		made := map[pendJoin]bool{}
		tid, clk := int32(rng.IntN(n)), uint32(rng.IntN(8))
		next := 800 // in 1000: a run's next; every other round's runs reach pendRunMax
		if round%2 == 1 {
			next = 998
		}
		for step := 0; step < 2000; step++ {
			switch r := rng.IntN(1000); {
			case r < next && tid+1 < n: // a run's next
				if h.npend > 0 && h.run == pendRunMax {
					longest = true
				}
				tid++
			case r < next+(1000-next)/2:
				tid, clk = int32(rng.IntN(n)), uint32(rng.IntN(8))
			default:
				tid = int32(rng.IntN(n))
			}
			h.pendAdd(tid, clk)
			want[tid] = max(want[tid], clk)
			made[pendJoin{tid: tid, own: clk}] = true
			if !made[h.pend[0]] || h.npend == 0 || h.npend > pendLen {
				t.Fatalf("round %d step %d: pend[0] %v (npend %d), not a join made", round, step, h.pend[0], h.npend)
			}
			if h.npend == pendLen {
				full = true
			}
			if rng.IntN(300) == 0 {
				h.flush()
			}
		}
		h.flush()
		for i := range want {
			if h.base.v[i] != want[i] {
				t.Fatalf("round %d: entry %d is %d, want %d", round, i, h.base.v[i], want[i])
			}
		}
	}
	if !full || !longest {
		t.Fatalf("a full buffer: %v, a run of pendRunMax: %v; want both", full, longest)
	}
}
