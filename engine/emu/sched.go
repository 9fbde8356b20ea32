package emu

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// The scheduler. Ranks stop in front of shared operations (see the package
// comment); the ready queue picks which of them runs its shared operation
// next, by the run's schedule, and flush executes them in that order until
// every rank has run out of dispatched calls or is parked in a wait.
//
// The schedules (Options.Schedule):
//
//   - fair (the default): the earliest rank on the simulated timeline,
//     lowest rank (then block) on a tie. Deterministic, and the order of
//     shared operations follows the cost model.
//   - random:SEED: any ready rank, drawn uniformly from a PCG seeded with
//     SEED: a different legal interleaving per seed, the same one for the
//     same seed.
//   - adversarial: fair, except that a rank whose next shared operation
//     reads window memory goes before every other ready rank, and one
//     whose next operation writes window memory after every other (Nasty-
//     MPI's idea, perf-anchors §5: delay the writes and hurry the reads as
//     far as the synchronisation allows). A read that nothing orders after
//     the write it needs then runs first and sees stale data, so a missing
//     barrier shows up as a wrong result, not only as a race report.
//
// No schedule can break a wait: a parked rank is not in the queue until a
// notify makes its predicate true. Every schedule keeps simulated time
// meaningful: a rank's clock advances only by its own operations and by
// the arrival of the notifies it waits for, whichever order the ranks run
// in.

// schedule is a parsed Options.Schedule.
type schedule uint8

const (
	schedFair schedule = iota
	schedRandom
	schedAdversarial
)

// parseSchedule reads an Options.Schedule value.
func parseSchedule(s string) (schedule, uint64, error) {
	switch s {
	case "", "fair":
		return schedFair, 0, nil
	case "adversarial":
		return schedAdversarial, 0, nil
	}
	if rest, ok := strings.CutPrefix(s, "random:"); ok {
		seed, err := strconv.ParseUint(rest, 10, 64)
		if err == nil {
			return schedRandom, seed, nil
		}
	}
	return 0, 0, fmt.Errorf("schedule %q is not known, want fair, adversarial or random:SEED (SEED a non-negative integer)", s)
}

// ValidateSchedule reports whether s is a schedule Run accepts: "" or
// "fair", "adversarial", or "random:SEED" with SEED a decimal uint64.
func ValidateSchedule(s string) error {
	_, _, err := parseSchedule(s)
	return err
}

// RandomSchedule returns the schedule string of seed: "random:SEED".
func RandomSchedule(seed uint64) string { return "random:" + strconv.FormatUint(seed, 10) }

// readyHeap is the ready queue: the machines ready to run their shared
// operation, handed out by (key, rank, block) for the fair and
// adversarial schedules, drawn at random from an unordered slice for
// random ones. It is written out rather than through container/heap, and
// keeps each key beside its machine, because it is on the path of every
// shared operation.
//
// Under the fair schedule most pushes are of a rank that just ran one
// operation and is now among the latest (a barrier's notifies go round
// the ranks in turn, the rank that skips itself a little behind the
// rest), and a heap sifted each such entry down log P levels on every
// pop. So the ordered queue is three parts whose union is the queue:
//
//   - first: the minimum, when a push is earlier than everything queued
//     (a rank that runs ahead and stays earliest), taken without touching
//     the rest;
//   - runs: a few FIFOs, each in ascending order, a push going to the
//     first whose last entry it does not precede: push and pop are O(1);
//   - a: a binary min-heap of the entries that fit none of them.
//
// pop takes the earliest of the runs' heads and a's top, so the order
// machines come out in is exactly the order one heap would give. (At
// P = 256 a barrier's pushes go to its second run nine times in ten,
// the rest to the first and third, and none to the heap; its pops meet
// two runs in use nine times in ten.)
type readyHeap struct {
	a     []readyEntry
	runs  [readyRuns]readyRun
	first readyEntry // the minimum, when hasFirst: earlier than every other entry
	// hasFirst is set while first holds an entry.
	hasFirst bool
	// live has bit i set while runs[i] holds an entry, so that a pop looks
	// only at the runs in use (a barrier's one or two, not all four); n
	// counts the entries queued, which flush asks for before every pop.
	live uint8
	// last is the run of the last push to a run.
	last  uint8
	n     int
	sched schedule
	rng   *rand.Rand
}

