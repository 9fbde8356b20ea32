// Package limits is the one table of the workbench's resource limits: what
// each bounds, its default in the server and on the command line, the flag
// that sets it and the error a user gets past it. The engine, the server
// and the CLI read their defaults from here, and server/API.md and the
// README document this table (TestLimitsDocumented keeps them in step).
//
// A Budget is what one piece of work — a check, an IR dump, a run, a
// comparison, a step check — may spend. The engine enforces it: memory is
// charged before it is touched, the wall clock covers the whole pipeline
// (parsing, module evaluation, checking, lowering, emulation), and the rank
// cap applies to the rank count the work actually uses, however it was
// derived.
//
// The package imports nothing of the project, so every layer may use it.
package limits

import "time"

// Budget bounds one piece of work. Zero fields take the defaults of the
// caller (ServerBudget or CLIBudget).
type Budget struct {
	Memory   int64         // bytes the work may make: windows × P, host tensors, tiles, trace events, compile-time values
	Timeout  time.Duration // wall clock of the whole pipeline, front end included
	Steps    int64         // evaluation steps shared by the whole load, big copies charged by size
	MaxRanks int           // largest rank count; 0 = bounded only by Memory
}

// Limit is one row of the table.
type Limit struct {
	Name   string // stable key, used in docs and tests
	What   string // what it bounds, in words
	Server string // the server's default
	CLI    string // the command line's default ("—" when the CLI has none)
	Flag   string // the flag(s) that set it
	Error  string // what the user gets past it
}

// Server limits that are plain numbers, read by the server.
const (
	MaxCode  = 256 << 10 // bytes of program text a request may carry (413 above)
	BodySize = 8 << 20   // bytes of a request body (room for MaxCode JSON-escaped)
	MaxRanks = 64        // the server's rank cap
	MaxRuns  = 2         // worker slots: runs, checks, IR, compares and step checks executing at once
	// MaxQueue is how many runs may wait for a slot; a post beyond it is
	// refused with 503 and Retry-After rather than queued without bound.
	MaxQueue = 128
	// UnwatchedGrace is how long a posted run may go without a websocket
	// client before it is dropped (queued or executing): a page opens its
	// socket within milliseconds of its post, so 5 s is generous, and a
	// script that posts without watching cannot hold the slots.
	UnwatchedGrace = 5 * time.Second
	// SlotWait bounds how long a check, IR, compare or step check waits
	// for a worker slot before it answers 503.
	SlotWait = 20 * time.Second
	// StoreBudget is the run store's size (code, record and compressed
	// events) beyond which the oldest unpinned runs are evicted.
	StoreBudget = 1 << 30
	// OutputFull is how many tensor elements of a run's outputs are kept
	// whole, in the order the entry returns them; a tensor past it keeps
	// OutputPrefix elements per rank and its summary statistics.
	OutputFull   = 1 << 18
	OutputPrefix = 64
	// EventPage is how many events one stored page holds: a replay or an
	// events download holds one page (about 150 KiB decoded) at a time.
	EventPage = 1024
)

// Run defaults.
const (
	RunTimeout = 10 * time.Second // one run, front end included
)

// Table lists every limit. Keep it in the order API.md shows it.
var Table = []Limit{
	{Name: "code-size", What: "program text in one request", Server: "256 KiB", CLI: "—", Flag: "—",
		Error: "413 `code is N bytes; the limit is 262144`"},
	{Name: "body-size", What: "one request body", Server: "8 MiB", CLI: "—", Flag: "—",
		Error: "the connection is closed before the body is read"},
	{Name: "ranks", What: "rank count of one run, however it was derived (request, pinned by the host's tensors, factory)", Server: "64", CLI: "—", Flag: "—",
		Error: "400 `ranks N out of range: want 1..64`"},
	{Name: "concurrent-runs", What: "worker slots shared by runs, checks, IR, compares and step checks", Server: "2", CLI: "—", Flag: "--runs",
		Error: "a run waits with status `queued` and `queue` messages; a check, IR, compare or step check waits up to 20 s, then 503 with `Retry-After`"},
	{Name: "queue", What: "runs waiting for a slot", Server: "128", CLI: "—", Flag: "--queue",
		Error: "503 `the run queue is full (128 waiting)` with `Retry-After`"},
	{Name: "unwatched-grace", What: "time a posted run may go without a websocket client", Server: "5 s", CLI: "—", Flag: "—",
		Error: "the run is dropped (done status `cancelled`, not stored)"},
	{Name: "run-timeout", What: "wall clock of one run, from when it gets a slot (time queued is not charged)", Server: "10 s", CLI: "10 s", Flag: "--timeout",
		Error: "status `timeout`, E0505; a timed-out run is not stored, so a re-post runs again"},
	{Name: "store-budget", What: "size of the run store (code, records, compressed events)", Server: "1 GiB", CLI: "—", Flag: "--store-budget",
		Error: "the oldest unpinned runs are evicted; their links answer 404"},
	{Name: "output-size", What: "tensor elements of a run's outputs kept whole", Server: "262144", CLI: "—", Flag: "—",
		Error: "a larger output keeps its first 64 elements per rank, `truncated`, `full_shape` and `stats` (min, max, mean, count, nan)"},
	{Name: "event-page", What: "events per stored page (replays hold one page at a time)", Server: "1024", CLI: "—", Flag: "—",
		Error: "—"},
}
