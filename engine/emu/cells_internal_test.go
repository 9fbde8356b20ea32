package emu

import (
	"context"
	"slices"
	"testing"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// TestCellNotifiers checks the 24-byte cell's notifier bookkeeping: a cell
// notified by one rank names it from its last notify alone, and what is
// kept beside the cells once a second rank notifies it (a pair for a cell
// of a page, then a list from the third; a list for a cell of the map)
// holds every notifier once, ascending, the host (rank -1) included.
func TestCellNotifiers(t *testing.T) {
	for _, tc := range []struct {
		by   []int
		want []int
	}{
		{nil, nil},
		{[]int{3, 3, 3}, []int{3}},
		{[]int{3, 1, 3, 1, 1}, []int{1, 3}},
		{[]int{3, 1, 3, 5, 1, 0}, []int{0, 1, 3, 5}},
		{[]int{-1}, []int{-1}},
		{[]int{2, -1, 2}, []int{-1, 2}},
		{[]int{7, 7, 2, 2, 9, 9, 2, 7}, []int{2, 7, 9}},
	} {
		for _, inPage := range []bool{true, false} {
			meter := limits.NewMeter(context.Background(), limits.Budget{Memory: 1 << 30})
			s := &sim{P: 1, notifiers: map[*cell][]int{}, pairs: map[*cellPage]*pairPage{}, bigCells: map[cellKey]*cell{}, meter: meter}
			k := cellKey{buf: &bufDesc{size: 64}, off: 5 * cellGrain} // a cell of a page
			if !inPage {
				k.off = 2 // an INT16 cell's offset: a cell of the map
			}
			c := s.lookupCell(k, true)
			before := meter.Held() // the cell's page or slab
			for i, r := range tc.by {
				s.addNotifier(c, k, r)
				c.setLast(trace.Ref{Rank: r, Seq: int64(i)}, int64(10*i))
			}
			if got := s.notifiersOf(c, k); !slices.Equal(got, tc.want) {
				t.Errorf("notifies by %v (in a page: %v): notifiers %v, want %v", tc.by, inPage, got, tc.want)
			}
			// What is kept beside the cell is charged to the budget.
			if held := meter.Held() - before; (held > 0) != (len(tc.want) > 1) {
				t.Errorf("notifies by %v (in a page: %v): %d bytes charged", tc.by, inPage, held)
			}
			// Two notifiers of a page's cell take no list; three do.
			if lists := len(s.notifiers); inPage && lists != 0 && len(tc.want) < 3 || lists > 1 {
				t.Errorf("notifies by %v (in a page: %v): %d lists", tc.by, inPage, lists)
			}
			if n := len(tc.by); n > 0 {
				if got, want := c.last(), (trace.Ref{Rank: tc.by[n-1], Seq: int64(n - 1)}); got != want || c.lastArrive != int64(10*(n-1)) {
					t.Errorf("notifies by %v: last %+v at %d, want %+v at %d", tc.by, got, c.lastArrive, want, 10*(n-1))
				}
			} else if c.hasLast() {
				t.Errorf("a cell never notified has a last notify %+v", c.last())
			}
		}
	}
}

// TestCellWake checks that a notify releases the machines parked on a cell
// whose predicate holds, in the order they parked, and leaves the others
// parked in their order.
func TestCellWake(t *testing.T) {
	s := &sim{P: 1, windows: [][]byte{make([]byte, 4)}}
	s.ready.setSchedule(schedFair, 0)
	k := cellKey{buf: &bufDesc{size: 4}, rank: 0}
	c := &cell{}
	var ms []*machine
	for i, exp := range []int64{1, 3, 1, 2, 3} {
		m := &machine{s: s, rank: 0, block: i, clock: int64(100 - i)}
		m.wait = waitInfo{active: true, cmp: cmpGe, expected: exp}
		s.addWaiter(c, m)
		ms = append(ms, m)
	}
	parked := func() (blocks []int) {
		for id := c.waiter; id != 0; id = s.machines[id-1].waitNext {
			blocks = append(blocks, s.machines[id-1].block)
		}
		return blocks
	}
	if got := parked(); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("parked %v, want blocks 0..4 in order", got)
	}
	putInt(s.windows[0], ir.INT32, 1)
	s.wake(k, c, ir.INT32, trace.Ref{Rank: 0, Seq: 7}, 500)
	if got := parked(); !slices.Equal(got, []int{1, 3, 4}) {
		t.Errorf("after the value 1, parked %v, want [1 3 4]", got)
	}
	for _, want := range []int{0, 2} {
		m := s.ready.pop()
		if m.block != want || !m.wait.released || m.wait.release.Seq != 7 || m.clock != 500 || m.state != stReady {
			t.Errorf("released block %d (released %v by %+v at %d), want block %d by seq 7 at 500", m.block, m.wait.released, m.wait.release, m.clock, want)
		}
	}
	putInt(s.windows[0], ir.INT32, 3)
	s.wake(k, c, ir.INT32, trace.Ref{Rank: 0, Seq: 8}, 600)
	if got := parked(); len(got) != 0 || s.ready.len() != 3 {
		t.Errorf("after the value 3, parked %v and %d ready, want none parked and 3 ready", got, s.ready.len())
	}
}
