package limits

import (
	"context"
	"errors"
	"sync/atomic"
)

// Meter is the account of one piece of work: the Budget it runs under, the
// context that carries its deadline and cancellation, and what it spent so
// far. Every stage of the pipeline charges the same Meter, so module code,
// the factories called to pick an entry, annotations evaluated by the
// checker and the emulator's allocations share one budget.
//
// Two memory counters are kept, each held to Budget.Memory: Compile counts
// the bytes the compile-time evaluator made (cumulative: the evaluator
// cannot see when Python would free a value, and what it made is what the
// garbage collector has to carry), Run counts the bytes a run holds
// (windows × P, host tensors, live tiles, per-rank state, trace events).
//
// A nil *Meter is an unlimited one, so stages tested on their own need none.
// Steps and Compile are charged by one goroutine at a time (the front end
// is sequential); Run is atomic so a caller may read it while a run goes.
type Meter struct {
	Budget Budget
	ctx    context.Context

	steps   int64
	compile int64
	run     atomic.Int64
	peak    atomic.Int64
}

// NewMeter returns the account of a piece of work under b, done when ctx is.
// The caller applies the wall clock (see Start); NewMeter does not, so
// that one deadline can cover several meters (a comparison's two runs).
func NewMeter(ctx context.Context, b Budget) *Meter {
	if ctx == nil {
		ctx = context.Background()
	}
	return &Meter{Budget: b, ctx: ctx}
}

// Start applies b.Timeout to ctx and returns the meter of the work with the
// function that releases the timer.
func Start(ctx context.Context, b Budget) (*Meter, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	cancel := context.CancelFunc(func() {})
	if b.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, b.Timeout, ErrTimeout)
	}
	return NewMeter(ctx, b), cancel
}

// ErrTimeout is the cause of a context that Start's deadline ended.
var ErrTimeout = errors.New("the wall-clock limit passed")

// Context returns the context of the work.
func (m *Meter) Context() context.Context {
	if m == nil {
		return context.Background()
	}
	return m.ctx
}

// Stopped reports why the work must stop: nil while it may go on, else
// context.DeadlineExceeded for the deadline or context.Canceled when the
// caller gave up.
func (m *Meter) Stopped() error {
	if m == nil {
		return nil
	}
	return m.ctx.Err()
}

// IsTimeout reports whether err (from Stopped) is the deadline.
func IsTimeout(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

// Step charges n compile-time steps and reports whether the budget still
// holds. Spent returns the total.
func (m *Meter) Step(n int64) bool { return m == nil || charge(&m.steps, n, m.Budget.Steps) }

// Spent returns the compile-time steps charged so far.
func (m *Meter) Spent() int64 {
	if m == nil {
		return 0
	}
	return m.steps
}

// Compile charges n bytes made by the compile-time evaluator and reports
// whether the memory budget still holds; CompileBytes returns the total.
func (m *Meter) Compile(n int64) bool { return m == nil || charge(&m.compile, n, m.Budget.Memory) }

// charge adds n to *used and reports whether it is still within limit
// (no limit when limit ≤ 0): the rule of the steps and compile counters.
func charge(used *int64, n, limit int64) bool {
	*used += n
	return limit <= 0 || *used <= limit
}

// CompileBytes returns the bytes the compile-time evaluator made so far.
func (m *Meter) CompileBytes() int64 {
	if m == nil {
		return 0
	}
	return m.compile
}

// Reserve charges n bytes a run is about to hold. It refuses (and charges
// nothing) when the total would pass the budget, so the caller can report
// the request before touching the memory.
func (m *Meter) Reserve(n int64) bool {
	if m == nil || n <= 0 {
		return true
	}
	if n < 0 || (m.Budget.Memory > 0 && n > m.Budget.Memory-m.run.Load()) {
		return false
	}
	now := m.run.Add(n)
	for {
		p := m.peak.Load()
		if now <= p || m.peak.CompareAndSwap(p, now) {
			break
		}
	}
	return true
}

// Release gives back n bytes a run no longer holds.
func (m *Meter) Release(n int64) {
	if m != nil && n > 0 {
		m.run.Add(-n)
	}
}

// Held returns the bytes a run holds now, Peak the most it held.
func (m *Meter) Held() int64 {
	if m == nil {
		return 0
	}
	return m.run.Load()
}

// Peak returns the most bytes the run held at once.
func (m *Meter) Peak() int64 {
	if m == nil {
		return 0
	}
	return m.peak.Load()
}

// Left returns the bytes a run may still reserve (-1 for no limit).
func (m *Meter) Left() int64 {
	if m == nil || m.Budget.Memory <= 0 {
		return -1
	}
	return m.Budget.Memory - m.run.Load()
}
