package emu

import (
	"testing"
	"unsafe"

	"pldworkbench/engine/ir"
)

// TestWordFallbacks walks a signal cell's word through its states and
// each case that does not fit a word (a site beyond its buffer's few, an
// epoch too far from the buffer's first, a wait by another thread than
// the cell's rank thread), on a detector that takes the fast path and one
// that takes only the general path: after every op both must hold the
// same state, and the cell's word must be in the state named.
func TestWordFallbacks(t *testing.T) {
	const ranks, cells = 3, 32
	mk := func() *raceWorld {
		w := newRaceWorld(ranks, "sig", cells*4, []opKind{opNotify, opWait}, func(b *bufDesc) *tref {
			return &tref{name: "sig", dt: ir.INT32, shape: []int{cells}, buf: b}
		})
		for i := 1; i <= rwSites; i++ { // notify sites beside opNotify's
			w.nodes[opNotify+100*opKind(i)] = w.newNode(opNotify, 10+i)
		}
		return w
	}
	fast, slow := mk(), mk()
	type step struct {
		what     string
		by, cell int // a notify of rank 1's cell, or a wait on it by rank by
		wait     bool
		node     opKind
		jump     uint32 // added to the thread's epoch first
		want     raceWord
		fastPath bool
	}
	steps := []step{
		{what: "a node's first notify (no site memo yet)", by: 0, cell: 0, node: opNotify, want: rwWide},
		{what: "a notify", by: 0, cell: 1, node: opNotify, want: rwNotified, fastPath: true},
		{what: "a node's first wait", by: 1, cell: 1, wait: true, node: opWait, want: rwWide},
		{what: "a notify", by: 2, cell: 2, node: opNotify, want: rwNotified, fastPath: true},
		{what: "its wait", by: 1, cell: 2, wait: true, node: opWait, want: rwWaited, fastPath: true},
	}
	// Sites 2 to 8 of the buffer fit a word, the ninth does not.
	cell := 3
	for i := 1; i <= rwSites; i++ {
		n := opNotify + 100*opKind(i)
		steps = append(steps,
			step{what: "another node's first notify", by: 2, cell: cell, node: n, want: rwWide},
			step{what: "a notify from that site", by: 2, cell: cell + 1, node: n, want: rwNotified, fastPath: i < rwSites})
		if i == rwSites {
			steps[len(steps)-1].want = rwWide
		}
		cell += 2
	}
	steps = append(steps,
		step{what: "a wait on a notify from the eighth site", by: 1, cell: cell - 3, wait: true, node: opWait, want: rwWaited, fastPath: true},
		step{what: "a notify far in epochs", by: 0, cell: cell, node: opNotify, jump: rwBias + 3, want: rwWide},
		step{what: "a notify", by: 2, cell: cell + 1, node: opNotify, want: rwNotified, fastPath: true},
		step{what: "a wait by another rank's thread", by: 0, cell: cell + 1, wait: true, node: opWait, want: rwWide},
		step{what: "a notify", by: 2, cell: cell + 2, node: opNotify, want: rwNotified, fastPath: true},
		step{what: "a wait far in epochs", by: 1, cell: cell + 2, wait: true, node: opWait, jump: rwBias + 3, want: rwWide})
	for i, st := range steps {
		for wi, w := range []*raceWorld{fast, slow} {
			m, d := w.ms[st.by], w.d
			m.hb.own += st.jump
			key := cellKey{buf: w.b, rank: 1, off: st.cell * 4}
			n := w.nodes[st.node]
			k := accAtomicWrite
			if st.wait {
				k = accAtomicRead
			}
			took := wi == 0 && d.fastSignal(m, n, w.ts[st.by], key, m.s.lookupCell(key, true), k)
			if !took {
				c := d.cellAccess(m, n, w.ts[st.by], key, k)
				if !st.wait {
					d.release(m, c, false)
				}
			}
			if wi == 0 {
				if took != st.fastPath {
					t.Errorf("step %d (%s): fast path %v, want %v", i, st.what, took, st.fastPath)
				}
				if got := wordOf(m.s.lookupCell(key, false)).state(); got != st.want {
					t.Errorf("step %d (%s): word state %d, want %d", i, st.what, got, st.want)
				}
			}
		}
		if got, want := worldState(fast.d, fast.ms, fast.b), worldState(slow.d, slow.ms, slow.b); got != want {
			t.Fatalf("step %d (%s): fast path\n%s\ngeneral path\n%s", i, st.what, got, want)
		}
	}
}

