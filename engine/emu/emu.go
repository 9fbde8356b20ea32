// Package emu runs a checked pld program (an *ir.Program) on P simulated
// ranks: the bundled emulator that stands in for a rack of Ascend NPUs.
//
// # What it models
//
// The host orchestrator runs its statements in order. pld.alloc_window_buffer
// gives every rank its own zero-initialised copy of the buffer; each rank's
// window is one byte slice in which buffers are packed in allocation order,
// each padded to 32 bytes, so the layout is symmetric (pld-spec §5.3,
// ruling 10). All memory — windows, host tensors, tiles — is raw
// little-endian bytes of its dtype, so a byte-form buffer viewed as FP32,
// get_byte() sizing and bulk moves (Go's copy) behave as on the device.
// x[r] is a view into the host tensor; stores through it land there.
// A host call with device=r does not run at once: it is queued on rank r,
// and the queued calls of all ranks run concurrently when the dispatch loop
// that issued them ends (or, for dispatches outside any loop, before the
// host's next statement); the host waits for all of them. A host may
// dispatch several loops in sequence.
//
// Ranks run the orchestration wrapper and its kernel with every pl op of
// pld-spec §3 and every pld primitive of §4.3–4.6, plus the primitives only
// lowered programs contain (pl.tensor.view, pl.get_block_idx, and a kernel
// launched as a grid of blocks, each block a machine of its own sharing the
// rank's memory). Builtin collectives (pld.tensor.allreduce and friends)
// are lowered to primitives by package lower before a run; running one
// unlowered is a run-time error that says so. Integer scalars wrap at their
// width, and run-time % and // truncate toward zero (ruling 7). FP16 and
// BF16 values are rounded to nearest-even through float32, as the vector
// unit does.
//
// # Scheduler: explicit state machines, one goroutine
//
// Each rank is an explicit state machine — a stack of frames, each a stack
// of block cursors — interpreted by the goroutine that called Run. A rank
// runs ahead through everything that touches only its own state (scalar
// arithmetic, tile compute, control flow, calls) and stops in front of the
// next operation that touches shared state: window memory, signal cells or
// host tensors. The scheduler keeps the stopped ranks in a min-heap keyed
// by (simulated clock, rank) and always executes the shared operation of
// the rank that is earliest on the simulated timeline, lowest rank first on
// a tie; that is the deterministic "fair" schedule, and it makes the order
// of shared operations follow the cost model. A wait whose predicate is
// false parks its rank on the cell; the notify that changes the cell moves
// it back to the heap, no earlier than the notify's arrival time. When the
// heap is empty while ranks are still parked, every unfinished rank is
// blocked in a wait: a deadlock, reported with each rank's cell.
//
// Options.Schedule swaps the order: random:SEED draws the next rank from
// the ready ones with a seeded generator, and adversarial runs the ranks
// about to read window memory first and those about to write it last, so
// that a read nothing orders after the write it needs actually sees stale
// data (sched.go). No schedule can pass a wait early, so a deadlock is a
// deadlock under all of them, and each rank's clock still advances only by
// its own operations and the notifies it waits for.
//
// # Race detector
//
// Unless Options.NoRaces, every access to window memory or a host tensor
// is checked against the earlier accesses to the same bytes by other
// ranks (and blocks): a conflicting pair that no chain of program order,
// notify→wait edges and dispatch fork/join orders is a race (pld-spec
// §5.6). Epochs and copy-on-write vector clocks per rank and block, a
// shadow of byte ranges per window copy and host tensor that keeps one
// entry per thread and kind, and signal cells kept apart from it, make a
// check a search and a scan of a few entries, however large the tile, and
// a notify or wait O(1) in a barrier (race.go, shadow.go, cellrace.go). A race names both accesses — rank, line,
// op, region — and the notify/wait that is missing (racereport.go); it
// does not stop the run, which ends with StatusRace unless it failed.
// BenchmarkRaceDetector measures the cost.
//
// Why not a goroutine per rank handing a baton: a hand-off costs 350–450 ns
// here (channel or sync.Cond ping-pong, perf-anchors §6.2), paid at every
// shared operation, while switching state machines is a heap pop and push
// of an inline key (tens of ns). A hand-rolled barrier at P=256 is 65,280
// notifies and as many waits: 50 ms of hand-offs alone, where the whole
// run takes about 40 ms here (BenchmarkBarrier). Determinism would need
// the baton anyway, and one goroutine makes cancellation and "no goroutine
// outlives Run" trivial: there is nothing to join. The price is an
// interpreter that can stop between any two statements, which a tree-shaped
// IR makes cheap (a cursor is a slice of statements and an index); a
// statement costs about 9 ns (TestDefaultBudget runs 50 million in 0.5 s).
//
// # Limits and failure
//
// Every executed statement counts against Options.MaxSteps; the wall clock
// (Options.Timeout) and ctx are checked between statements through an
// atomic flag that a timer and context.AfterFunc set, so a run stops within
// microseconds of either. A peer outside [0, P), an out-of-bounds region, a
// dtype or shape that does not match at run time, division by zero, the
// step budget and the time limit all end the run with a RunError naming the
// rank, the line and the values; a panic in the interpreter becomes a
// runtime_error too. Options.Meter holds the run to a memory budget: what
// it allocates is reserved first, so a request past it ends the run with
// E0516 before the memory is touched (budget.go); a deadline on ctx counts
// as the wall-clock limit (status timeout), a cancellation as canceled.
//
// # Cost model
//
// Each stream — a rank's kernel, or one block of a kernel grid — has a
// simulated clock, and its operations take their time in program order;
// cost.go holds the platform profiles (910B, 950) with the source of every
// constant. A local tile operation costs an issue overhead plus bytes over
// HBM or vector bandwidth. A remote transfer costs the issue overhead, then
// the longest of bytes over one stream's link rate (18.6 GB/s on 910B) and
// its bookings on the shared resources of the HCCS full mesh — the link
// from source to destination chip (28 GB/s per direction) and both chips'
// aggregates (196 GB/s per direction), each served first come first
// served — then one link latency (0.5 µs). A notify arrives one latency
// after it is issued, and a wait it releases ends an issue overhead after
// that.
package emu

