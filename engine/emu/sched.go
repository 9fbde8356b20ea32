package emu

import (
	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// The scheduler. Ranks stop in front of shared operations (see the package
// comment); the ready heap orders them by simulated clock, then rank, and
// flush executes their shared operations in that order until every rank has
// run out of dispatched calls or is parked in a wait.

// readyHeap is a min-heap of machines by (clock, rank). It is written out
// rather than through container/heap, and keeps each key beside its
// machine, because it is on the path of every shared operation and a
// P=256 barrier would otherwise miss the cache on every comparison.
type readyHeap []readyEntry

type readyEntry struct {
	clock int64
	rank  int
	block int
	m     *machine
}

func (h readyHeap) less(i, j int) bool {
	if h[i].clock != h[j].clock {
		return h[i].clock < h[j].clock
	}
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].block < h[j].block
}

func (h *readyHeap) push(m *machine) {
	*h = append(*h, readyEntry{clock: m.clock, rank: m.rank, block: m.block, m: m})
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *readyHeap) pop() *machine {
	a := *h
	top := a[0].m
	last := len(a) - 1
	a[0] = a[last]
	a[last] = readyEntry{}
	a = a[:last]
	*h = a
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < len(a) && a.less(l, min) {
			min = l
		}
		if r < len(a) && a.less(r, min) {
			min = r
		}
		if min == i {
			break
		}
		a[i], a[min] = a[min], a[i]
		i = min
	}
	return top
}

// flush runs every rank's queued calls concurrently, to completion.
func (s *sim) flush() *failure {
	s.pending = false
	s.blockMachines = s.blockMachines[:0]
	start := s.host.clock + s.prof.dispatchPs
	for _, m := range s.ranks {
		if len(m.queue) == 0 {
			continue
		}
		m.clock = max(m.clock, start)
		if f := s.runLocal(m); f != nil {
			return f
		}
	}
	for len(s.ready) > 0 {
		m := s.ready.pop()
		n := m.at
		if n == nil { // a rank whose kernel grid has finished resumes
			if f := s.runLocal(m); f != nil {
				return f
			}
			continue
		}
		blocked, f := m.exec(n)
		if f != nil {
			return f
		}
		if blocked {
			m.state = stBlocked
			continue
		}
		m.at = nil
		if f := s.runLocal(m); f != nil {
			return f
		}
	}
	for _, m := range s.ranks {
		if m.state == stBlocked || m.state == stJoin {
			return s.deadlock()
		}
	}
	for _, m := range s.ranks {
		s.host.clock = max(s.host.clock, m.clock)
	}
	return nil
}

// runLocal runs m through statements that touch only its own state until
// it stands in front of a shared operation (it then joins the ready heap)
// or has no call left to run.
func (s *sim) runLocal(m *machine) *failure {
	for {
		n, f := m.next()
		if f != nil {
			return f
		}
		if n == nil {
			if m.parent != nil {
				m.state = stIdle
				s.blockDone(m)
				return nil
			}
			if m.startTask() {
				continue
			}
			m.state = stIdle
			return nil
		}
		if n.shared {
			m.at, m.state = n, stReady
			s.ready.push(m)
			return nil
		}
		grid, f := m.exec(n)
		if f != nil {
			return f
		}
		if grid {
			// A kernel grid: m waits while its blocks run.
			m.state, m.at = stJoin, nil
			for _, c := range s.blockMachines[len(s.blockMachines)-m.pending:] {
				if f := s.runLocal(c); f != nil {
					return f
				}
			}
			return nil
		}
	}
}

// blockDone records that block c of a kernel grid has finished; after the
// last one its rank resumes (through the heap, at the latest block's
// clock), with block 0's result as the call's.
func (s *sim) blockDone(c *machine) {
	p := c.parent
	p.clock = max(p.clock, c.clock)
	if c.block == 0 && p.join.res >= 0 {
		p.setSlot(p.join.res, c.retVal)
	}
	p.pending--
	if p.pending > 0 {
		return
	}
	p.join, p.at, p.state = nil, nil, stReady
	s.ready.push(p)
}

