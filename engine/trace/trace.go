// Package trace is the event model shared by everything that runs a pld
// program: the emulator (engine/emu) today, the NPU backend and the web
// server later, and the Perfetto exporter (perfetto.go). One Event is one
// executed operation of one rank (or of the host): which op, where in the
// source, which peer it touched, how many bytes it moved, what it did to a
// signal cell, and when it started and ended on the simulated clock.
//
// The model is deliberately flat and small. An Event is a plain struct with
// JSON tags; fields that only some operations have (peer, the notify's
// before/after values, the wait's satisfied value and the notify that
// released it) are pointers so that a zero — peer 0, a cell going from 0 to
// 1 — prints as a value while an absent field is left out. Producers hand
// events to a Sink as they happen; a Collector keeps them, a Writer streams
// them as JSON lines (one object per line, fields in struct order, so two
// equal runs give byte-identical files), and Read reads such a file back.
//
// # Perfetto export
//
// WritePerfetto turns a run's events into Chrome Trace Event JSON,
// {"traceEvents": [...], "displayTimeUnit": "ns"}, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. The mapping:
//
//   - One process (pid 1) named by the title, with one thread track per
//     lane: "host" first, then "rank 0", "rank 1", … (thread_name and
//     thread_sort_index metadata in that order). The blocks of a kernel
//     grid get lanes of their own, "rank r / block b", right after their
//     rank; block 0 shares the rank's lane, which is idle while the grid
//     runs.
//   - Every event is an X slice from StartNs to EndNs on its lane, named
//     by the op without its namespace ("tile.remote_load", "call kernel"),
//     with the event's category (Cat: compute, memory, rma, notify,
//     wait, setup, collective or call), and args line,
//     seq, peer, bytes, cell, value, before, after (those the event has).
//   - A wait released by a notify gets a child slice "released" covering
//     its last 10 ns (half the wait if shorter) — the moment it could go
//     on — and a flow arrow (ph "s" then "f" with bp "e", one id per pair,
//     category "flow", name "release") from the middle of the notify's
//     slice to the middle of the released slice, so it binds to both.
//     Perfetto shows the arrow when either end is selected.
//   - Counter "bytes in flight" (ph "C") has one series per rank, "rank
//     r": the bytes of that rank's transfers with other ranks (remote_load,
//     remote_store, put, get) that have started and not yet ended.
//   - Timestamps are microseconds (ts, dur) with nanosecond fractions.
//
// ValidateChromeTrace checks a document against the importer's rules
// (slices nest per track, flows pair up inside slices, metadata present).
//
// The package imports nothing of the project, so every producer and
// consumer can depend on it alone.
package trace

// HostRank is the Rank of events the host orchestrator emits.
const HostRank = -1

// Event is one executed operation.
type Event struct {
	// Rank is the rank that executed the operation, HostRank for the host.
	Rank int `json:"rank"`
	// Block is the block that executed it when the rank runs a kernel
	// launched as a grid of blocks (0 otherwise).
	Block int `json:"block,omitempty"`
	// Seq numbers the events of one rank from 0, in execution order.
	Seq int64 `json:"seq"`
	// Op is the IR operation name ("pl.load", "pld.system.notify", ...) or
	// "call" for a call of another DSL function (a host dispatch included).
	Op string `json:"op"`
	// Cat is the operation's category, from the IR's operation table
	// (ir.Category: compute, memory, rma, notify, wait, setup, collective,
	// call): the producer fills it, and the Perfetto export and the page
	// colour by it. Events stored before it existed have none; readers fill
	// it in with ir.CategoryOf.
	Cat string `json:"cat,omitempty"`
	// Callee names the function a "call" calls, and Blocks the size of the
	// grid it launches (0 for a plain call).
	Callee string `json:"callee,omitempty"`
	Blocks int    `json:"blocks,omitempty"`
	// The source span of the statement, 1-based, the end exclusive.
	Line    int `json:"line"`
	Col     int `json:"col"`
	EndLine int `json:"end_line"`
	EndCol  int `json:"end_col"`
	// Peer is the other rank the operation touched: the target of a notify,
	// remote_load, remote_store, put or get, or the device of a dispatch.
	Peer *int `json:"peer,omitempty"`
	// Bytes is how many bytes the operation moved (0 for pure compute on
	// scalars and for signals).
	Bytes int64 `json:"bytes"`
	// Cell names the signal cell of a notify or wait: "signal[2, 0]", in
	// Peer's copy for a notify and in the local copy for a wait.
	Cell string `json:"cell,omitempty"`
	// Before and After are the cell's value around a notify.
	Before *int64 `json:"before,omitempty"`
	After  *int64 `json:"after,omitempty"`
	// Value is the cell's value when a wait was satisfied.
	Value *int64 `json:"value,omitempty"`
	// ReleasedBy names the notify whose write made a wait's predicate
	// true; nil when no notify ever wrote the cell (a wait on a zero).
	ReleasedBy *Ref `json:"released_by,omitempty"`
	// StartNs and EndNs are the simulated start and end times.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
}

// Ref names one event by rank and sequence number.
type Ref struct {
	Rank int   `json:"rank"`
	Seq  int64 `json:"seq"`
}

// Sink receives events as they happen. Producers call it from one goroutine
// at a time and in a deterministic order.
type Sink func(Event)

// Int returns a pointer to v, for Peer.
func Int(v int) *int { return &v }

// Int64 returns a pointer to v, for Before, After and Value.
func Int64(v int64) *int64 { return &v }

// Collector keeps every event it receives. It is not safe for concurrent
// use; producers deliver events from one goroutine.
type Collector struct {
	Events []Event
}

// Sink returns a Sink that appends to c.Events.
func (c *Collector) Sink() Sink {
	return func(e Event) { c.Events = append(c.Events, e) }
}

// Tee returns a Sink that passes every event to each non-nil sink in order,
// or nil when there is none.
func Tee(sinks ...Sink) Sink {
	var live []Sink
	for _, s := range sinks {
		if s != nil {
			live = append(live, s)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	return func(e Event) {
		for _, s := range live {
			s(e)
		}
	}
}