// TestWordGenerations: a word keeps only the low bits of its dispatch,
// so the detector empties every word when those wrap. A cell waited on in
// dispatch 1 reads as empty in each later one, 2¹⁰ and 2¹¹ joins later
// too (when its bits name a current dispatch again), and takes a fresh
// notify; a wide state of an earlier dispatch is given back by the next
// fast op.
func TestWordGenerations(t *testing.T) {
	w := newRaceWorld(2, "ready", 2*4, []opKind{opNotify, opWait}, func(b *bufDesc) *tref {
		return &tref{name: "ready", dt: ir.INT32, shape: []int{2}, buf: b}
	})
	d, s := w.d, w.ms[0].s
	join := func() {
		for _, sh := range d.all {
			d.dropClocks(sh)
			sh.reset()
		}
		d.nextGen(s)
	}
	signal := func(by, cell int, k accessKind) bool {
		key := cellKey{buf: w.b, rank: 1, off: cell * 4}
		n := w.nodes[opNotify]
		if k == accAtomicRead {
			n = w.nodes[opWait]
		}
		m := w.ms[by]
		if d.fastSignal(m, n, w.ts[by], key, s.lookupCell(key, true), k) {
			return true
		}
		c := d.cellAccess(m, n, w.ts[by], key, k)
		if k == accAtomicWrite {
			d.release(m, c, false)
		}
		return false
	}
	// Cell 0 goes wide (the nodes' first ops), cell 1 is waited on.
	signal(0, 0, accAtomicWrite)
	signal(1, 0, accAtomicRead)
	if !signal(0, 1, accAtomicWrite) || !signal(1, 1, accAtomicRead) {
		t.Fatal("the fast path did not take cell 1's notify and wait")
	}
	cl0, cl1 := s.lookupCell(cellKey{buf: w.b, rank: 1, off: 0}, false), s.lookupCell(cellKey{buf: w.b, rank: 1, off: 4}, false)
	if wordOf(cl0).state() != rwWide || wordOf(cl1).state() != rwWaited {
		t.Fatalf("words %x %x, want wide and waited", *wordOf(cl0), *wordOf(cl1))
	}
	sh := w.b.shadows[1]
	for g := 2; g <= 2<<rwGenBits+1; g++ {
		join()
		if c := d.stateAt(s, sh, 4); c != nil {
			t.Fatalf("dispatch %d: the waited word of dispatch 1 reads as %+v", d.gen, *c)
		}
	}
	if d.stateAt(s, sh, 0) != nil {
		t.Error("a wide state of dispatch 1 reads as current")
	}
	if !signal(0, 1, accAtomicWrite) || wordOf(cl1).state() != rwNotified {
		t.Errorf("a fresh notify of the cleared cell: word %x, want notified by the fast path", *wordOf(cl1))
	}
	free := len(d.wides.free)
	if !signal(0, 0, accAtomicWrite) || wordOf(cl0).state() != rwNotified || len(d.wides.free) != free+1 {
		t.Errorf("a notify of the stale wide cell: word %x, %d free wide states (were %d); want notified and one given back", *wordOf(cl0), len(d.wides.free), free)
	}
	if d.cellClocks != 2 {
		t.Errorf("%d cells hold a clock, want 2", d.cellClocks)
	}
}

// TestThreadOnALine keeps what a signal op's fast path reads of a
// machine's happens-before state (tid to priv) on one cache line, the one
// machine's layout gives it (beside parent: see TestPlainMemoLines).
func TestThreadOnALine(t *testing.T) {
	var ms []*machine
	for range 8 {
		ms = append(ms, &machine{rank: len(ms)})
	}
	for _, m := range ms {
		first := uintptr(unsafe.Pointer(&m.hb.tid))
		last := uintptr(unsafe.Pointer(&m.hb.priv)) + unsafe.Sizeof(m.hb.priv) - 1
		if first/64 != last/64 {
			t.Fatalf("a machine's hb.tid to hb.priv span %#x-%#x, two cache lines", first, last)
		}
	}
}
