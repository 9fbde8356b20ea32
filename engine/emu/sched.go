package emu

import (
	"fmt"
	"math"
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
//     run of the last push when it does not precede that run's last
//     entry, else to the first run it does not precede or an empty one:
//     push and pop are O(1);
//   - a: a binary min-heap of the entries that fit none of them.
//
// pop takes the earliest of first, the runs' heads and a's top, so the
// order machines come out in is exactly the order one heap would give.
// No two queued entries are equal (no two queued machines share a rank
// and block), so which part an entry waits in does not change when it
// comes out. (At P = 256 a barrier's pushes go to the run of the last
// push nine times in ten, the rest to another run, and none to the heap;
// a ring's all go to one run.)
//
// The two operations every shared operation makes are small enough to be
// inlined into flush and runLocal (cachegrind, barrier P = 256 without
// detection: push and pop were some 165 instructions an operation when
// each pop looked at every run in use; Go 1.26 puts tryPush at 79 and
// takeFast at 80 of the inliner's budget of 80, and a change that takes
// them over costs a call each, go build -gcflags=-m tells):
//
//   - tryPush appends to tail, the run of the last push, when the entry
//     does not precede its last one: such an entry is not a head and is
//     later than first, so nothing else changes;
//   - takeFast takes the head of cur while cur is set: cur's head is then
//     the earliest entry, and bound is no later than every other head (of
//     the other runs and the heap), so the next head stays the earliest
//     when it is before bound: one comparison a pop. When it is not, or
//     the run ran out, cur is cleared, and the next pop looks at every
//     head (settle).
//
// Every other case goes through pushSlow and takeSlow. A push there that
// makes a new head (an empty run's, the heap's) lowers bound or, earlier
// than cur's head, clears cur (newHead); one to first clears cur until
// first is taken (parked keeps cur's run meanwhile). A run takeFast ran
// out of keeps its live bit (and may take a tryPush) until the next slow
// operation tidies it.
type readyHeap struct {
	// cur is the run whose head pop takes, while that is the earliest
	// entry (see above); nil otherwise.
	cur *readyRun
	// last is the run of the last push to a run, while it is live (nil
	// under the random schedule, which keeps only a); tail is last under
	// the fair schedule, nil under the others (the adversarial schedule's
	// keys are made in pushSlow, which tries last itself).
	last, tail *readyRun
	// parked is cur while first holds an entry: the run whose head is the
	// earliest of the runs and the heap, which cur is again once first is
	// taken; nil when that is not known.
	parked *readyRun
	// bound is no later than every head but cur's (parked's), while cur
	// (parked) is set: its key and ord.
	bound readyEntry
	// hasFirst is set while first holds an entry.
	hasFirst bool
	// live has bit i set while runs[i] holds an entry (or takeFast ran it
	// out and no slow operation has tidied it yet), so that a look at the
	// heads takes only the runs in use (a barrier's one to three).
	live  uint8
	sched schedule
	runs  [readyRuns]readyRun
	first readyEntry // the minimum, when hasFirst: earlier than every other entry
	a     []readyEntry
	rng   *rand.Rand
}

// readyEntry is one ready machine and its key. The key is its clock; the
// adversarial schedule adds its class (0 reads window memory, 1 other, 2
// writes it) above bit 60, 2^60 ps being some 13 simulated days; the sum
// is kept with its sign bit flipped, so that its signed order is the
// unsigned order of the key. ord is its rank and block as one number in
// their order (readyOrd), so that a tie on the key costs one comparison.
type readyEntry struct {
	key uint64
	ord uint64
	m   *machine
}

const classShift = 60

// readyKey is the entry key of clock (plus class, adversarial).
func readyKey(clock int64) uint64 { return uint64(clock) ^ 1<<63 }

// readyOrd orders machines by rank, then block, as one unsigned number:
// each is an int32 with its sign bit flipped (the host's rank is -1; no
// run has 2^31 ranks or blocks). It is never 0 (that would be rank and
// block -2^31), which runLocal's callers pass for "not at hand".
func readyOrd(m *machine) uint64 {
	return uint64(uint32(m.rank)^1<<31)<<32 | uint64(uint32(m.block)^1<<31)
}

// entryOf is m's entry under the fair schedule.
func entryOf(m *machine) readyEntry {
	return readyEntry{key: readyKey(m.clock), ord: readyOrd(m), m: m}
}

// readyRuns is how many ascending runs the queue keeps beside its heap: a
// barrier needs three, and each costs a comparison when pop settles.
const readyRuns = 4

// readyRun is one ascending FIFO of the ready queue: q[head:] is queued;
// an emptied run starts again at the front of its slice (tidy). Entries
// before head are not cleared (pop's zeroing was 4 instructions an
// operation): they keep the machines they name, this run's ranks and
// blocks, reachable until the run writes over them or the sim is dropped.
type readyRun struct {
	q    []readyEntry
	head int
}

// push appends e, no earlier than the run's last entry.
func (r *readyRun) push(e readyEntry) {
	if len(r.q) == cap(r.q) {
		r.room()
	}
	r.q = append(r.q, e)
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

// len counts the entries queued.
func (h *readyHeap) len() int {
	n := len(h.a)
	if h.hasFirst {
		n++
	}
	for live := h.live; live != 0; live &= live - 1 {
		r := &h.runs[bits.TrailingZeros8(live)]
		n += len(r.q) - r.head
	}
	return n
}

// before orders entries by (key, rank, block).
func (e *readyEntry) before(o *readyEntry) bool {
	return e.key < o.key || e.key == o.key && e.ord < o.ord
}

func (h *readyHeap) less(i, j int) bool { return h.a[i].before(&h.a[j]) }

// push queues m, which stands in front of a shared operation (m.at) or
// resumes after its grid.
func (h *readyHeap) push(m *machine) {
	ord := readyOrd(m)
	if !h.tryPush(m, ord) {
		h.pushSlow(m, ord)
	}
}

// tryPush appends m's entry (fair: its key is its clock) to tail when
// tail has room and the entry does not precede its last one, and reports
// whether it did. ord is readyOrd(m).
func (h *readyHeap) tryPush(m *machine, ord uint64) bool {
	r := h.tail
	if r == nil {
		return false
	}
	n := len(r.q)
	if n == cap(r.q) {
		return false
	}
	key := uint64(m.clock) ^ 1<<63 // readyKey
	if t := &r.q[n-1]; key < t.key || key == t.key && ord < t.ord {
		return false
	}
	r.q = append(r.q, readyEntry{key: key, ord: ord, m: m}) // no growth: n < cap
	return true
}

// pushSlow is push's case of an entry tryPush did not take: the random
// schedule's; the adversarial's (its key has m's class), which goes to
// last as tryPush's would to tail, or else where a fair one goes; a fair
// one that goes to first, to a run other than tail (the first it does not
// precede, or an empty one), or to the heap.
func (h *readyHeap) pushSlow(m *machine, ord uint64) {
	e := readyEntry{key: readyKey(m.clock), ord: ord, m: m}
	switch h.sched {
	case schedRandom:
		h.a = append(h.a, e)
		return
	case schedAdversarial:
		e.key = readyKey(m.clock + int64(m.accessClass())<<classShift)
		if r := h.last; r != nil && len(r.q) < cap(r.q) && !e.before(&r.q[len(r.q)-1]) {
			r.q = append(r.q, e) // tryPush's case
			return
		}
	}
	h.tidy()
	if h.hasFirst {
		if e.before(&h.first) {
			e, h.first = h.first, e // the old minimum joins the rest
		}
	} else if h.beforeRest(&e) {
		h.first, h.hasFirst = e, true
		h.parked, h.cur = h.cur, nil
		return
	}
	for i := range h.runs {
		r := &h.runs[i]
		if h.live&(1<<i) == 0 {
			h.pushRun(i, e)
			h.newHead(&e)
			return
		}
		if !e.before(&r.q[len(r.q)-1]) {
			h.pushRun(i, e)
			return
		}
	}
	h.heapPush(e)
	h.newHead(&e)
}

// pushRun appends e to run i, no earlier than its last entry.
func (h *readyHeap) pushRun(i int, e readyEntry) {
	r := &h.runs[i]
	r.push(e)
	h.live |= 1 << i
	h.last = r
	if h.sched == schedFair {
		h.tail = r
	}
}

// tidy starts a run takeFast ran out of again at the front of its slice.
func (h *readyHeap) tidy() {
	for live := h.live; live != 0; live &= live - 1 {
		i := bits.TrailingZeros8(live)
		if r := &h.runs[i]; r.head == len(r.q) {
			r.q, r.head = r.q[:0], 0
			h.live &^= 1 << i
			if h.last == r {
				h.last, h.tail = nil, nil
			}
		}
	}
}

// beforeRest reports whether e is earlier than every entry of the runs
// and the heap (true when they are empty).
func (h *readyHeap) beforeRest(e *readyEntry) bool {
	if r := h.settledRun(); r != nil {
		return e.before(&r.q[r.head])
	}
	if len(h.a) > 0 && !e.before(&h.a[0]) {
		return false
	}
	for live := h.live; live != 0; live &= live - 1 {
		r := &h.runs[bits.TrailingZeros8(live)]
		if !e.before(&r.q[r.head]) {
			return false
		}
	}
	return true
}

// newHead keeps cur (parked) and bound true after a push of e that may
// have made it a head of a run or the top of the heap: e, when earlier
// than bound and not than that run's head, is the new bound; earlier than
// that head (the old first joining the rest), it is the new minimum, and
// the next pop settles again.
func (h *readyHeap) newHead(e *readyEntry) {
	r := h.settledRun()
	if r == nil {
		return
	}
	if e.before(&r.q[r.head]) {
		h.cur, h.parked = nil, nil
	} else if e.before(&h.bound) {
		h.bound = readyEntry{key: e.key, ord: e.ord}
	}
}

// settledRun is the run whose head is the earliest of the runs and the
// heap, bound no later than the other heads, when that is known: cur, or
// parked while first holds an entry.
func (h *readyHeap) settledRun() *readyRun {
	if h.hasFirst {
		return h.parked
	}
	return h.cur
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

// pop takes the next machine, nil when the queue is empty.
func (h *readyHeap) pop() *machine {
	m, _ := h.takeFast()
	if m == nil {
		m, _ = h.takeSlow()
	}
	return m
}

// takeFast takes cur's head while cur is set, with its readyOrd; nil when
// cur is not set. The next head stays cur's when it is before bound (and
// so before every other entry); else cur is cleared.
func (h *readyHeap) takeFast() (m *machine, ord uint64) {
	if r := h.cur; r != nil {
		i := r.head
		q := r.q
		m, ord = q[i].m, q[i].ord
		i++
		r.head = i
		if i == len(q) || !q[i].before(&h.bound) {
			h.cur = nil
		}
	}
	return m, ord
}

// takeSlow is pop when takeFast did not take: first's entry, the random
// schedule's draw, the earliest head after settle, or the heap's top; nil
// when the queue is empty.
func (h *readyHeap) takeSlow() (*machine, uint64) {
	if h.hasFirst {
		e := h.first
		h.first, h.hasFirst = readyEntry{}, false
		h.cur, h.parked = h.parked, nil
		return e.m, e.ord
	}
	if h.sched == schedRandom {
		if len(h.a) == 0 {
			return nil, 0
		}
		return h.popRandom()
	}
	h.tidy()
	if h.settle() {
		return h.takeFast()
	}
	if len(h.a) == 0 {
		return nil, 0
	}
	e := h.a[0]
	h.heapPop()
	return e.m, e.ord
}

// settle finds the earliest head of the runs and the heap (first is
// empty, no run is run out): when it is a run's, it makes that run cur,
// the next earliest head bound, and returns true.
func (h *readyHeap) settle() bool {
	live := h.live
	if live == 0 {
		return false
	}
	i := bits.TrailingZeros8(live)
	min := &h.runs[i].q[h.runs[i].head]
	next := &readyEntry{key: math.MaxUint64, ord: math.MaxUint64}
	for live &= live - 1; live != 0; live &= live - 1 {
		j := bits.TrailingZeros8(live)
		o := &h.runs[j]
		if e := &o.q[o.head]; e.before(min) {
			i, min, next = j, e, min
		} else if e.before(next) {
			next = e
		}
	}
	if len(h.a) > 0 {
		if e := &h.a[0]; e.before(min) {
			return false
		} else if e.before(next) {
			next = e
		}
	}
	h.bound = readyEntry{key: next.key, ord: next.ord}
	h.cur = &h.runs[i]
	return true
}

// popRandom takes a uniformly drawn entry of the random schedule's slice.
func (h *readyHeap) popRandom() (*machine, uint64) {
	a := h.a
	last := len(a) - 1
	i := h.rng.IntN(len(a))
	top := a[i]
	a[i] = a[last]
	a[last] = readyEntry{}
	h.a = a[:last]
	return top.m, top.ord
}

// heapPop drops the heap's top.
func (h *readyHeap) heapPop() {
	a := h.a
	last := len(a) - 1
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
//
// A machine's state is stReady from the moment it starts to run (here,
// or in runLocal for a grid's blocks) until it goes idle, parks or waits
// for its blocks, through the ready queue and back: the queue's machines
// are all stReady, and runLocal's push writes no state (the line it is on
// is one a notify does not touch otherwise). Its at is the shared
// operation it stands in front of while it is queued or parked; after the
// operation at is left as it was until the next push overwrites it.
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
		m.state = stReady
		s.execRank = m.rank
		if f := s.runLocal(m, 0); f != nil {
			return f
		}
	}
	for {
		// The queue's entry has m's readyOrd, which runLocal's push
		// reuses.
		m, ord := s.ready.takeFast()
		if m == nil {
			if m, ord = s.ready.takeSlow(); m == nil {
				break
			}
		}
		n := m.at
		if n == nil { // a rank whose kernel grid has finished resumes
			s.execRank = m.rank
			if f := s.runLocal(m, ord); f != nil {
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
		if f := s.runLocal(m, ord); f != nil {
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

// runLocal runs m, stReady, through statements that touch only its own
// state until it stands in front of a shared operation (it then joins the
// ready queue) or has no call left to run. s.execRank is m's rank already
// (the caller's). ord is m's readyOrd, or 0 when the caller does not have
// it at hand (no machine's is 0).
func (s *sim) runLocal(m *machine, ord uint64) *failure {
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
			m.at = n
			if ord == 0 {
				ord = readyOrd(m)
			}
			if !s.ready.tryPush(m, ord) {
				s.ready.pushSlow(m, ord)
			}
			return nil
		}
		s.execLine, s.execCol = n.span.Line, n.span.Col // execRank is m's (see above)
		grid, f := m.exec(n)
		if f != nil {
			return f
		}
		if grid {
			// A kernel grid: m waits while its blocks run.
			m.state, m.at = stJoin, nil
			for _, c := range s.blockMachines[len(s.blockMachines)-m.pending:] {
				c.state = stReady
				s.execRank = c.rank
				if f := s.runLocal(c, 0); f != nil {
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
