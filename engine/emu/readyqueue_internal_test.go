package emu

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
)

// The ready queue against plain references: container/heap ordered by
// (clock, plus the access class above bit 60 under the adversarial
// schedule; rank; block) for the ordered schedules, and for random ones
// the draw the schedule is defined by (an unordered slice, an index drawn
// from a PCG seeded with the seed and 0x5eed, the last entry moved into
// its place). Each test drives both with the same pushes and pops, the
// queue the way flush and runLocal do (takeFast then takeSlow; tryPush
// then pushSlow, with the ord take returned) or through push and pop, and
// asserts the same machine comes out of each at every pop.

// refEntry is one reference entry: the machine and its key, made from the
// machine's fields at the push, independently of readyEntry.
type refEntry struct {
	key         int64
	rank, block int
	m           *machine
}

type refHeap []refEntry

func (r refHeap) Len() int { return len(r) }
func (r refHeap) Less(i, j int) bool {
	a, b := &r[i], &r[j]
	if a.key != b.key {
		return a.key < b.key
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.block < b.block
}
func (r refHeap) Swap(i, j int) { r[i], r[j] = r[j], r[i] }
func (r *refHeap) Push(x any)   { *r = append(*r, x.(refEntry)) }
func (r *refHeap) Pop() any {
	old := *r
	e := old[len(old)-1]
	*r = old[:len(old)-1]
	return e
}

// refQueue is the reference queue of one schedule.
type refQueue struct {
	sched schedule
	h     refHeap
	rng   *rand.Rand
}

func newRefQueue(sched schedule, seed uint64) *refQueue {
	q := &refQueue{sched: sched}
	if sched == schedRandom {
		q.rng = rand.New(rand.NewPCG(seed, 0x5eed))
	}
	return q
}

func (q *refQueue) push(m *machine) {
	key := m.clock
	if q.sched == schedAdversarial {
		key += int64(m.accessClass()) << classShift
	}
	e := refEntry{key: key, rank: m.rank, block: m.block, m: m}
	if q.sched == schedRandom {
		q.h = append(q.h, e)
		return
	}
	heap.Push(&q.h, e)
}

func (q *refQueue) pop() *machine {
	if len(q.h) == 0 {
		return nil
	}
	if q.sched == schedRandom {
		i := q.rng.IntN(len(q.h))
		m := q.h[i].m
		q.h[i] = q.h[len(q.h)-1]
		q.h = q.h[:len(q.h)-1]
		return m
	}
	return heap.Pop(&q.h).(refEntry).m
}

// queuePair is the queue under test beside its reference; fast and slow
// count the pushes and pops the inlined paths took and did not.
type queuePair struct {
	t                        *testing.T
	name                     string
	h                        readyHeap
	ref                      *refQueue
	ords                     map[*machine]uint64 // the ord take returned, for the next push
	viaFlush                 bool                // push and pop as flush and runLocal do
	fastPush, slowPush       int
	fastPop, slowPop, queued int
	lastPopped               *machine
}

func newQueuePair(t *testing.T, name string, sched schedule, seed uint64, viaFlush bool) *queuePair {
	p := &queuePair{t: t, name: name, ref: newRefQueue(sched, seed), ords: map[*machine]uint64{}, viaFlush: viaFlush}
	p.h.setSchedule(sched, seed)
	return p
}

func (p *queuePair) push(m *machine) {
	p.t.Helper()
	p.ref.push(m)
	p.queued++
	if !p.viaFlush {
		p.h.push(m)
	} else {
		ord := p.ords[m] // 0 when m was not popped yet: runLocal's callers pass 0 then
		if ord == 0 {
			ord = readyOrd(m)
		}
		if p.h.tryPush(m, ord) {
			p.fastPush++
		} else {
			p.slowPush++
			p.h.pushSlow(m, ord)
		}
	}
	if got := p.h.len(); got != p.queued {
		p.t.Fatalf("%s: len %d after a push, want %d", p.name, got, p.queued)
	}
}

// pop pops both and fails unless they give the same machine (nil when
// empty); it returns that machine.
func (p *queuePair) pop(step int) *machine {
	p.t.Helper()
	want := p.ref.pop()
	var got *machine
	if !p.viaFlush {
		got = p.h.pop()
	} else {
		var ord uint64
		if got, ord = p.h.takeFast(); got != nil {
			p.fastPop++
		} else {
			p.slowPop++
			got, ord = p.h.takeSlow()
		}
		if got != nil {
			if ord != readyOrd(got) {
				p.t.Fatalf("%s step %d: take gave ord %#x for rank %d block %d, want %#x", p.name, step, ord, got.rank, got.block, readyOrd(got))
			}
			p.ords[got] = ord
		}
	}
	if got != want {
		p.t.Fatalf("%s step %d: popped %s, want %s", p.name, step, descMachine(got), descMachine(want))
	}
	if want != nil {
		p.queued--
	}
	if n := p.h.len(); n != p.queued {
		p.t.Fatalf("%s step %d: len %d after a pop, want %d", p.name, step, n, p.queued)
	}
	p.lastPopped = got
	return got
}

func descMachine(m *machine) string {
	if m == nil {
		return "nothing"
	}
	return fmt.Sprintf("rank %d block %d (clock %d)", m.rank, m.block, m.clock)
}

// Adversarial classes: m.at is one of these (or nil: class 1).
var (
	classRead  = &node{kind: nOp, op: opRemoteLoad}  // class 0
	classWrite = &node{kind: nOp, op: opRemoteStore} // class 2
)

var readySchedules = []struct {
	name  string
	sched schedule
}{{"fair", schedFair}, {"adversarial", schedAdversarial}, {"random", schedRandom}}

// TestReadyQueueRandomMix: random pushes and pops of every shape the
// queue has a part for (the latest entry: the run of the last push; ties
// on the clock; the earliest: first; anywhere: another run or the heap;
// entries after another run's head: a new head and a lower bound), of
// ranks, blocks and the host, under the three schedules, through flush's
// paths and through push and pop.
func TestReadyQueueRandomMix(t *testing.T) {
	for _, sc := range readySchedules {
		for _, viaFlush := range []bool{true, false} {
			for seed := uint64(0); seed < 60; seed++ {
				name := fmt.Sprintf("%s/flush=%v/seed=%d", sc.name, viaFlush, seed)
				p := newQueuePair(t, name, sc.sched, seed, viaFlush)
				rng := rand.New(rand.NewPCG(seed, 2))
				var ms []*machine
				for r := -1; r < 24; r++ {
					ms = append(ms, &machine{rank: r})
				}
				for r := 0; r < 4; r++ { // a grid's blocks: rank r's blocks 0..4
					for b := 0; b < 5; b++ {
						ms = append(ms, &machine{rank: r, block: b, parent: ms[r+1]})
					}
				}
				queued := map[*machine]bool{}
				var now int64 // the clock of the last pop
				for step := 0; step < 3000; step++ {
					if rng.IntN(100) < 35+rng.IntN(30) {
						if m := p.pop(step); m != nil {
							delete(queued, m)
							now = m.clock
						}
						continue
					}
					m := ms[rng.IntN(len(ms))]
					if queued[m] {
						continue
					}
					// A machine of a grid's rank is never queued beside
					// the rank's own (stJoin): keep (rank, block) unique.
					if dup := func() bool {
						for o := range queued {
							if o.rank == m.rank && o.block == m.block {
								return true
							}
						}
						return false
					}(); dup {
						continue
					}
					switch rng.IntN(7) {
					case 0, 1: // the latest: a rank that ran one operation
						m.clock = now + 1000 + int64(rng.IntN(1000))
					case 2: // a tie with the last pop, ordered by rank and block
						m.clock = now
					case 3: // before everything: first's case
						m.clock = now - 1 - int64(rng.IntN(50))
					case 4: // a few fixed clocks: long ties
						m.clock = now + int64(rng.IntN(3))*500
					default:
						m.clock = now + int64(rng.IntN(3000))
					}
					switch rng.IntN(4) {
					case 0:
						m.at = classRead
					case 1:
						m.at = classWrite
					default:
						m.at = nil
					}
					queued[m] = true
					p.push(m)
				}
				for step := 0; p.queued > 0; step++ {
					p.pop(100000 + step)
				}
				if m := p.pop(-1); m != nil {
					t.Fatalf("%s: popped %s from an empty queue", name, descMachine(m))
				}
			}
		}
	}
}

// barrierQueue runs the queue the way a hand-rolled barrier does (see
// BenchmarkBarrier): every rank notifies each other rank in turn, the
// iteration for itself costing only the loop's own step, then waits for
// each other rank; a wait parks while its notifier has not run yet, and
// the notify wakes it (a push between two pops, at the notify's arrival).
func barrierQueue(t *testing.T, sched schedule, seed uint64, ranks int) *queuePair {
	const notifyPs, skipPs, waitPs, arrivePs = 21623, 1082, 9000, 5000
	p := newQueuePair(t, fmt.Sprintf("barrier/P=%d/sched=%d/seed=%d", ranks, sched, seed), sched, seed, true)
	type rankState struct {
		m      *machine
		pc     int // 0..ranks-1: notify to pc; ranks..2*ranks-1: wait on pc-ranks
		parked int // the peer it waits for, -1 when not parked
	}
	rs := make([]*rankState, ranks)
	notified := make([][]bool, ranks) // notified[to][from]
	for r := range rs {
		rs[r] = &rankState{m: &machine{rank: r, clock: 100}, parked: -1}
		notified[r] = make([]bool, ranks)
	}
	// advance runs r's local steps to its next shared operation and
	// pushes it; false when it has none left.
	advance := func(r *rankState) bool {
		for r.pc < 2*ranks && r.pc%ranks == r.m.rank {
			r.m.clock += skipPs
			r.pc++
		}
		if r.pc == 2*ranks {
			return false
		}
		p.push(r.m)
		return true
	}
	for _, r := range rs {
		advance(r)
	}
	for step := 0; ; step++ {
		m := p.pop(step)
		if m == nil {
			break
		}
		r := rs[m.rank]
		if r.pc < ranks { // a notify
			to := r.pc
			m.clock += notifyPs
			notified[to][m.rank] = true
			if w := rs[to]; w.parked == m.rank {
				w.parked = -1
				w.m.clock = max(w.m.clock, m.clock+arrivePs)
				p.push(w.m) // woken: back in the queue in front of its wait
			}
		} else { // a wait
			from := r.pc - ranks
			if !notified[m.rank][from] {
				r.parked = from
				continue
			}
			m.clock += waitPs
		}
		r.pc++
		advance(r)
	}
	for _, r := range rs {
		if r.pc != 2*ranks {
			t.Fatalf("barrier P=%d: rank %d stopped at %d", ranks, r.m.rank, r.pc)
		}
	}
	return p
}

// ringQueue runs the queue the way a ring does: each round every rank
// runs one shared operation of the same cost after a local stretch whose
// cost depends on the rank, so every push goes after every queued entry.
func ringQueue(t *testing.T, sched schedule, seed uint64, ranks, rounds int) *queuePair {
	p := newQueuePair(t, fmt.Sprintf("ring/P=%d/sched=%d/seed=%d", ranks, sched, seed), sched, seed, true)
	left := make(map[*machine]int)
	for r := 0; r < ranks; r++ {
		m := &machine{rank: r, clock: 0}
		left[m] = rounds
		p.push(m)
	}
	for step := 0; ; step++ {
		m := p.pop(step)
		if m == nil {
			break
		}
		m.clock += 40000 + int64(m.rank%3)
		if left[m]--; left[m] > 0 {
			p.push(m)
		}
	}
	return p
}

// TestReadyQueueBarrierAndRing: the barrier's and the ring's patterns come
// out in the reference's order under the three schedules, and the fair
// schedule takes the inlined paths for nearly every push and pop (where
// the 2x cut in the queue's instructions comes from).
func TestReadyQueueBarrierAndRing(t *testing.T) {
	for _, sc := range readySchedules {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, ranks := range []int{1, 2, 3, 7, 64, 256} {
				b := barrierQueue(t, sc.sched, seed, ranks)
				r := ringQueue(t, sc.sched, seed, ranks, 20)
				if sc.sched != schedFair || ranks < 64 {
					continue
				}
				for _, p := range []*queuePair{b, r} {
					pushes, pops := p.fastPush+p.slowPush, p.fastPop+p.slowPop
					if p.fastPush*100 < pushes*85 || p.fastPop*100 < pops*95 {
						t.Errorf("%s: %d of %d pushes and %d of %d pops took the inlined paths, want 85%% and 95%%", p.name, p.fastPush, pushes, p.fastPop, pops)
					}
				}
			}
		}
	}
}

