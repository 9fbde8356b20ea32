package emu_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
)

// TestRaceDetectorCharged: the race detector's memory counts against the
// run's budget. A program that keeps n shadow segments a rank (a store in
// an epoch of its own at each of n offsets) is charged about what the
// detector allocates for it, and a budget that holds its data but not its
// shadow ends the run with E0516 naming the detector, while the same run
// without detection passes under it.
func TestRaceDetectorCharged(t *testing.T) {
	const n = 65536
	const storeLine, notifyLine = 34, 35 // in testdata/race_budget.py
	prog := compileFile(t, "testdata/race_budget.py", "build_many_ranges(65536).many_host", 2)
	in := fill(prog, "index", 1)
	run := func(off bool, budget int64) (*emu.Result, int64, uint64) {
		meter := limits.NewMeter(context.Background(), limits.Budget{Memory: budget})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Meter: meter, NoRaces: off})
		runtime.ReadMemStats(&after)
		return res, meter.Peak(), after.TotalAlloc - before.TotalAlloc
	}
	resOff, peakOff, allocOff := run(true, 0)
	resOn, peakOn, allocOn := run(false, 0)
	if resOff.Status != emu.StatusOK || resOn.Status != emu.StatusOK {
		t.Fatalf("unlimited: status %s (off), %s (on): %v %v", resOff.Status, resOn.Status, resOff.Error, resOn.Error)
	}
	charged, allocated := peakOn-peakOff, int64(allocOn)-int64(allocOff)
	t.Logf("detection charged %d bytes (%.1f a segment), allocated %d more (%.1f a segment)",
		charged, float64(charged)/(2*n), allocated, float64(allocated)/(2*n))
	// The charge is the detector's high-water mark; what it allocated
	// also counts the room it outgrew (a doubling slice allocates about
	// twice what it ends with). Either way at least a segment's bytes a
	// segment.
	if charged < 2*n*32 || float64(charged) < 0.4*float64(allocated) || float64(charged) > 1.5*float64(allocated) {
		t.Errorf("detection charged %d bytes for %d segments, against %d allocated: want at least 32 a segment and 0.4-1.5x the allocation", charged, 2*n, allocated)
	}

	budget := peakOff + charged/2
	res, _, _ := run(false, budget)
	if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0516" ||
		!strings.Contains(res.Error.Message, "race detector") || !strings.Contains(res.Error.Hint, "--no-races") ||
		res.Error.Rank < 0 || res.Error.Line != storeLine && res.Error.Line != notifyLine {
		t.Errorf("on, under %d bytes: status %s, error %+v; want E0516 naming the race detector with a --no-races hint, at a rank's store or notify (line %d or %d)",
			budget, res.Status, res.Error, storeLine, notifyLine)
	}
	if res, _, _ := run(true, budget); res.Status != emu.StatusOK {
		t.Errorf("off, under %d bytes: status %s, error %+v; want ok", budget, res.Status, res.Error)
	}
}
