package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records each Write it is given.
type writes struct {
	mu sync.Mutex
	ws []string
}

func (w *writes) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ws = append(w.ws, string(b))
	return len(b), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.ws...)
}

// TestLogLines: a line after a quiet spell is written at once; the lines
// of a burst after it go out in one write, in order, within LogEvery; a
// flush writes what waits.
func TestLogLines(t *testing.T) {
	var w writes
	const every = 50 * time.Millisecond
	l := newLogLines(&w, every)
	l.printf("run %s %s", "a", "ok")
	if got := w.all(); len(got) != 1 || got[0] != "run a ok\n" {
		t.Fatalf("the first line: %q", got)
	}
	var want strings.Builder
	for i := range 100 {
		l.printf("run %d", i)
		fmt.Fprintf(&want, "run %d\n", i)
	}
	// One write when due (two when this goroutine stalled past every
	// before the burst began, its first line then written at once).
	deadline := time.Now().Add(10 * time.Second) // generous: a loaded machine
	for strings.Join(w.all()[1:], "") != want.String() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	n := len(w.all())
	if got := w.all(); strings.Join(got[1:], "") != want.String() || n > 3 {
		t.Fatalf("the burst: %d writes, ending %.60q", n-1, got[n-1])
	}
	l.printf("last")
	l.flush()
	if got := w.all(); len(got) != n+1 || got[n] != "last\n" {
		t.Fatalf("after the flush: %q", got[n:])
	}
	l.flush() // nothing waits: no write
	if got := w.all(); len(got) != n+1 {
		t.Fatalf("an empty flush wrote: %q", got[n+1:])
	}
}
