package limits

import (
	"math"
	"runtime/debug"
)

// softMemoryHeadroom is what the process needs beside the work it runs:
// the server's handlers, the run store's cache, the embedded page and the
// Go runtime, measured at about 60 MiB idle; doubled for margin.
const softMemoryHeadroom = 128 << 20

// SetSoftMemoryLimit sets the Go runtime's soft memory limit
// (runtime/debug.SetMemoryLimit) to what slots pieces of work of perWork
// bytes each may hold, plus the process's own headroom, and returns the
// limit set. Below the limit the collector runs as GOGC says; near it, it
// runs as often as needed and returns freed pages to the system promptly,
// so the memory a finished run held is given back rather than kept for the
// next. The budget (Budget.Memory) is what keeps a run from
// wanting more: this only makes freeing prompt. perWork <= 0 or slots <= 0
// removes the limit.
func SetSoftMemoryLimit(perWork int64, slots int) int64 {
	if perWork <= 0 || slots <= 0 {
		debug.SetMemoryLimit(math.MaxInt64)
		return math.MaxInt64
	}
	limit := softMemoryHeadroom
	if perWork > (math.MaxInt64-int64(limit))/int64(slots) {
		debug.SetMemoryLimit(math.MaxInt64)
		return math.MaxInt64
	}
	n := perWork*int64(slots) + int64(limit)
	debug.SetMemoryLimit(n)
	return n
}

// ServeGCPercent is the garbage collector's GOGC for `workbench serve`
// when the environment sets none: the heap may grow to three times what
// is live before a collection, rather than twice. A run through the
// server allocates a few hundred KiB that die with it, so collections at
// 100 were a sixth of the server's CPU per run; at 200 the peak resident
// set of TestAcceptUnwatchedFlood's 1000 posts went from 115 to 144 MiB
// (its bound is 200), and the soft memory limit still bounds the heap.
const ServeGCPercent = 200
