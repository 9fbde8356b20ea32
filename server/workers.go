package server

import (
	"sync"
	"time"
)

// workers runs the goroutines each run needs (its execution, a session's
// stream of it) on goroutines that outlive one run. A new goroutine per
// run started on a small stack and grew it by doublings as the engine
// went deeper, copying it and adjusting every frame's pointers at each
// step, and freed the grown stack when it ended: a twentieth of the
// server's CPU per run. A worker that finishes its task waits for the
// next one; at most keep wait, each at most idleFor, so the goroutines
// left after a burst go away (TestLoad counts them).
type workers struct {
	tasks   chan func() // unbuffered: a send succeeds only when a worker waits
	quit    <-chan struct{}
	keep    int
	idleFor time.Duration

	mu   sync.Mutex
	idle int // workers waiting
}

func newWorkers(keep int, idleFor time.Duration, quit <-chan struct{}) *workers {
	return &workers{tasks: make(chan func()), quit: quit, keep: keep, idleFor: idleFor}
}

// do runs f on a waiting worker, or on a new one.
func (p *workers) do(f func()) {
	select {
	case p.tasks <- f:
	default:
		go p.work(f)
	}
}

// work runs f, then the tasks handed to it while it waits.
func (p *workers) work(f func()) {
	var t *time.Timer
	for {
		f()
		f = nil
		p.mu.Lock()
		stay := p.idle < p.keep
		if stay {
			p.idle++
		}
		p.mu.Unlock()
		if !stay {
			return
		}
		if t == nil {
			t = time.NewTimer(p.idleFor)
		} else {
			t.Reset(p.idleFor)
		}
		select {
		case f = <-p.tasks:
		case <-t.C:
		case <-p.quit:
		}
		p.mu.Lock()
		p.idle--
		p.mu.Unlock()
		if f == nil {
			return
		}
		t.Stop()
	}
}
