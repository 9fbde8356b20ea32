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

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Budget bounds one piece of work. Zero fields take the defaults of the
// caller (ServerBudget or CLIBudget) through WithDefaults.
type Budget struct {
	Memory   int64         // bytes the work may make: windows × P, host tensors, tiles, trace events, compile-time values
	Timeout  time.Duration // wall clock of the whole pipeline, front end included
	Steps    int64         // compile-time evaluation steps shared by the whole load (factories and annotations included), big copies charged by size
	RunSteps int64         // emulator statements of one run
	MaxRanks int           // largest rank count; 0 = bounded only by Memory
}

// Defaults of a Budget, shared by the server and the command line unless
// ServerBudget or CLIBudget says otherwise.
const (
	DefaultMemory   = 1 << 30          // 1 GiB per piece of work
	DefaultTimeout  = 10 * time.Second // one run, check or IR dump, front end included
	DefaultSteps    = 1_000_000        // compile-time steps: the 20 lessons need under a thousand; a million is a few hundred ms
	DefaultRunSteps = 50_000_000       // emulator statements: about 0.5 s at 9 ns each
	// CopyStepBytes is what one compile-time step may copy: a value of n
	// bytes made by concatenation, repetition, formatting or slicing costs
	// n/CopyStepBytes steps more (a memmove of 4 KiB is about one
	// evaluated expression here).
	CopyStepBytes = 4096
	// EventBytes is what one trace event the caller keeps in memory is
	// charged: a trace.Event is 184 bytes, its cell name and pointer fields
	// (peer, before, after, released_by) about 40 more, and a slice of
	// them grows by a quarter at a time. Only kept events are charged: a
	// sink that writes each event out keeps none, and one that keeps the
	// first N (the server's run log) is charged for N at most.
	EventBytes = 256
	// CLIMemory is the command line's default memory budget: one piece of
	// work at a time runs on the user's own machine, and a mesh all-reduce
	// of 16 Mi FP32 per rank at P = 8 (x, y and the window: 1.5 GiB) fits.
	CLIMemory = 4 << 30
	// CLIRunSteps is the command line's default emulator statements of a
	// run: a hand-rolled barrier at P = 4096 is about 100 million, and a
	// billion take some 9 s here, so the wall clock ends a long run first.
	CLIRunSteps = 1_000_000_000
	// JSONAhead is how many bytes of the inputs' JSON text `run --json`
	// formats on a second core while the fill makes the inputs and the
	// emulator runs on the first (the run cannot print them yet: the
	// status comes first). At P = 8 with 1 Mi FP32 per rank that window
	// is about 140 ms (randn fill 70, emulator 70). With the amd64
	// formatter (about 5 ns an element alone, BenchmarkRunJSON's
	// json1-ns/elem) one core could format all 8 Mi input elements in it,
	// but the cap ends it first: 64 MiB of text is about 6.1 Mi randn
	// elements (all 8 Mi of an index fill). A cap of about 96 MiB would
	// take every randn input, for an estimated (not measured) 30 MB more
	// resident, nearer the 2x memory bound run --json is held to. What
	// does not fit is formatted after the run, with the outputs.
	JSONAhead = 64 << 20
)

// ServerBudget is what one piece of work in the server may spend.
func ServerBudget() Budget {
	return Budget{Memory: DefaultMemory, Timeout: DefaultTimeout, Steps: DefaultSteps, RunSteps: DefaultRunSteps, MaxRanks: MaxRanks}
}

// CLIBudget is what one command of the command line may spend: the same
// compile-time steps and clock, but more memory (CLIMemory) and run steps
// (CLIRunSteps), and no rank cap (a rank count is bounded by the memory
// it needs).
func CLIBudget() Budget {
	b := ServerBudget()
	b.Memory, b.RunSteps, b.MaxRanks = CLIMemory, CLIRunSteps, 0
	return b
}

// WithDefaults returns b with every zero field taken from def.
func (b Budget) WithDefaults(def Budget) Budget {
	if b.Memory <= 0 {
		b.Memory = def.Memory
	}
	if b.Timeout <= 0 {
		b.Timeout = def.Timeout
	}
	if b.Steps <= 0 {
		b.Steps = def.Steps
	}
	if b.RunSteps <= 0 {
		b.RunSteps = def.RunSteps
	}
	if b.MaxRanks <= 0 {
		b.MaxRanks = def.MaxRanks
	}
	return b
}