// readyEntry is one ready machine and its key. The key is its clock; the
// adversarial schedule adds its class (0 reads window memory, 1 other, 2
// writes it) above bit 60, 2^60 ps being some 13 simulated days. ord is
// its rank and block as one number in their order (readyOrd), so that a
// tie on the key costs one comparison.
type readyEntry struct {
	key int64
	ord uint64
	m   *machine
}

const classShift = 60

// readyOrd orders machines by rank, then block, as one unsigned number:
// each is an int32 with its sign bit flipped (the host's rank is -1; no
// run has 2^31 ranks or blocks).
func readyOrd(m *machine) uint64 {
	return uint64(uint32(m.rank)^1<<31)<<32 | uint64(uint32(m.block)^1<<31)
}

// entryOf is m's entry under the fair schedule.
func entryOf(m *machine) readyEntry { return readyEntry{key: m.clock, ord: readyOrd(m), m: m} }

// readyRuns is how many ascending runs the queue keeps beside its heap: a
// barrier needs three, and each costs a comparison per pop.
const readyRuns = 4

// readyRun is one ascending FIFO of the ready queue: q[head:] is queued;
// an emptied run starts again at the front of its slice (pop).
type readyRun struct {
	q    []readyEntry
	head int
}

// push appends e, no earlier than the run's last entry.
func (r *readyRun) push(e readyEntry) {
	n := len(r.q)
	if n == cap(r.q) {
		r.room()
		n = len(r.q)
	}
	r.q = r.q[:n+1]
	r.q[n] = e
}

// room makes room for one more entry in a full run: it moves the queued
// entries to the front of the slice when that frees at least half of it,
// else grows the slice.
func (r *readyRun) room() {
	if r.head > 0 && r.head >= len(r.q)/2 {
		n := copy(r.q, r.q[r.head:])
		clear(r.q[n:])
		r.q, r.head = r.q[:n], 0
		return
	}
	r.q = slices.Grow(r.q, 1)
}

// setSchedule makes the queue follow sched (seeded with seed when random).
func (h *readyHeap) setSchedule(sched schedule, seed uint64) {
	h.sched = sched
	if sched == schedRandom {
		h.rng = rand.New(rand.NewPCG(seed, 0x5eed))
	}
}

func (h *readyHeap) len() int { return h.n }

// pushRun appends e to run i, no earlier than its last entry.
func (h *readyHeap) pushRun(i int, e readyEntry) {
	h.runs[i].push(e)
	h.live |= 1 << i
	h.last = uint8(i)
}

func (h *readyHeap) less(i, j int) bool { return h.a[i].before(&h.a[j]) }

// before orders entries by (key, rank, block).
func (e *readyEntry) before(o *readyEntry) bool {
	return e.key < o.key || e.key == o.key && e.ord < o.ord
}

// restMin returns where the earliest entry of the runs and the heap is:
// run i, or -1 for the heap; ok is false when all are empty.
func (h *readyHeap) restMin() (e *readyEntry, i int, ok bool) {
	if len(h.a) > 0 {
		e, i, ok = &h.a[0], -1, true
	}
	for live := h.live; live != 0; live &= live - 1 {
		j := bits.TrailingZeros8(live)
		r := &h.runs[j]
		if !ok || r.q[r.head].before(e) {
			e, i, ok = &r.q[r.head], j, true
		}
	}
	return e, i, ok
}

func (h *readyHeap) push(m *machine) {
	e := entryOf(m)
	h.n++
	if h.sched != schedFair {
		if h.sched == schedRandom {
			h.a = append(h.a, e)
			return
		}
		e.key += int64(m.accessClass()) << classShift
	}
	if !h.hasFirst {
		// An entry no earlier than the last of a run that is not empty is
		// not the minimum, so it goes there without a look for the
		// minimum: first the run of the last push (where a barrier's
		// ranks, going round in turn, push nine times in ten), then the
		// first run that takes it.
		if i := h.last; h.live&(1<<i) != 0 {
			if r := &h.runs[i]; !e.before(&r.q[len(r.q)-1]) {
				h.runs[i].push(e)
				return
			}
		}
		for i := range h.runs {
			if h.live&(1<<i) == 0 {
				break
			}
			if r := &h.runs[i]; !e.before(&r.q[len(r.q)-1]) {
				h.pushRun(i, e)
				return
			}
		}
	}
	h.pushRest(e)
}

