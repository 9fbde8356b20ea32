package emu

import (
	"container/heap"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// The scheduler. Ranks stop in front of shared operations (see the package
// comment); the ready heap orders them by simulated clock, then rank, and
// flush executes their shared operations in that order until every rank has
// run out of dispatched calls or is parked in a wait.

// readyHeap is a min-heap of machines by (clock, rank).
type readyHeap []*machine

func (h readyHeap) Len() int { return len(h) }
func (h readyHeap) Less(i, j int) bool {
	if h[i].clock != h[j].clock {
		return h[i].clock < h[j].clock
	}
	return h[i].rank < h[j].rank
}
func (h readyHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}
func (h *readyHeap) Push(x any) {
	m := x.(*machine)
	m.heapIdx = len(*h)
	*h = append(*h, m)
}
func (h *readyHeap) Pop() any {
	old := *h
	m := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	m.heapIdx = -1
	return m
}

// flush runs every rank's queued calls concurrently, to completion.
func (s *sim) flush() *failure {
	s.pending = false
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
	for s.ready.Len() > 0 {
		m := heap.Pop(&s.ready).(*machine)
		n := m.at
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
		if m.state == stBlocked {
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
			if m.startTask() {
				continue
			}
			m.state = stIdle
			return nil
		}
		if n.shared {
			m.at, m.state = n, stReady
			heap.Push(&s.ready, m)
			return nil
		}
		if _, f := m.exec(n); f != nil {
			return f
		}
	}
}

// cellKey names one signal cell: a byte offset in one rank's window.
type cellKey struct{ rank, off int }

// cell is the bookkeeping of a signal cell that has been notified or
// waited on.
type cell struct {
	notifiers  []int     // ranks that notified it, ascending
	last       trace.Ref // the last notify that wrote it
	hasLast    bool
	lastArrive int64      // when that notify arrived (ps)
	waiters    []*machine // ranks parked on it, in arrival order
}

func (s *sim) cell(k cellKey) *cell {
	c := s.cells[k]
	if c == nil {
		c = &cell{}
		s.cells[k] = c
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
	n        *node
	key      cellKey
	dt       ir.DType
	cellName string
	cmp      waitCmp
	expected int64
	start    int64 // when the wait began (ps)
	// The notify that made the predicate true while the rank was parked.
	release       *trace.Ref
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
		ref := by
		w.wait.release, w.wait.releaseArrive = &ref, arrive
		w.clock = max(w.clock, arrive)
		w.state = stReady
		heap.Push(&s.ready, w)
	}
	for i := len(kept); i < len(c.waiters); i++ {
		c.waiters[i] = nil
	}
	c.waiters = kept
}