// cellKey names one signal cell: a byte offset in one rank's window,
// inside buffer buf.
type cellKey struct {
	buf  *bufDesc
	rank int
	off  int
}

// cell is the bookkeeping of a signal cell that has been notified or
// waited on.
type cell struct {
	notifiers  []int     // ranks that notified it, ascending
	last       trace.Ref // the last notify that wrote it
	hasLast    bool
	lastArrive int64      // when that notify arrived (ps)
	waiters    []*machine // ranks parked on it, in arrival order
	// Inline room for the usual single notifier and single waiter, so
	// that a barrier's cells cost no allocation beyond their slab.
	nbuf [1]int
	wbuf [1]*machine
}

// newCell returns a cell from the current slab: cells are allocated 1024
// at a time (a P=256 barrier touches 65,280 of them) and never move.
func (s *sim) newCell() *cell {
	if len(s.cellSlab) == cap(s.cellSlab) {
		s.cellSlab = make([]cell, 0, 1024)
	}
	s.cellSlab = s.cellSlab[:len(s.cellSlab)+1]
	c := &s.cellSlab[len(s.cellSlab)-1]
	c.notifiers, c.waiters = c.nbuf[:0], c.wbuf[:0]
	return c
}

// cellTableMax is the largest buffer whose cells live in a table indexed
// by byte (8 bytes of pointer per byte per rank); cells of larger buffers,
// rarely used as signals, go to a map.
const cellTableMax = 64 << 10

// lookupCell returns the bookkeeping of k, creating it when create is set
// (else nil for a cell never touched).
func (s *sim) lookupCell(k cellKey, create bool) *cell {
	b := k.buf
	if b.size > cellTableMax {
		c := s.bigCells[k]
		if c == nil && create {
			c = s.newCell()
			s.bigCells[k] = c
		}
		return c
	}
	if b.cells == nil {
		if !create {
			return nil
		}
		b.cells = make([][]*cell, s.P)
	}
	tab := b.cells[k.rank]
	if tab == nil {
		if !create {
			return nil
		}
		tab = make([]*cell, b.size)
		b.cells[k.rank] = tab
	}
	i := k.off - b.off
	c := tab[i]
	if c == nil && create {
		c = s.newCell()
		tab[i] = c
	}
	return c
}

func (s *sim) cellValue(k cellKey, dt ir.DType) int64 {
	return getInt(s.windows[k.rank][k.off:], dt)
}

// waitCmp is pld.WaitCmp.
type waitCmp uint8

const (
	cmpEq waitCmp = iota
	cmpGe
)

func (c waitCmp) String() string {
	if c == cmpEq {
		return "Eq"
	}
	return "Ge"
}

func (c waitCmp) holds(v, expected int64) bool {
	if c == cmpEq {
		return v == expected
	}
	return v >= expected
}

// waitInfo describes the wait a rank is in.
type waitInfo struct {
	active   bool
	n        *node
	key      cellKey
	dt       ir.DType
	offs     []int // the cell's offsets, for its name
	cmp      waitCmp
	expected int64
	start    int64 // when the wait began (ps)
	// The notify that made the predicate true while the rank was parked.
	released      bool
	release       trace.Ref
	releaseArrive int64
}

// wake moves the ranks parked on k whose predicate now holds back to the
// ready heap, no earlier than the notify's arrival.
func (s *sim) wake(k cellKey, c *cell, dt ir.DType, by trace.Ref, arrive int64) {
	if len(c.waiters) == 0 {
		return
	}
	v := s.cellValue(k, dt)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.wait.cmp.holds(v, w.wait.expected) {
			kept = append(kept, w)
			continue
		}
		w.wait.released, w.wait.release, w.wait.releaseArrive = true, by, arrive
		w.clock = max(w.clock, arrive)
		w.state = stReady
		s.ready.push(w)
	}
	for i := len(kept); i < len(c.waiters); i++ {
		c.waiters[i] = nil
	}
	c.waiters = kept
}
