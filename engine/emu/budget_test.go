package emu_test

import (
	"context"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// TestMemoryAccounting: a mesh all-reduce at P=8 over 1 Mi FP32 per rank,
// in 16 KiB tiles (256 chunks, thousands of tiles made and dropped), holds
// what it needs at once, not the sum of every tile it made: it runs under
// a budget a little above its windows and host tensors, gives everything
// back when it ends, and a budget below its windows ends it with E0516
// naming the allocation.
func TestMemoryAccounting(t *testing.T) {
	prog := compileFile(t, "testdata/bench.py", benchMeshEntry(4096), meshRanks)
	in := fill(prog, "randn", 1)
	meter := limits.NewMeter(context.Background(), limits.Budget{Memory: 1 << 30})
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Meter: meter})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Error)
	}
	peak := meter.Peak()
	t.Logf("peak %s", limits.Bytes(peak))
	// x and y at P=8 × 1 Mi FP32: 32 MiB each, as bytes (the result hands
	// them back as they are); the windows and tiles on top.
	const hostBytes = 2 * meshRanks * meshSize * 4
	if peak < hostBytes || peak > hostBytes+96<<20 {
		t.Errorf("peak %s, want between %s and %s more", limits.Bytes(peak), limits.Bytes(hostBytes), limits.Bytes(96<<20))
	}
	if meter.Held() != 0 {
		t.Errorf("%s still held after the run", limits.Bytes(meter.Held()))
	}
	// The same run fits in its own peak: tiles dropped are given back.
	again := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Meter: limits.NewMeter(context.Background(), limits.Budget{Memory: peak})})
	if again.Status != emu.StatusOK {
		t.Errorf("under its own peak %s: status %s: %v", limits.Bytes(peak), again.Status, again.Error)
	}
	small := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Meter: limits.NewMeter(context.Background(), limits.Budget{Memory: hostBytes + 1<<20})})
	if small.Status != emu.StatusRuntimeError || small.Error == nil || small.Error.Code != "E0516" ||
		!strings.Contains(small.Error.Message, "alloc_window_buffer wants") || small.Error.Line == 0 {
		t.Errorf("under a budget below its windows: status %s, error %+v, want E0516 at the allocation", small.Status, small.Error)
	}
}

// TestEventCharge: the memory budget is charged for the events the sink
// keeps, not for those it streams out or drops: under a budget that holds
// the run and a tenth of its events, a sink that keeps them all ends the
// run with E0516, while a streaming sink (EventBytes < 0) or one that
// keeps only the first ten (KeepEvents) sees the run finish.
func TestEventCharge(t *testing.T) {
	prog := compileFile(t, "testdata/bench.py", "build_bench_barrier(16).barrier_host", 16)
	base := limits.NewMeter(context.Background(), limits.Budget{})
	res := emu.Run(context.Background(), prog, emu.Options{Meter: base})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s: %v", res.Status, res.Error)
	}
	events := int(res.Stats.Events)
	budget := base.Peak() + int64(events)*limits.EventBytes/10
	for _, tc := range []struct {
		name       string
		eventBytes int64
		keep       int64
		ok         bool
	}{{"kept", 0, 0, false}, {"streamed", -1, 0, true}, {"first-10", 0, 10, true}} {
		meter := limits.NewMeter(context.Background(), limits.Budget{Memory: budget})
		got := 0
		res := emu.Run(context.Background(), prog, emu.Options{Meter: meter, EventBytes: tc.eventBytes, KeepEvents: tc.keep, OnEvent: func(trace.Event) { got++ }})
		if tc.ok && (res.Status != emu.StatusOK || got != events) {
			t.Errorf("%s: status %s, %d of %d events: %v", tc.name, res.Status, got, events, res.Error)
		}
		if !tc.ok && (res.Status != emu.StatusRuntimeError || res.Error.Code != "E0516" || got >= events) {
			t.Errorf("%s: status %s, %d of %d events, error %+v, want E0516", tc.name, res.Status, got, events, res.Error)
		}
	}
}
