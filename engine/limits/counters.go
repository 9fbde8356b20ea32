package limits

import (
	"context"
	"sync/atomic"
)

// Counters count what the engine did for the pieces of work whose context
// carries them (WithCounters): parses of program text, compiles (entry
// resolution, check and lowering) and emulator runs. They exist for tests
// that hold a caller to "one parse per request" — the CLI and the server
// attach none in production, so nothing is counted there and no count
// outlives the context it came with.
type Counters struct {
	Parses, Compiles, Runs atomic.Int64
}

type countersKey struct{}

// WithCounters returns ctx carrying c.
func WithCounters(ctx context.Context, c *Counters) context.Context {
	return context.WithValue(ctx, countersKey{}, c)
}

// CountersOf returns the counters ctx carries, or nil (whose Add methods
// do nothing).
func CountersOf(ctx context.Context) *Counters {
	c, _ := ctx.Value(countersKey{}).(*Counters)
	return c
}

// CountParse, CountCompile and CountRun add one to that counter of the
// counters ctx carries, if any.
func CountParse(ctx context.Context) {
	if c := CountersOf(ctx); c != nil {
		c.Parses.Add(1)
	}
}

// CountCompile counts a compile (see CountParse).
func CountCompile(ctx context.Context) {
	if c := CountersOf(ctx); c != nil {
		c.Compiles.Add(1)
	}
}

// CountRun counts an emulator run (see CountParse).
func CountRun(ctx context.Context) {
	if c := CountersOf(ctx); c != nil {
		c.Runs.Add(1)
	}
}