// Bytes renders n bytes for a message: "8.0 GiB", "512 MiB", "96 B".
func Bytes(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.size {
			v := float64(n) / float64(u.size)
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", v, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// ParseBytes reads a size as the --mem-limit flag takes it: a number of
// bytes with an optional suffix K, M, G (or KiB, MiB, GiB, KB, MB, GB; all
// powers of 1024).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mul := int64(1)
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mul    int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, mul = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mul
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 || n*float64(mul) >= 1<<62 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes with an optional K, M or G suffix (512MiB, 1GiB, 2G)", s)
	}
	return int64(n * float64(mul)), nil
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

// DefaultRanks is the rank count used when none is given (and no host
// annotation pins one), beside MaxRanks, the largest the server allows: the
// upstream tutorial's default device list for the collective steps is four
// devices.
const DefaultRanks = 4

// Server limits that are plain numbers, read by the server.
const (
	MaxCode  = 256 << 10 // bytes of program text a request may carry (413 above)
	BodySize = 8 << 20   // bytes of a request body (room for MaxCode JSON-escaped)
	MaxRanks = 64        // the server's rank cap
	MaxRuns  = 2         // worker slots: runs, checks, IR, compares and step checks executing at once
	// MaxQueue is how many runs may wait for a slot; a post beyond it is
	// refused with 503 and Retry-After rather than queued without bound.
	// A waiting run holds its code (at most MaxCode) and a goroutine, so
	// 128 of them cost at most 32 MiB, and 100 learners' tabs each waiting
	// on a run still fit.
	MaxQueue = 128
	// UnwatchedGrace is how long a posted run may go without a websocket
	// client before it is dropped (queued or executing): a page opens its
	// socket within milliseconds of its post, so 5 s is generous, and a
	// script that posts without watching cannot hold the slots.
	UnwatchedGrace = 5 * time.Second
	// SessionRuns is how many runs one page's session socket
	// (/ws/session) may stream at once; a run request beyond it is
	// refused with 429. Each stream holds a goroutine and, for a replay,
	// one page of events (about 150 KiB), so one socket cannot make the
	// server hold a replay of every stored run.
	SessionRuns = 32
	// SlotWait bounds how long a check, IR, compare or step check waits
	// for a worker slot before it answers 503.
	SlotWait = 20 * time.Second
	// StoreYield is how long a batch of finished runs' store writes may
	// wait, past StoreDelay, while other runs wait for a worker slot: in
	// a burst the CPU goes first to runs that have not started, and the
	// writes go in one transaction once the queue is empty or the oldest
	// has waited this long.
	StoreYield = 200 * time.Millisecond
	// StoreDelay is how long a finished run's record waits in the store
	// writer's pending batch before the batch is committed (at once when
	// 64 are pending): the run's done and share link go out before the
	// commit, and runs one after another share a transaction. A page
	// running step 8 at P = 4 one run after another finishes a run every
	// 1.5 ms or so, so 20 ms puts a dozen runs in a commit and takes
	// over nine tenths of a commit's fixed cost (the header page, the
	// index leaves, the WAL frame) off each run: server CPU per run
	// measured 805 µs with no delay, 745 at 5 ms, 660 at 20, 705 at 50,
	// 695 at 100 (`go test ./server -bench ServerCPUPerRun/path=session
	// -benchtime 2000x`, ±50 µs between repeats). Longer buys nothing
	// measurable and widens what a kill loses (the store-delay row).
	StoreDelay = 20 * time.Millisecond
	// IdleWorkers is how many of the server's run goroutines (a run's
	// execution, a session's stream of it) wait for the next run once
	// theirs is done, keeping the stack they grew, each at most
	// WorkerIdle: enough for the two worker slots' runs and their
	// streams, with room for a few sessions.
	IdleWorkers = 8
	WorkerIdle  = 5 * time.Second
	// WSWriteBuffer is the buffer a websocket frame is laid out in before
	// it is written (server/routes.go), shared by the sockets through a
	// pool, so an idle socket holds none. A frame longer than the buffer
	// went out in two writes (the websocket library writes its buffer and
	// the rest one after the other on a hijacked connection), each waking
	// the client: at the library's default of 1 KiB that was every frame
	// with an event in it. A run's frames are at most a batch of
	// messages (at most 256, a few hundred bytes each): 64 KiB holds one
	// of step 8's whole.
	WSWriteBuffer = 64 << 10
	// WSSessionRead is a session socket's read buffer (each socket has
	// its own): a run message is the program's text, and at the
	// library's 1 KiB a step's message took a read for its first
	// kilobyte and another for the rest. 16 KiB holds the run message of
	// every bundled step (the longest program is 14 KB).
	WSSessionRead = 16 << 10
	// ProcsHold is how long fewer worker slots must have been in use
	// before `workbench serve` lowers GOMAXPROCS to match (server/procs.go).
	ProcsHold = time.Second
	// PinDelay is how long a run's pin (its share link was shown to a
	// client after it was stored) waits for the next run's store write
	// to go in before it gets a transaction of its own.
	PinDelay = time.Second
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
	// PyPTOProbe bounds the probe for PyPTO (python3 importing pypto and
	// torch, npu-smi listing the cards): importing torch from a cold disk
	// takes seconds, so 30 s is generous.
	PyPTOProbe = 30 * time.Second
	// PyPTOMessages is how many bytes of an exported script's standard
	// error (and output) a PyPTO run keeps: PyPTO's own message ends a
	// traceback, and 8 KiB holds the last frames of one.
	PyPTOMessages = 8 << 10
	// PyPTOKillGrace is how long a killed script's process group has to
	// go after the deadline before its pipes are closed on it.
	PyPTOKillGrace = 2 * time.Second
	// MaxSchedules is how many random schedules the page's schedule
	// explorer runs in one request; the whole request shares one timeout,
	// so more seeds would only be cut off by it.
	MaxSchedules = 64
	// CLISchedules is how many random schedules `run --schedules N` may
	// run: each is a whole run of the program, and the command line has
	// no timeout over all of them.
	CLISchedules = 10000
	// SweepTime bounds a whole sweep the page asks for (every variant, rank
	// count and size, each point also under the run budget): step 19's
	// sweep at 2, 4 and 8 ranks over 1K:16M takes a few seconds here.
	SweepTime = 60 * time.Second
	// MaxSweepPoints bounds the points (variants × rank counts × sizes)
	// of one page sweep.
	MaxSweepPoints = 512
	// ProgramCache bounds the compiled programs the server keeps (by
	// source hash, entry, rank count and platform), in bytes of their
	// estimated footprint (engine.Program.Footprint): a program of the
	// course holds tens of KiB once run, so a class of learners
	// re-running their cells hits it, and programs at MaxCode (about
	// 9 MiB each) cannot make the server hold gigabytes.
	ProgramCache = 64 << 20
	// LogEvery is how often at most `workbench serve` writes its log: the
	// lines of a burst of runs (one each) go out together, a line after a
	// quiet spell at once. A write due later is a wake of the process of
	// its own when the runs have stopped (a thread switch, tens of µs on
	// this machine), so it is rare: a line waits a tenth of a second at
	// most.
	LogEvery = 100 * time.Millisecond
	// CodeTexts is how many bytes of program texts (each with its JSON
	// spelling, so twice its size or more, and a fixed cost per entry) the
	// server keeps to decode and hash a request's code once: the course's
	// kernels are 2–10 KB, so a class's cells fit many times over.
	CodeTexts = 4 << 20
	// CellPagePool is how many bytes of signal-cell pages of each kind
	// (6 KiB per 256 cells, 8 KiB with race-detector state) the process
	// keeps between runs for the next run to reuse: a barrier's P² cells at
	// P = 1024 fill 32 MiB with race state, and a fresh page costs its
	// first touch (page faults) and its share of garbage collection. The
	// server's runs (P ≤ 64) use a few pages each.
	CellPagePool = 64 << 20
	// VclockPool is how many bytes of race-detector vector clocks the
	// process keeps between runs for the next run to reuse: a barrier at
	// P = 1024 makes 1024 of 4 KiB, one per rank.
	VclockPool = 16 << 20
)

// Table lists every limit. Keep it in the order API.md shows it.
var Table = []Limit{
	{Name: "code-size", What: "program text in one request", Server: "256 KiB", CLI: "—", Flag: "—",
		Error: "413 `code is N bytes, more than the 262144 allowed`"},
	{Name: "body-size", What: "one request body", Server: "8 MiB", CLI: "—", Flag: "—",
		Error: "the connection is closed before the body is read"},
	{Name: "ranks", What: "rank count of one piece of work, however it was derived (request, pinned by the host's tensors, factory)", Server: "64", CLI: "none (bounded by memory)", Flag: "—",
		Error: "400 `ranks N out of range: want 1..64`, or diagnostic E0517 `the program runs at N ranks; the limit is 64`"},
	{Name: "memory", What: "bytes one piece of work makes: window buffers × P, host tensors, tiles, per-rank state, signal cells and who notified them, the race detector's shadow and clocks as they grow (none under --no-races), trace events kept (256 B each; none for a sink that streams them), compile-time values", Server: "1 GiB", CLI: "4 GiB", Flag: "--mem-limit SIZE",
		Error: "run: status `runtime_error`, E0516 `alloc_window_buffer wants 8.0 GiB across 4 ranks; the limit is 1 GiB`; check: E0320 for compile-time values, E0516 for what the rank count needs"},
	{Name: "json-ahead", What: "bytes of the inputs' JSON text `run --json` formats on another core while the fill makes them and the emulator runs (its own bound, outside the run's memory budget, so `--json` never changes a run's outcome)", Server: "—", CLI: "64 MiB", Flag: "—",
		Error: "the inputs past it are formatted after the run, with the outputs: the same bytes, later"},
	{Name: "timeout", What: "wall clock of one piece of work, front end included (parsing, module evaluation, checking, lowering, emulation)", Server: "10 s", CLI: "10 s", Flag: "--timeout DUR",
		Error: "run: status `timeout`, E0505 (E0321 when the front end was running); check, IR: diagnostic E0321. A run's clock starts when it gets a worker slot (time queued is not charged); a timed-out run is not stored, so a re-post runs again"},
	{Name: "compile-steps", What: "compile-time evaluation steps, shared by module code, factories and annotations; a copy of n bytes costs n/4096 more", Server: "1,000,000", CLI: "1,000,000", Flag: "—",
		Error: "E0310 `compile-time evaluation did not finish within N steps`"},
	{Name: "run-steps", What: "emulator statements of one run", Server: "50,000,000", CLI: "1,000,000,000", Flag: "—",
		Error: "status `runtime_error`, E0504 `the step budget is exhausted`"},
	{Name: "concurrent-runs", What: "worker slots shared by runs, checks, IR, compares and step checks", Server: "2", CLI: "—", Flag: "--runs",
		Error: "a run waits with status `queued` and `queue` messages; a check, IR, compare or step check waits (`slot-wait`)"},
	{Name: "slot-wait", What: "how long a check, IR dump, compare or step check waits for a worker slot", Server: "20 s", CLI: "—", Flag: "—",
		Error: "503 `the workbench is busy: all N worker slots stayed taken for 20s` with `Retry-After`"},
	{Name: "queue", What: "runs waiting for a slot", Server: "128", CLI: "—", Flag: "--queue",
		Error: "503 `the run queue is full (128 waiting)` with `Retry-After`"},
	{Name: "unwatched-grace", What: "time a posted run may go without a websocket client", Server: "5 s", CLI: "—", Flag: "—",
		Error: "the run is dropped (done status `cancelled`, not stored)"},
	{Name: "store-budget", What: "size of the run store (code, records, compressed events)", Server: "1 GiB", CLI: "—", Flag: "--store-budget",
		Error: "the oldest unpinned runs are evicted; their links answer 404"},
	{Name: "store-delay", What: "how long a finished run's record waits in the store writer's batch before the batch is committed in one transaction (at once when 64 runs are pending, or when its events or trace are asked for); the run's `done` and share link go out before the commit, and until it the run answers from memory as a stored one; 0 commits each run before its `done`, which then carries the link only if the commit succeeded", Server: "20 ms", CLI: "—", Flag: "--store-delay",
		Error: "the batch is committed; a server killed (or crashing) before that loses the runs of the batch: at most their delay and the store yield's, plus the commit's own time. Their links were shown and then answer 404, and a re-post runs them again. A commit that fails is logged and leaves its runs lingering unstored for the unwatched grace, answering from memory (share page, record, socket; events and trace 404)"},
	{Name: "store-yield", What: "how much longer, past the store delay, a batch of finished runs' store writes waits while other runs wait for a worker slot (writes go in one transaction)", Server: "200 ms", CLI: "—", Flag: "—",
		Error: "the write goes ahead with whatever else is pending"},
	{Name: "output-size", What: "tensor elements of a run's outputs kept whole", Server: "262144", CLI: "—", Flag: "—",
		Error: "a larger output keeps its first 64 elements per rank, `truncated`, `full_shape` and `stats` (min, max, mean, count, nan)"},
	{Name: "event-page", What: "events per stored page (replays hold one page at a time)", Server: "1024", CLI: "—", Flag: "—",
		Error: "—"},
	{Name: "pypto-probe", What: "wall clock of looking for PyPTO (python3 importing pypto and torch, npu-smi listing the cards); a PyPTO run itself has the timeout and memory rows, memory as the script's data-segment limit", Server: "30 s", CLI: "30 s", Flag: "—",
		Error: "PyPTO counts as missing: `pypto is not importable by python3: build it from …`"},
	{Name: "pypto-messages", What: "bytes of an exported script's output a PyPTO run keeps (the end of it)", Server: "8 KiB", CLI: "8 KiB", Flag: "—",
		Error: "the earlier output is dropped, marked `…`"},
	{Name: "sweep", What: "one sweep the page asks for: its points (variants × rank counts × sizes) and its wall clock, each point also under the run budget", Server: "512 points, 60 s", CLI: "— (`workbench sweep`: each point 2 min)", Flag: "—",
		Error: "400 `the sweep has N points, more than the 512 allowed`; points past 60 s are left out (`done` false)"},
	{Name: "cell-page-pool", What: "bytes of signal-cell pages the process keeps between runs for reuse, of each kind (with and without race-detector state)", Server: "64 MiB", CLI: "64 MiB", Flag: "—",
		Error: "a page beyond it is left to the garbage collector; the next run makes a fresh one"},
	{Name: "vclock-pool", What: "bytes of race-detector vector clocks the process keeps between runs for reuse", Server: "16 MiB", CLI: "16 MiB", Flag: "—",
		Error: "a clock beyond it is left to the garbage collector; the next run makes a fresh one"},
	{Name: "program-cache", What: "bytes of compiled programs the server keeps (their text, IR and emulator form, estimated), by source hash, entry, rank count and platform", Server: "64 MiB", CLI: "—", Flag: "—",
		Error: "the least recently used program is dropped; its next request compiles it again"},
	{Name: "code-texts", What: "bytes of program texts (with their JSON spellings) the server keeps to unquote and hash a request's code once", Server: "4 MiB", CLI: "—", Flag: "—",
		Error: "the oldest text is dropped; its next request unquotes and hashes it again"},
	{Name: "log-every", What: "how long `workbench serve` holds a log line to join it with others in one write (a line after a quiet spell goes out at once; shutdown writes what is held)", Server: "100 ms", CLI: "—", Flag: "—",
		Error: "— (a line waits at most this long)"},
	{Name: "schedules", What: "random schedules one schedule-explorer request runs (the whole request has one timeout)", Server: "64", CLI: "10000 (`run --schedules N`)", Flag: "—",
		Error: "400 `schedules N out of range: want 1..64`; seeds the timeout cut off are reported as not run"},
}

// Markdown renders Table as the Markdown table that server/API.md and the
// README carry between the markers BeginMarker and EndMarker.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| limit | what it bounds | server default | CLI default | flag | past it |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, l := range Table {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", l.Name, l.What, l.Server, l.CLI, l.Flag, l.Error)
	}
	return b.String()
}

// The markers around the generated table in the docs.
const (
	BeginMarker = "<!-- limits table: generated from engine/limits; go test ./engine/limits -update -->"
	EndMarker   = "<!-- end of limits table -->"
)