import (
	"context"
	"fmt"
	"time"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// Options configures a run.
type Options struct {
	// Inputs holds the host tensor parameters by name. A missing input that
	// is not pl.Out is an error; pl.Out parameters start at zero (an Out
	// tensor given here only fixes its shape and dtype).
	Inputs map[string]*Tensor
	// Scalars holds the host scalar parameters by name.
	Scalars map[string]float64
	// Dims gives pl.dynamic dimensions their values where no input's shape
	// binds them (an output-only dimension); the rank count otherwise.
	Dims map[string]int64
	// Schedule picks the order in which ready ranks run their shared
	// operations: "" or "fair" (earliest simulated clock first, the
	// default), "random:SEED" (a seeded random interleaving) or
	// "adversarial" (window reads as early and window writes as late as
	// the synchronisation allows). See sched.go; ValidateSchedule checks a
	// value.
	Schedule string
	// NoRaces turns the race detector off. It is on by default: every
	// access to window memory and host tensors is checked for a conflicting
	// access that no notify/wait chain orders (race.go), at a cost
	// BenchmarkRaceDetector measures.
	NoRaces bool
	// MaxSteps is the statement budget of the whole run; 0 means
	// DefaultMaxSteps.
	MaxSteps int64
	// Timeout is the wall-clock limit; 0 means DefaultTimeout.
	Timeout time.Duration
	// OnEvent receives every event in a deterministic order as it happens.
	OnEvent trace.Sink
	// EventBytes is what one event handed to OnEvent costs the caller that
	// keeps it, charged to Meter: 0 means limits.EventBytes, a negative
	// value nothing (a sink that writes each event out and keeps none).
	EventBytes int64
	// KeepEvents is how many events the sink keeps (the server's run log
	// keeps the first 500,000); later ones are delivered uncharged. 0
	// means every one.
	KeepEvents int64
	// Platform selects the cost-model profile, a row of engine/platform by
	// name ("" is its default).
	Platform string
	// Meter is the account of the piece of work the run belongs to: the run
	// reserves what it allocates there first (budget.go) and refuses a rank
	// count above its Budget.MaxRanks. nil means no memory limit.
	Meter *limits.Meter
}

// Defaults for Options.
const (
	DefaultMaxSteps = 50_000_000
	DefaultTimeout  = 10 * time.Second
)

// Status is how a run ended.
type Status string

// Run statuses.
const (
	StatusOK           Status = "ok"
	StatusRuntimeError Status = "runtime_error"
	StatusDeadlock     Status = "deadlock"
	StatusTimeout      Status = "timeout"
	StatusCanceled     Status = "canceled"
	// StatusRace: the run finished, but the race detector found accesses
	// that no notify/wait orders (Result.Races). A run that failed in
	// another way keeps that status and still lists its races.
	StatusRace Status = "race"
	// StatusCompileError: a program that does not compile never starts;
	// the engine ends its run with this status.
	StatusCompileError Status = "compile_error"
)

// Result is the outcome of a run.
type Result struct {
	Status Status `json:"status"`
	// Outputs holds every host tensor parameter after the run (also after
	// a failed run: the state when it stopped).
	Outputs  map[string]*Tensor `json:"-"`
	Deadlock *Deadlock          `json:"deadlock,omitempty"`
	Error    *RunError          `json:"error,omitempty"`
	// Races lists the distinct races found (one per pair of source lines
	// and memory), in the order they were found, at most MaxRaces of them;
	// RacesOmitted counts the distinct races beyond that.
	Races        []Race `json:"races,omitempty"`
	RacesOmitted int    `json:"races_omitted,omitempty"`
	Stats        Stats  `json:"stats"`
}

// Deadlock lists the blocked ranks when every unfinished rank waits.
type Deadlock struct {
	Ranks []Blocked `json:"ranks"`
}

// Blocked is one rank stuck in a wait.
type Blocked struct {
	Rank int `json:"rank"`
	// Block is the block of a kernel launched as a grid (0 otherwise).
	Block    int    `json:"block,omitempty"`
	Line     int    `json:"line"`
	Cell     string `json:"cell"`     // "signal[2, 0]", in Rank's own copy
	Value    int64  `json:"value"`    // the cell's current value
	Cmp      string `json:"cmp"`      // "Eq" or "Ge"
	Expected int64  `json:"expected"` // what the wait wants
	// NotifiedBy lists the ranks that notified this cell so far, ascending;
	// never nil, so JSON shows [] rather than null.
	NotifiedBy []int `json:"notified_by"`
}

// RunError is a run-time error: which rank (-1 for the host), which source
// line, and a message with the values involved.
type RunError struct {
	Rank    int    `json:"rank"`
	Line    int    `json:"line"`
	Message string `json:"message"`
	// Code is a stable code (E05xx) the UI can link to a lesson.
	Code string `json:"code,omitempty"`
	// Hint says what to do about it; may be empty.
	Hint string `json:"hint,omitempty"`
	// Col is the source column of the statement (1-based, 0 if unknown).
	Col int `json:"col,omitempty"`
}

func (e *RunError) Error() string {
	who := fmt.Sprintf("rank %d", e.Rank)
	if e.Rank < 0 {
		who = "host"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s, line %d: %s", who, e.Line, e.Message)
	}
	return who + ": " + e.Message
}

// Stats counts what a run did.
type Stats struct {
	Events      int64 `json:"events"`
	Notifies    int64 `json:"notifies"`
	Waits       int64 `json:"waits"`
	RemoteBytes int64 `json:"remote_bytes"` // bytes moved to or from another rank's window
	LocalBytes  int64 `json:"local_bytes"`  // bytes moved within a rank (incl. RMA with peer == me)
	SimTimeNs   int64 `json:"sim_time_ns"`  // the simulated makespan
	Steps       int64 `json:"steps"`        // statements executed (the MaxSteps budget)
}

// Run executes prog's entry at prog.Ranks ranks and returns how it ended.
// It never panics and never leaves a goroutine behind; ctx cancels it. It
// does not modify prog, so several runs of one program may go at once. A
// caller that runs a program more than once compiles it once (Compile) and
// calls Compiled.Run.
func Run(ctx context.Context, prog *ir.Program, opts Options) *Result {
	return Compile(prog).Run(ctx, opts)
}

// Run is Run of the compiled program; several may go at once.
func (cp *Compiled) Run(ctx context.Context, opts Options) (res *Result) {
	s, err := newSim(cp, opts)
	if err != nil {
		return &Result{Status: StatusRuntimeError, Error: err, Outputs: map[string]*Tensor{}}
	}
	stop := s.watch(ctx)
	defer stop()
	defer s.giveBack()
	defer func() {
		if p := recover(); p != nil {
			if mf, ok := p.(memFailure); ok {
				s.place(mf.f)
				res = s.result(mf.f)
				return
			}
			res = s.result(s.internalError(p))
		}
	}()
	return s.result(s.runHost())
}
