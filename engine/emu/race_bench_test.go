package emu_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/lower"
)

// BenchmarkRaceDetector is the race detector's cost: the same runs with
// detection on (the default) and off. The "slowdown" sub-benchmark runs
// both in every iteration, alternating which goes first, and reports the
// median of on/off over the iterations as its "slowdown" metric, so the
// ratio comes from one process under one machine load, and the median
// ratio of their CPU times (user and system, every thread) as
// "cpuslowdown", which a loaded machine disturbs less. There every run
// starts on a collected heap, so neither pays for the other's garbage:
//
//	go test ./engine/emu/ -run '^$' -bench RaceDetector -benchtime 5x
func BenchmarkRaceDetector(b *testing.B) {
	for _, bc := range []struct {
		name, file, entry string
		ranks             int
	}{
		{"mesh/P=8/tile=4MiB", "testdata/bench.py", benchMeshEntry(meshSize), meshRanks},
		{"mesh/P=8/tile=16KiB", "testdata/bench.py", benchMeshEntry(4096), meshRanks},
		{"barrier/P=256", "testdata/bench.py", "build_bench_barrier(256).barrier_host", barrierRanks},
		{"barrier/P=1024", "testdata/bench.py", "build_bench_barrier(1024).barrier_host", 1024},
		{"ring/P=8/1Mi", "testdata/bench.py", "build_bench_ring(8, 1048576).ring_host", 8},
		{"ring/P=256/1K", "testdata/bench.py", "build_bench_ring(256, 1024).ring_host", 256},
		// The builtin ring all-reduce (lesson 19's lowering): two all-peer
		// barriers a round, every wait's clock another rank's base.
		{"ringbuiltin/P=48/1K", "../../kernels/19_mesh_or_ring.py", `build_allreduce(48, 1024, "ring").run`, 48},
		{"ringbuiltin/P=64/1K", "../../kernels/19_mesh_or_ring.py", `build_allreduce(64, 1024, "ring").run`, 64},
		{"ringbuiltin/P=128/1K", "../../kernels/19_mesh_or_ring.py", `build_allreduce(128, 1024, "ring").run`, 128},
	} {
		var prog *ir.Program
		var in map[string]*emu.Tensor
		var lastCPU time.Duration // the CPU time of the last run
		collect := false          // collect the heap before each run (slowdown)
		once := func(b *testing.B, off bool) time.Duration {
			if prog == nil {
				prog = benchProgram(b, bc.file, bc.entry, bc.ranks)
				in = fill(prog, "randn", 1)
				b.ResetTimer()
			}
			if collect {
				runtime.GC() // the last run's garbage is collected outside this one
			}
			start, cpu := time.Now(), cpuTime()
			// Generous limits: cachegrind runs them 50 times slower, and the
			// builtin ring at P = 128 runs past the default statement budget.
			res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, NoRaces: off, Timeout: time.Hour, MaxSteps: 1 << 40})
			if res.Status != emu.StatusOK {
				b.Fatalf("status %s: %v %+v", res.Status, res.Error, res.Races)
			}
			lastCPU = cpuTime() - cpu
			return time.Since(start)
		}
		for _, mode := range []struct {
			name string
			off  bool
		}{{"on", false}, {"off", true}} {
			b.Run(bc.name+"/"+mode.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					once(b, mode.off)
				}
			})
		}
		b.Run(bc.name+"/slowdown", func(b *testing.B) {
			once(b, false) // warm the heap: the first 4 MiB runs fault in their pages
			once(b, true)
			collect = true
			defer func() { collect = false }()
			b.ResetTimer()
			ratios := make([]float64, 0, b.N)
			var cpuRatios []float64
			for i := 0; i < b.N; i++ {
				var on, off, onCPU, offCPU time.Duration
				if i%2 == 0 {
					on, onCPU = once(b, false), lastCPU
					off, offCPU = once(b, true), lastCPU
				} else {
					off, offCPU = once(b, true), lastCPU
					on, onCPU = once(b, false), lastCPU
				}
				ratios = append(ratios, float64(on)/float64(off))
				if offCPU > 0 {
					cpuRatios = append(cpuRatios, float64(onCPU)/float64(offCPU))
				}
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "slowdown")
			if len(cpuRatios) > 0 {
				slices.Sort(cpuRatios)
				b.ReportMetric(cpuRatios[len(cpuRatios)/2], "cpuslowdown")
			}
		})
	}
}

// TestBenchProgramsRaceFree keeps the benchmark honest: the programs it
// times are race-free, so "on" pays for checking, not for reporting.
func TestBenchProgramsRaceFree(t *testing.T) {
	for _, c := range []struct {
		entry string
		ranks int
	}{{"build_bench_mesh(4, 16384, 1024).mesh_host", 4}, {"build_bench_barrier(16).barrier_host", 16}} {
		prog := compileFile(t, "testdata/bench.py", c.entry, c.ranks)
		var in map[string]*emu.Tensor
		if len(emu.HostParams(prog)) > 0 && emu.HostParams(prog)[0].Dir != ir.Out {
			in = fill(prog, "randn", 1)
		}
		res := emu.Run(context.Background(), prog, emu.Options{Inputs: in})
		if res.Status != emu.StatusOK || len(res.Races) != 0 {
			t.Errorf("%s: status %s, races %+v", c.entry, res.Status, res.Races)
		}
	}
}

// benchProgram compiles entry of file at ranks and lowers it, as
// engine.Module.Compile does before it emulates.
func benchProgram(b testing.TB, file, entry string, ranks int) *ir.Program {
	b.Helper()
	prog, err := lower.Lower(compileFile(b, file, entry, ranks), "")
	if err != nil {
		b.Fatalf("%s: lowering: %v", entry, err)
	}
	return prog
}

// BenchmarkRaceScale is the acceptance's large runs, detection on and off: a
// barrier at P = 2048 and 4096, a ring of 1 K FP32 per rank at P = 1024.
// Run one at a time under /usr/bin/time -v for the peak memory:
//
//	go test -c -o emu.test ./engine/emu/ &&
//	/usr/bin/time -v ./emu.test -test.run '^$' -test.bench 'RaceScale/ring' -test.benchtime 1x
func BenchmarkRaceScale(b *testing.B) {
	for _, bc := range []struct {
		name, entry string
		ranks       int
	}{
		{"barrier/P=2048", "build_bench_barrier(2048).barrier_host", 2048},
		{"barrier/P=4096", "build_bench_barrier(4096).barrier_host", 4096},
		{"ring/P=1024/1K", "build_bench_ring(1024, 1024).ring_host", 1024},
	} {
		for _, off := range []bool{false, true} {
			name := bc.name + "/on"
			if off {
				name = bc.name + "/off"
			}
			b.Run(name, func(b *testing.B) {
				prog := benchProgram(b, "testdata/bench.py", bc.entry, bc.ranks)
				in := fill(prog, "randn", 1)
				b.ResetTimer()
				var ops int64
				for i := 0; i < b.N; i++ {
					res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Timeout: time.Minute, MaxSteps: 1 << 40, NoRaces: off})
					if res.Status != emu.StatusOK {
						b.Fatalf("status %s: %v", res.Status, res.Error)
					}
					ops += res.Stats.Notifies + res.Stats.Waits
				}
				b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "signalops/s")
			})
		}
	}
}
