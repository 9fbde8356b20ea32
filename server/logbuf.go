package server

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// logLines is the server's log. With Options.LogEvery set (`workbench
// serve` sets limits.LogEvery) a line goes out at once when the last
// write was that long ago, else it joins the lines of the next write, at
// most that much later; with 0, every line goes out at once. Every run
// logs a line, and a write of its own (to a pipe or a terminal, which
// wakes its reader) was a fiftieth of the server's CPU per run, measured
// with BenchmarkServerCPUPerRun. Shutdown writes what is left.
type logLines struct {
	mu    sync.Mutex
	w     io.Writer
	every time.Duration
	buf   []byte
	last  time.Time   // the last write to w
	due   *time.Timer // set while buf waits for its write
}

func newLogLines(w io.Writer, every time.Duration) *logLines {
	return &logLines{w: w, every: every}
}

// printf logs one line.
func (l *logLines) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = fmt.Appendf(l.buf, format+"\n", args...)
	if l.due != nil {
		return // written when due
	}
	wait := l.every - time.Since(l.last)
	if wait <= 0 {
		l.writeLocked()
		return
	}
	l.due = time.AfterFunc(wait, l.flush)
}

// flush writes the lines waiting.
func (l *logLines) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.due != nil {
		l.due.Stop()
		l.due = nil
	}
	l.writeLocked()
}

func (l *logLines) writeLocked() {
	if len(l.buf) > 0 {
		l.w.Write(l.buf) // a log has no one to tell of its failure
		l.last = time.Now()
	}
	l.buf = l.buf[:0]
	if cap(l.buf) > 64<<10 {
		l.buf = nil // a burst's lines: not kept
	}
}
