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
	"strings"
	"time"
)

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
	MaxRuns  = 2         // runs executing at once in the server
)

// Run defaults.
const (
	RunTimeout = 10 * time.Second // one run, front end included
)

// Table lists every limit. Keep it in the order API.md shows it.
var Table = []Limit{
	{Name: "code-size", What: "program text in one request", Server: "256 KiB", CLI: "—", Flag: "—",
		Error: "413 `code is N bytes, more than the 262144 allowed`"},
	{Name: "body-size", What: "one request body", Server: "8 MiB", CLI: "—", Flag: "—",
		Error: "the connection is closed before the body is read"},
	{Name: "ranks", What: "rank count of one run, however it was derived (request, pinned by the host's tensors, factory)", Server: "64", CLI: "—", Flag: "—",
		Error: "400 `ranks N out of range: want 1..64`"},
	{Name: "concurrent-runs", What: "runs executing at once", Server: "2", CLI: "—", Flag: "—",
		Error: "the run waits with status `queued`"},
	{Name: "run-timeout", What: "wall clock of one run", Server: "10 s", CLI: "10 s", Flag: "—",
		Error: "status `timeout`, E0505"},
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
