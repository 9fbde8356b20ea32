package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// slots are the server's worker slots (limits.MaxRuns by default): every
// piece of CPU work a client asks for — a run, a check, an IR dump, a
// comparison, a step check — executes in one, so no mix of requests runs
// more than that many engines at once on a 2-core laptop.
//
// Work that cannot have a slot at once waits in one queue. Requests whose
// client waits on the answer (checks, IR, compares, step checks) and runs
// with a websocket client go first, in the order they came; runs nobody
// watches go after them, so a script posting runs it never watches cannot
// delay a learner's. Runs waiting are bounded (maxRuns): past it a post is
// refused (503, Retry-After). Each waiting run is told its position
// whenever it changes (run.setQueuePos appends a `queue` message when
// someone watches).
type slots struct {
	mu      sync.Mutex
	n       int // slots
	free    int
	maxRuns int       // runs that may wait
	queue   []*waiter // in arrival order
	runs    int       // runs in queue
	classes []bool    // positionsLocked's scratch: each waiter's watched()
	procs   *procs    // told the slots in use (nil: GOMAXPROCS is left alone)
}

// waiter is one piece of work waiting for a slot.
type waiter struct {
	r       *run // nil: a request whose client waits on its HTTP answer
	ready   chan struct{}
	granted bool
}

func newSlots(n, maxQueue int, p *procs) *slots {
	return &slots{n: n, free: n, maxRuns: maxQueue, procs: p}
}

// watched reports whether w goes in the first class.
func (w *waiter) watched() bool { return w.r == nil || w.r.isWatched() }

// enqueueRun admits run r: granted at once when a slot is free and
// nobody waits, else queued; ok is false when the run queue is full. A
// queued run is given its "queued" status before anything else can be
// appended to its log (a queue message, once someone watches).
func (s *slots) enqueueRun(r *run) (w *waiter, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w = &waiter{r: r, ready: make(chan struct{})}
	if s.free > 0 && len(s.queue) == 0 {
		s.free--
		s.procs.inUse(s.n - s.free)
		w.granted = true
		close(w.ready)
		return w, true
	}
	if s.runs >= s.maxRuns {
		return nil, false
	}
	r.add(statusMessage("queued", r.id, r.settings, r.settings.Ranks, r.settings.Entry))
	s.queue = append(s.queue, w)
	s.runs++
	s.positionsLocked()
	return w, true
}

// acquire waits for a slot for a request (not a run) until ctx is done.
func (s *slots) acquire(ctx context.Context) bool {
	s.mu.Lock()
	w := &waiter{ready: make(chan struct{})}
	if s.free > 0 && len(s.queue) == 0 {
		s.free--
		s.procs.inUse(s.n - s.free)
		s.mu.Unlock()
		return true
	}
	s.queue = append(s.queue, w)
	s.positionsLocked()
	s.mu.Unlock()
	return s.wait(ctx, w)
}

// wait blocks until w is granted (true) or ctx is done (false: w leaves
// the queue, or, granted in the meantime, gives its slot back).
func (s *slots) wait(ctx context.Context, w *waiter) bool {
	select {
	case <-w.ready:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted {
		s.releaseLocked()
		return false
	}
	for i, q := range s.queue {
		if q == w {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			if w.r != nil {
				s.runs--
			}
			break
		}
	}
	s.positionsLocked()
	return false
}

// release gives a slot back and hands it to the next waiter.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
}

func (s *slots) releaseLocked() {
	s.free++
	for s.free > 0 && len(s.queue) > 0 {
		i := s.nextLocked()
		w := s.queue[i]
		s.queue = append(s.queue[:i], s.queue[i+1:]...)
		if w.r != nil {
			s.runs--
		}
		s.free--
		w.granted = true
		close(w.ready)
	}
	s.procs.inUse(s.n - s.free)
	s.positionsLocked()
}

// nextLocked is the index of the waiter to serve: the first watched one,
// else the first.
func (s *slots) nextLocked() int {
	for i, w := range s.queue {
		if w.watched() {
			return i
		}
	}
	return 0
}

// reorder recomputes the positions after a run gained its first watcher.
func (s *slots) reorder() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.positionsLocked()
}

// positionsLocked tells every queued run its position (1 = next), in the
// order nextLocked serves them: watched first, then unwatched.
//
// Each waiter's class is read once a call (into s.classes): a release in
// a burst of 200 runs asked every queued run twice, each under its lock.
func (s *slots) positionsLocked() {
	watched := s.classes[:0]
	unwatched := 0
	for _, w := range s.queue {
		in := w.watched()
		watched = append(watched, in)
		if !in {
			unwatched++
		}
	}
	s.classes = watched
	first, second := 0, len(s.queue)-unwatched // the places before each class's next
	for i, w := range s.queue {
		pos := &second
		if watched[i] {
			pos = &first
		}
		*pos++
		if w.r != nil {
			w.r.setQueuePos(*pos, len(s.queue))
		}
	}
}

// waiting returns how many runs are queued.
func (s *slots) waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs
}

// withSlot runs f for a request in a worker slot, guarded: it waits for the
// slot at most Options.SlotWait (then 503 with Retry-After), and a panic
// in f is a 500 naming an internal error. f's own deadline starts when it
// runs: time spent waiting is not charged to it.
func (s *Server) withSlot(what string, f func()) error {
	if s.closing.Load() {
		return errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "not accepting work")
	}
	wctx, cancel := context.WithTimeout(s.base, s.opts.SlotWait)
	ok := s.slots.acquire(wctx)
	cancel()
	if !ok {
		if s.base.Err() != nil {
			return errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "not accepting work")
		}
		return &apiError{Status: fiber.StatusServiceUnavailable, RetryAfter: s.retryAfter(),
			Msg:  fmt.Sprintf("the workbench is busy: all %d worker slots stayed taken for %v", s.opts.MaxConcurrentRuns, s.opts.SlotWait),
			Hint: "try again after Retry-After seconds"}
	}
	defer s.slots.release()
	if err := s.guard(what, f); err != nil {
		return internalAPIError(err)
	}
	return nil
}
