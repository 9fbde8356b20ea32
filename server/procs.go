package server

import (
	"runtime"
	"sync"
	"time"

	"pldworkbench/engine/limits"
)

// procs makes GOMAXPROCS follow the worker slots in use (Options.TuneProcs,
// which `workbench serve` sets): at least one, at most what the process
// had when the server started.
//
// Every piece of CPU work a client asks for runs in a slot (slots.go);
// what runs outside one (reading a request, writing frames, the store
// write) is small and follows the run's steps one after the other. With
// one slot in use, a second P finds almost nothing to do, but the runtime
// wakes a thread for it whenever a goroutine hands off to another (a
// request's run to its goroutine, a run's log to its stream, a commit
// back to the run), and that thread spins, finds nothing and sleeps
// again: a fifth of the server's CPU per run, measured with
// BenchmarkServerCPUPerRun (GOMAXPROCS=1 against 2 on this 2-core
// machine). A second slot taken raises GOMAXPROCS at once, so two runs
// still have both cores (BenchmarkFirstEvent); it comes down only after
// fewer slots have been in use for limits.ProcsHold, so a load that
// keeps one or two slots busy by turns does not stop the world for each
// change.
type procs struct {
	mu   sync.Mutex
	max  int       // GOMAXPROCS when the server started (restored by Shutdown)
	cur  int       // GOMAXPROCS now
	n    int       // slots in use at the last change
	held time.Time // when cur slots were last in use
}

// newProcs starts with one P (no slot is in use yet).
func newProcs() *procs {
	p := &procs{max: runtime.GOMAXPROCS(0), held: time.Now()}
	p.cur = p.max
	p.set(1)
	return p
}

// inUse is told the slots in use whenever they change. nil p: not tuned.
func (p *procs) inUse(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.n >= p.cur {
		p.held = now // cur were in use until now
	}
	p.n = n
	want := min(max(n, 1), p.max)
	switch {
	case want > p.cur:
		p.set(want)
		p.held = now
	case want < p.cur && now.Sub(p.held) >= limits.ProcsHold:
		p.set(want)
	}
}

// set changes GOMAXPROCS (p.mu held, or p not shared yet).
func (p *procs) set(n int) {
	if n != p.cur {
		p.cur = n
		runtime.GOMAXPROCS(n)
	}
}

// restore gives the process back the GOMAXPROCS it had.
func (p *procs) restore() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set(p.max)
}