// pushRest is push's case of an entry that goes to first, to a run after
// the ones push looked at, or to the heap.
func (h *readyHeap) pushRest(e readyEntry) {
	if h.hasFirst {
		if e.before(&h.first) {
			e, h.first = h.first, e // the old minimum joins the rest
		}
	} else if r, _, ok := h.restMin(); !ok || e.before(r) {
		h.first, h.hasFirst = e, true
		return
	}
	for i := range h.runs {
		if r := &h.runs[i]; h.live&(1<<i) == 0 || !e.before(&r.q[len(r.q)-1]) {
			h.pushRun(i, e)
			return
		}
	}
	h.heapPush(e)
}

// heapPush adds e to the heap.
func (h *readyHeap) heapPush(e readyEntry) {
	h.a = append(h.a, e)
	a := h.a
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *readyHeap) pop() *machine {
	h.n--
	if h.hasFirst {
		m := h.first.m
		h.first, h.hasFirst = readyEntry{}, false
		return m
	}
	if h.sched == schedRandom {
		return h.popRandom()
	}
	if live := h.live; live != 0 {
		// The earliest head of the runs in use, then against the heap's.
		i := bits.TrailingZeros8(live)
		r := &h.runs[i]
		e := &r.q[r.head]
		for live &= live - 1; live != 0; live &= live - 1 {
			j := bits.TrailingZeros8(live)
			if o := &h.runs[j]; o.q[o.head].before(e) {
				i, r, e = j, o, &o.q[o.head]
			}
		}
		if len(h.a) == 0 || e.before(&h.a[0]) {
			m := e.m
			*e = readyEntry{}
			if r.head++; r.head == len(r.q) {
				r.q, r.head = r.q[:0], 0
				h.live &^= 1 << i
			}
			return m
		}
	}
	return h.heapPop()
}

// popRandom takes a uniformly drawn entry of the random schedule's slice.
func (h *readyHeap) popRandom() *machine {
	a := h.a
	last := len(a) - 1
	i := h.rng.IntN(len(a))
	top := a[i].m
	a[i] = a[last]
	a[last] = readyEntry{}
	h.a = a[:last]
	return top
}

// heapPop takes the heap's top.
func (h *readyHeap) heapPop() *machine {
	a := h.a
	last := len(a) - 1
	top := a[0].m
	a[0] = a[last]
	a[last] = readyEntry{}
	a = a[:last]
	h.a = a
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < len(a) && h.less(l, min) {
			min = l
		}
		if r < len(a) && h.less(r, min) {
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

// accessClass is the adversarial class of the shared operation m stands
// in front of: 0 when it reads window memory (pl.load, pl.read of a
// window, remote_load, get), 2 when it writes window memory (pl.store,
// pl.write into a window, remote_store, put), 1 for anything else
// (signals, host tensors, a rank resuming after its grid).
func (m *machine) accessClass() uint8 {
	n := m.at
	if n == nil || n.kind != nOp {
		return 1
	}
	isWindow := func(i int) bool {
		if i >= len(n.args) {
			return false
		}
		t, ok := m.eval(n.args[i]).o.(*tref)
		return ok && t.buf != nil
	}
	switch n.op {
	case opRemoteLoad, opGet:
		return 0
	case opLoad, opRead:
		if isWindow(0) {
			return 0
		}
	case opRemoteStore, opPut:
		return 2
	case opStore:
		if isWindow(2) {
			return 2
		}
	case opWrite:
		if isWindow(0) {
			return 2
		}
	}
	return 1
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
		s.forkRank(m)
		if f := s.runLocal(m); f != nil {
			return f
		}
	}
	for s.ready.len() > 0 {
		m := s.ready.pop()
		n := m.at
		if n == nil { // a rank whose kernel grid has finished resumes
			if f := s.runLocal(m); f != nil {
				return f
			}
			continue
		}
		s.execRank, s.execLine, s.execCol = m.rank, n.span.Line, n.span.Col
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
	s.joinRanks()
	return nil
}

// runLocal runs m through statements that touch only its own state until
// it stands in front of a shared operation (it then joins the ready heap)
// or has no call left to run.
func (s *sim) runLocal(m *machine) *failure {
	s.execRank = m.rank
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
		s.execLine, s.execCol = n.span.Line, n.span.Col // execRank is m's (set above)
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
	s.dropID(c)
	p.clock = max(p.clock, c.clock)
	s.joinBlock(p, c)
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
	view     *tref // the signal's window view (for the race detector)
	cell     *cell // the cell's bookkeeping once the wait parked on it
	dt       ir.DType
	cmp      waitCmp
	expected int64
	start    int64 // when the wait began (ps)
	// The notify that made the predicate true while the rank was parked.
	released      bool
	release       trace.Ref
	releaseArrive int64
}