// TestReadyQueueFirstAndBound: the cases that change what the fast pop
// relies on. A push earlier than everything goes to first while a run is
// being taken from; a second earlier one sends the old first back into
// the rest, ahead of the run's head; a push to an empty run lands between
// the run's head and the bound; and a push into the heap becomes the
// heap's top below the bound.
func TestReadyQueueFirstAndBound(t *testing.T) {
	for _, sc := range readySchedules {
		p := newQueuePair(t, "first/"+sc.name, sc.sched, 9, true)
		ms := make([]*machine, 12)
		for i := range ms {
			ms[i] = &machine{rank: i}
		}
		at := func(i int, clock int64) *machine { ms[i].clock = clock; return ms[i] }
		// run 0: 10, 20, 30, 40; run 1: 15, 25 (15 precedes run 0's tail).
		for i, c := range []int64{10, 20, 30, 40} {
			p.push(at(i, c))
		}
		p.push(at(4, 15))
		p.push(at(5, 25))
		p.pop(0)          // 10
		p.push(at(6, 12)) // after the last pop, before every head: first
		p.push(at(7, 11)) // earlier still: 12 goes back into the rest
		p.pop(1)          // 11
		p.pop(2)          // 12
		p.push(at(8, 13)) // before the run heads again
		p.push(at(9, 17)) // between the heads: a new bound
		p.push(at(10, 16))
		p.push(at(11, 14))
		for step := 3; p.queued > 0; step++ {
			p.pop(step)
		}
	}
}
