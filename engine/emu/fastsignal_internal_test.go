package emu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"pldworkbench/engine/ir"
)

// TestFastSignalMatchesGeneral runs random notifies (Set and AtomicAdd),
// waits, plain reads and writes of signal cells, own accesses and direct
// joins among three ranks on two detectors: one takes fastSignal where
// it applies, as notify and waitOp do, the other only the general path
// (cellAccess, release). The fast path is only a saving, so after every
// step both must hold the same clocks, the same cell accesses and clocks
// (in the same order), the same count of cells holding a clock, and have
// reported the same races.
func TestFastSignalMatchesGeneral(t *testing.T) {
	const ranks, cells = 3, 4
	rng := rand.New(rand.NewPCG(7, 8))
	mk := func() *raceWorld {
		// A view per rank, as a host that makes its window in its
		// dispatch loop gives: equal views, which share their sites
		// (sameView), so the fast path finds them on the node.
		return newRaceWorld(ranks, "sig", cells*4, []opKind{opNotify, opWait, opRead, opWrite}, func(b *bufDesc) *tref {
			return &tref{name: "sig", dt: ir.INT32, shape: []int{cells}, buf: b}
		})
	}
	fastHits, waited := 0, 0
	for round := 0; round < 300; round++ {
		fast, slow := mk(), mk()
		// A second notify site: a cell it notifies cannot share its
		// buffer's site in its word and takes the general path.
		for _, w := range []*raceWorld{fast, slow} {
			w.nodes[opNotify+100] = w.newNode(opNotify, 9)
		}
		for step := 0; step < 80; step++ {
			i, c, r := rng.IntN(ranks), rng.IntN(cells), rng.IntN(ranks)
			op := rng.IntN(12)
			set := rng.IntN(3) == 0
			j := rng.IntN(ranks)
			other := rng.IntN(8) == 0
			jump := rng.IntN(4) == 0
			for wi, w := range []*raceWorld{fast, slow} {
				m, d := w.ms[i], w.d
				switch {
				case op < 5: // notify rank r's cell c
					key := cellKey{buf: w.b, rank: r, off: c * 4}
					n := w.nodes[opNotify]
					if other {
						n = w.nodes[opNotify+100]
					}
					if wi == 0 && d.fastSignal(m, n, w.ts[i], key, m.s.lookupCell(key, true), accAtomicWrite) {
						fastHits++
					} else {
						d.release(m, d.cellAccess(m, n, w.ts[i], key, accAtomicWrite), set)
					}
				case op < 10: // a wait on the own cell c that passed
					key := cellKey{buf: w.b, rank: i, off: c * 4}
					if wi == 0 && d.fastSignal(m, w.nodes[opWait], w.ts[i], key, m.s.lookupCell(key, true), accAtomicRead) {
						fastHits++
						if wordOf(m.s.lookupCell(key, false)).state() == rwWaited {
							waited++
						}
					} else {
						d.cellAccess(m, w.nodes[opWait], w.ts[i], key, accAtomicRead)
					}
				case op == 10: // pl.read or pl.write of rank r's cell c
					k, n := accRead, w.nodes[opRead]
					if set {
						k, n = accWrite, w.nodes[opWrite]
					}
					m.touchBytes(n, w.ts[i], r, c*4, c*4+4, k)
				default: // a join edge from thread j, or an own access
					if j != i {
						d.join(&m.hb, w.ms[j].hb.view())
					} else if m.hb.epoch(); jump {
						// Many epochs later: past what a word's offsets
						// from its buffer's first epochs reach.
						m.hb.own += rwBias / 2
					}
				}
			}
			if got, want := worldState(fast.d, fast.ms, fast.b), worldState(slow.d, slow.ms, slow.b); got != want {
				t.Fatalf("round %d step %d: fast path\n%s\ngeneral path\n%s", round, step, got, want)
			}
		}
	}
	// The words' states and their fallbacks are what is compared: most
	// ops must take the fast path, and many waits end in a waited word.
	if fastHits < 500 || waited < 100 {
		t.Errorf("the fast path applied %d times, %d of them waits ending waited: barely tested", fastHits, waited)
	}
	t.Logf("fast path %d times, %d waited words", fastHits, waited)
}

// raceWorld is a detector and its rank machines with their views of one
// signal buffer: the tests that run the fast and the general path side by
// side build one of each.
type raceWorld struct {
	d  *detector
	ms []*machine
	b  *bufDesc
	ts []*tref
	// nodes are the world's own: a node belongs to one run.
	nodes map[opKind]*node
}

// raceOps names the ops the side-by-side tests use.
var raceOps = map[opKind]*ir.Op{opNotify: {Name: "pld.system.notify"}, opWait: {Name: "pld.system.wait"}, opRead: {Name: "pl.read"}, opWrite: {Name: "pl.write"}}

