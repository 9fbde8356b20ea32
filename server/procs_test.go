package server

import (
	"context"
	"runtime"
	"testing"
	"time"

	"pldworkbench/engine/limits"
)

// TestProcsFollowSlots: with TuneProcs, GOMAXPROCS is one while at most
// one slot is in use, rises at once with a second, comes down only once
// fewer have been in use for limits.ProcsHold, and is given back when
// the server shuts down; without it, the server leaves it alone.
func TestProcsFollowSlots(t *testing.T) {
	was := runtime.GOMAXPROCS(0)
	if was < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	defer runtime.GOMAXPROCS(was)
	p := newProcs()
	got := func(want int, when string) {
		t.Helper()
		if n := runtime.GOMAXPROCS(0); n != want {
			t.Fatalf("%s: GOMAXPROCS %d, want %d", when, n, want)
		}
	}
	got(1, "idle")
	p.inUse(1)
	got(1, "one slot")
	p.inUse(2)
	got(2, "two slots")
	p.inUse(3) // never above what the process had
	got(min(3, was), "three slots")
	p.inUse(1)
	got(min(3, was), "one slot again, within the hold")
	p.mu.Lock()
	p.held = time.Now().Add(-2 * limits.ProcsHold)
	p.mu.Unlock()
	p.inUse(1)
	got(1, "one slot, past the hold")
	p.inUse(0)
	got(1, "no slot")
	p.restore()
	got(was, "restored")

	// A server started with it takes GOMAXPROCS to one and gives it back.
	ts := startOpts(t, Options{TuneProcs: true})
	got(1, "a tuned server, idle")
	if err := ts.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	got(was, "after its shutdown")
	startOpts(t, Options{})
	got(was, "an untuned server")
}
