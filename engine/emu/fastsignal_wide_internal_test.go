package emu

import (
	"math/rand/v2"
	"testing"

	"pldworkbench/engine/ir"
)

// TestFastSignalDoubleNotify runs the traffic of the lessons' ring
// all-reduce on its signal cells [step, src] on a detector that takes
// the fast path and one that takes only the general path, comparing
// their full state after every op: each step the notifier src notifies
// its cell of every peer twice (a "ready" and a "read" notify, two nodes),
// the cell's rank waits on it after each (Ge 1, Ge 2), and at the end of
// a step or of the run the rank resets its cells with a notify of its
// own. Between those ops, now and then, another rank reads or writes a
// cell (pl.read, pl.write), a rank Sets a cell, or a join edge orders two
// ranks; and sometimes two neighbouring ops of the pattern trade places.
// The second notify finds a waited word and the later ops a wide state
// (wideSignal): the test counts that those branches ran.
func TestFastSignalDoubleNotify(t *testing.T) {
	const ranks, steps = 4, 6
	rng := rand.New(rand.NewPCG(11, 12))
	const (
		nReady = iota
		nWait1
		nRead
		nWait2
		nReset
	)
	type world struct {
		*raceWorld
		ns [5]*node
	}
	// shared gives every rank one view, as the builtin's window does,
	// else each its own equal one (a host's window per rank); oneLine puts
	// the five signal nodes on one source line, as the builtin's are, so
	// that they share the threads' site memos' slots.
	mk := func(shared, oneLine bool) world {
		var view *tref
		w := newRaceWorld(ranks, "signal", steps*ranks*4, []opKind{opRead, opWrite}, func(b *bufDesc) *tref {
			if view == nil || !shared {
				view = &tref{name: "signal", dt: ir.INT32, shape: []int{steps, ranks}, buf: b}
			}
			return view
		})
		var ns [5]*node
		for i, op := range []opKind{opNotify, opWait, opNotify, opWait, opNotify} {
			line := 10 + i
			if oneLine {
				line = 90
			}
			ns[i] = w.newNode(op, line)
		}
		return world{w, ns}
	}
	type op struct {
		i, r, cell, node int // thread, the cell's rank, the cell, the node
		set              bool
	}
	var waitedNotifies, wideNotifies, wideWaits, general int
	for trial := 0; trial < 40; trial++ {
		fast, slow := mk(trial%3 == 0, trial%5 < 2), mk(trial%3 == 0, trial%5 < 2)
		general0 := general
		noisy := trial%4 != 0 // a quarter of the runs are the pattern alone
		resetEach := trial%2 == 0
		var ops []op
		phase := func(s, nd int) {
			var ph []op
			for i := 0; i < ranks; i++ {
				for p := 0; p < ranks; p++ {
					if p == i {
						continue
					}
					switch nd {
					case nReady, nRead: // rank i notifies peer p's cell [s, i]
						ph = append(ph, op{i: i, r: p, cell: s*ranks + i, node: nd})
					case nWait1, nWait2: // rank i waits on its cell [s, p]
						ph = append(ph, op{i: i, r: i, cell: s*ranks + p, node: nd})
					case nReset: // rank i resets its cell [s, p]
						ph = append(ph, op{i: i, r: i, cell: s*ranks + p, node: nd})
					}
				}
			}
			rng.Shuffle(len(ph), func(a, b int) { ph[a], ph[b] = ph[b], ph[a] })
			ops = append(ops, ph...)
		}
		for s := 0; s < steps; s++ {
			for _, nd := range []int{nReady, nWait1, nRead, nWait2} {
				phase(s, nd)
			}
			if resetEach {
				phase(s, nReset)
			}
		}
		if !resetEach {
			for s := 0; s < steps; s++ {
				phase(s, nReset)
			}
		}
		for j := 1; j < len(ops); j++ {
			if rng.IntN(40) == 0 {
				ops[j-1], ops[j] = ops[j], ops[j-1]
			}
		}
		for step, o := range ops {
			// Now and then an op off the pattern first.
			noise := -1
			var no op
			// A plain access puts a segment in its rank's shadow, and every
			// later signal op on that rank's cells takes the general path
			// (signalFast): about one a run, at a random op.
			if noisy && rng.IntN(300) == 0 {
				noise = rng.IntN(2)
			} else if noisy && rng.IntN(15) == 0 {
				noise = 2 + rng.IntN(2)
			}
			if noise >= 0 {
				no = op{i: rng.IntN(ranks), r: rng.IntN(ranks), cell: rng.IntN(steps * ranks), node: []int{nReady, nReset}[rng.IntN(2)], set: true}
			}
			for wi, w := range []world{fast, slow} {
				d := w.d
				switch noise {
				case 0, 1: // pl.read, pl.write of rank r's cell
					k, n := accRead, w.nodes[opRead]
					if noise == 1 {
						k, n = accWrite, w.nodes[opWrite]
					}
					w.ms[no.i].touchBytes(n, w.ts[no.i], no.r, no.cell*4, no.cell*4+4, k)
				case 2: // a Set notify
					m, key := w.ms[no.i], cellKey{buf: w.b, rank: no.r, off: no.cell * 4}
					if wi == 1 || !d.fastSignal(m, w.ns[no.node], w.ts[no.i], key, m.s.lookupCell(key, true), accAtomicWrite) {
						d.release(m, d.cellAccess(m, w.ns[no.node], w.ts[no.i], key, accAtomicWrite), true)
					}
				case 3: // a join edge
					if no.i != no.r {
						d.join(&w.ms[no.i].hb, w.ms[no.r].hb.view())
					}
				}
				m, key := w.ms[o.i], cellKey{buf: w.b, rank: o.r, off: o.cell * 4}
				n, k := w.ns[o.node], accAtomicWrite
				if o.node == nWait1 || o.node == nWait2 {
					k = accAtomicRead
				}
				if wi == 0 {
					cl := m.s.lookupCell(key, true)
					before := wordOf(cl).state()
					if d.fastSignal(m, n, w.ts[o.i], key, cl, k) {
						switch {
						case before == rwWaited && k == accAtomicWrite:
							waitedNotifies++
						case before == rwWide && k == accAtomicWrite:
							wideNotifies++
						case before == rwWide:
							wideWaits++
						}
						continue
					}
					general++
				}
				if k == accAtomicRead {
					d.cellAccess(m, n, w.ts[o.i], key, k)
				} else {
					d.release(m, d.cellAccess(m, n, w.ts[o.i], key, k), o.set)
				}
			}
			if got, want := worldState(fast.d, fast.ms, fast.b), worldState(slow.d, slow.ms, slow.b); got != want {
				t.Fatalf("trial %d op %d (%+v, noise %d %+v): fast path\n%s\ngeneral path\n%s", trial, step, o, noise, no, got, want)
			}
		}
		// The first op of each node finds no site memo; nothing else of
		// the pattern alone leaves the fast path.
		if !noisy && general-general0 > 5 {
			t.Errorf("trial %d: %d of the pattern's %d ops took the general path", trial, general-general0, len(ops))
		}
	}
	// Per trial the pattern makes steps·ranks·(ranks-1) cells waited and
	// then notifies each again, waits on it and resets it.
	if waitedNotifies < 1500 || wideNotifies < 1500 || wideWaits < 1500 {
		t.Errorf("notifies of waited words %d, of wide states %d, waits on wide states %d: barely tested", waitedNotifies, wideNotifies, wideWaits)
	}
	t.Logf("notifies of waited words %d, of wide states %d, waits on wide states %d; general path %d", waitedNotifies, wideNotifies, wideWaits, general)
}