// newRaceWorld makes a raceWorld of ranks machines on a fresh detector,
// a node for each of ops (line i+1 for the i-th) and a buffer name of size
// bytes; view gives each rank's view of it, in rank order.
func newRaceWorld(ranks int, name string, size int, ops []opKind, view func(b *bufDesc) *tref) *raceWorld {
	w := &raceWorld{d: &detector{seen: map[raceKey]bool{}, siteIDs: map[site]uint32{}, gen: 1}}
	s := &sim{P: ranks, race: w.d}
	w.nodes = map[opKind]*node{}
	for i, op := range ops {
		w.nodes[op] = w.newNode(op, i+1)
	}
	w.b = &bufDesc{name: name, size: size}
	zero := &vclock{v: make([]uint32, ranks)}
	for r := 0; r < ranks; r++ {
		w.d.who = append(w.d.who, threadInfo{rank: r})
		zero.refs++
		w.ms = append(w.ms, &machine{s: s, rank: r, hb: hbThread{tid: int32(r), own: 1, base: zero}})
		w.ts = append(w.ts, view(w.b))
	}
	return w
}

// newNode makes a node of op at line for w's run, numbered as
// compileProgram numbers a signal op (node.sig), with its site memo in
// w.d.nodeSites.
func (w *raceWorld) newNode(op opKind, line int) *node {
	w.d.nodeSites = append(w.d.nodeSites, nodeSite{})
	return &node{op: op, irop: raceOps[op], span: ir.Span{Line: line}, sig: int32(len(w.d.nodeSites))}
}

// worldState renders every clock, every cell's accesses and clocks, the
// count of cells holding a clock and the races of d.
func worldState(d *detector, ms []*machine, b *bufDesc) string {
	s := ""
	for _, m := range ms {
		s += fmt.Sprintf("t%d own %d:", m.hb.tid, m.hb.own)
		for u := range ms {
			s += fmt.Sprintf(" %d", m.hb.at(int32(u)))
		}
		s += "\n"
	}
	for r, sh := range b.shadows {
		if sh == nil {
			continue
		}
		for x := 0; x < b.size; x += 4 {
			c := d.peekState(ms[0].s, sh, x)
			if c == nil {
				continue
			}
			s += fmt.Sprintf("rank %d cell %d: accs %v clocks", r, x/4, d.accs(c, nil))
			for _, sn := range d.snaps(c, nil) {
				s += fmt.Sprintf(" (%d %d %v)", sn.tid, sn.own, slices.Clone(sn.base.v))
			}
			s += "\n"
		}
	}
	s += fmt.Sprintf("cells with clocks %d\n", d.cellClocks)
	for _, race := range d.races {
		s += race.Message + "\n"
	}
	return s
}

// peekState is stateAt without making a word wide: a word's state is
// decoded into a copy, so that showing it does not change which path
// the next op on the cell takes.
func (d *detector) peekState(s *sim, sh *shadow, x int) *cellRace {
	if sh.buf != nil && x%cellGrain == 0 {
		if c := s.lookupCell(cellKey{buf: sh.buf, rank: sh.rank, off: sh.buf.off + x}, false); c != nil {
			if w := *wordOf(c); w.current(d.gen) {
				rc := d.decode(w, sh.buf, sh.rank)
				return &rc
			}
		}
	}
	return d.stateAt(s, sh, x)
}

// fastSignal is the signal fast path by kind: fastNotify for a notify
// (accAtomicWrite), fastWait for a wait (accAtomicRead).
func (d *detector) fastSignal(m *machine, n *node, t *tref, key cellKey, cl *cell, k accessKind) bool {
	if k == accAtomicWrite {
		return d.fastNotify(m, n, t, key, cl)
	}
	return d.fastWait(m, n, t, key, cl)
}

// TestEqualViewsShareSites: views equal in what a report reads of them
// (a host's pld.window made once per rank) get one site per node, and the
// node's memo serves every one of them; a view that differs (another
// offset, shape or name) gets its own.
func TestEqualViewsShareSites(t *testing.T) {
	d := &detector{siteIDs: map[site]uint32{}, nodeSites: make([]nodeSite, 1)}
	b := &bufDesc{name: "sig", size: 64}
	n := &node{op: opWait, span: ir.Span{Line: 3}, sig: 1}
	mk := func(name string, off int, shape ...int) *tref {
		return &tref{name: name, dt: ir.INT32, shape: shape, off: off, buf: b}
	}
	var h1, h2 hbThread
	a, a2 := mk("sig", 0, 4, 4), mk("sig", 0, 4, 4)
	id := d.siteOf(&h1, n, a, accAtomicRead)
	if got := d.siteOf(&h2, n, a2, accAtomicRead); got != id {
		t.Errorf("an equal view got site %d, want %d", got, id)
	}
	if v := d.sites[id].view; v != a {
		t.Errorf("the site names view %p, want the first one met %p", v, a)
	}
	for _, other := range []*tref{mk("sig", 16, 4, 4), mk("sig", 0, 16), mk("ready", 0, 4, 4)} {
		if got := d.siteOf(&h2, n, other, accAtomicRead); got == id {
			t.Errorf("view %s at %d %v shares site %d with %s %v", other.name, other.off, other.shape, id, a.name, a.shape)
		}
	}
	*d.nodeSite(n) = nodeSite{view: a, id: id, k: accAtomicRead}
	if !sameView(d.nodeSite(n).view, a2) || sameView(a, mk("sig", 4, 4, 4)) {
		t.Error("sameView disagrees with the sites")
	}
}
