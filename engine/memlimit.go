package engine

import (
	"runtime/debug"

	"pldworkbench/engine/limits"
)

// giveBackAbove is the peak above which a finished piece of work returns
// its freed memory to the system at once (debug.FreeOSMemory: a collection
// and a scavenge, a few ms with a small live heap), rather than leaving the
// background scavenger to do it over minutes. Below it the pages are cheap
// to keep for the next run.
const giveBackAbove = 256 << 20

// giveBack returns freed memory to the system after a piece of work that
// held more than giveBackAbove.
func giveBack(meter *limits.Meter) {
	if meter.Peak() >= giveBackAbove || meter.CompileBytes() >= giveBackAbove {
		debug.FreeOSMemory()
	}
}
