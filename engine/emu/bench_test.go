package emu_test

import (
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// Benchmarks of the emulator, each beside a native-Go baseline doing the
// same arithmetic and copies in the same run, so the ratio is the
// emulator's overhead on this machine:
//
//	go test ./engine/emu/ -run '^$' -bench . -benchtime 5x

const meshRanks, meshSize = 8, 1 << 20

// BenchmarkMeshAllreduce is the data path: a mesh all-reduce of 1 Mi FP32
// per rank at P = 8, in one 4 MiB tile per step or in 16 KiB tiles, with
// its inputs in their own dtype (FP32 bytes, as a run hands its outputs
// back). Each "ratio" sub-benchmark runs the emulator and the native loop
// in every iteration, alternating which goes first, and reports the median
// of emu/native as its "x-native" metric, so the ratio comes from one
// process under one machine load:
//
//	go test ./engine/emu/ -run '^$' -bench MeshAllreduce -benchtime 5x -count 5
func BenchmarkMeshAllreduce(b *testing.B) {
	x := make([][]float32, meshRanks)
	for r := range x {
		x[r] = make([]float32, meshSize)
		for j := range x[r] {
			x[r][j] = float32(r*j%97) * 0.5
		}
	}
	for _, bc := range []struct {
		name  string
		width int
	}{{"tile=4MiB", meshSize}, {"tile=16KiB", 4096}} {
		var prog *ir.Program
		var in map[string]*emu.Tensor
		once := func(b *testing.B) time.Duration {
			if prog == nil {
				prog = compileFile(b, "testdata/bench.py", benchMeshEntry(bc.width), meshRanks)
				in = byteForm(fill(prog, "randn", 1))
				b.ResetTimer()
			}
			start := time.Now()
			res := emu.Run(context.Background(), prog, emu.Options{Inputs: in})
			if res.Status != emu.StatusOK {
				b.Fatalf("status %s: %v", res.Status, res.Error)
			}
			return time.Since(start)
		}
		b.Run("emu/"+bc.name, func(b *testing.B) {
			b.SetBytes(meshRanks * meshSize * 4)
			for i := 0; i < b.N; i++ {
				once(b)
			}
		})
		b.Run("ratio/"+bc.name, func(b *testing.B) {
			once(b) // warm the heap: the first runs fault in their pages
			nativeMesh(x)
			b.ResetTimer()
			ratios := make([]float64, 0, b.N)
			for i := 0; i < b.N; i++ {
				var e, n time.Duration
				t0 := time.Now()
				if i%2 == 0 {
					e = once(b)
					t0 = time.Now()
					nativeMesh(x)
					n = time.Since(t0)
				} else {
					nativeMesh(x)
					n = time.Since(t0)
					e = once(b)
				}
				ratios = append(ratios, float64(e)/float64(n))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "x-native")
		})
	}
	b.Run("native", func(b *testing.B) {
		b.SetBytes(meshRanks * meshSize * 4)
		for i := 0; i < b.N; i++ {
			nativeMesh(x)
		}
	})
}

// byteForm returns in with its FP32 tensors in the byte form (their own
// dtype's bytes), as a caller that holds FP32 data passes them.
func byteForm(in map[string]*emu.Tensor) map[string]*emu.Tensor {
	out := map[string]*emu.Tensor{}
	for k, t := range in {
		if t.DType != ir.FP32 {
			out[k] = t
			continue
		}
		b := make([]byte, 4*t.Len())
		for i := range t.Len() {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(t.Float(i))))
		}
		out[k] = emu.NewTensorBytes(t.DType, t.Shape, b)
	}
	return out
}

func benchMeshEntry(width int) string {
	return "build_bench_mesh(8, 1048576, " + itoa(width) + ").mesh_host"
}

// nativeMesh is the mesh all-reduce the benchmark kernel runs, in plain
// Go: stage every slice into a fresh window, then on every rank copy its
// own window into an accumulator, add a copy of every peer's window, and
// copy the result out.
func nativeMesh(x [][]float32) [][]float32 {
	p := len(x)
	windows := make([][]float32, p)
	for r := range windows {
		windows[r] = make([]float32, len(x[r]))
		copy(windows[r], x[r])
	}
	y := make([][]float32, p)
	recv := make([]float32, len(x[0]))
	for r := 0; r < p; r++ {
		acc := make([]float32, len(x[r]))
		copy(acc, windows[r])
		for q := 0; q < p; q++ {
			if q == r {
				continue
			}
			copy(recv, windows[q])
			for j, v := range recv {
				acc[j] += v
			}
		}
		y[r] = make([]float32, len(acc))
		copy(y[r], acc)
	}
	return y
}

// TestNativeMeshMatches keeps the baseline honest: it computes what the
// emulator computes.
func TestNativeMeshMatches(t *testing.T) {
	const p, n = 4, 4096
	prog := compileFile(t, "testdata/bench.py", "build_bench_mesh(4, 4096, 1024).mesh_host", p)
	in := fill(prog, "randn", 5)
	res := run(t, prog, in)
	mustOK(t, "mesh", res)
	x := make([][]float32, p)
	for r := range x {
		for _, v := range in["x"].Row(r) {
			x[r] = append(x[r], float32(v))
		}
	}
	y := nativeMesh(x)
	for r := range y {
		for j, v := range y[r] {
			if got := res.Outputs["y"].At(r, 0, j); got != float64(v) {
				t.Fatalf("rank %d element %d: emulator %v, native %v", r, j, got, v)
			}
		}
	}
}

const barrierRanks = 256

// BenchmarkBarrier is the signal path: a hand-rolled barrier at P = 256,
// 65,280 notifies and as many waits.
func BenchmarkBarrier(b *testing.B) {
	// With race detection on (the default) and off; signalops/s counts
	// notifies and waits.
	// "traced" hands every event to a sink that keeps it, as a caller
	// recording the trace does.
	for _, mode := range []struct {
		name        string
		off, traced bool
	}{{"emu", false, false}, {"emu-noraces", true, false}, {"emu-traced", false, true}} {
		b.Run(mode.name, func(b *testing.B) {
			prog := compileFile(b, "testdata/bench.py", "build_bench_barrier(256).barrier_host", barrierRanks)
			b.ResetTimer()
			var ops int64
			var events []trace.Event
			for i := 0; i < b.N; i++ {
				opts := emu.Options{NoRaces: mode.off}
				if mode.traced {
					events = events[:0]
					opts.OnEvent = func(e trace.Event) { events = append(events, e) }
				}
				res := emu.Run(context.Background(), prog, opts)
				if res.Status != emu.StatusOK || res.Stats.Notifies != barrierRanks*(barrierRanks-1) {
					b.Fatalf("status %s, %d notifies: %v", res.Status, res.Stats.Notifies, res.Error)
				}
				ops += res.Stats.Notifies + res.Stats.Waits
			}
			b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "signalops/s")
		})
	}
	// The same cell updates and checks in one goroutine: every rank bumps
	// its cell in every peer's window, then every rank checks its cells.
	b.Run("native-serial", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			nativeBarrierSerial(barrierRanks)
		}
	})
	// The protocol as a Go programmer would run it: one goroutine per rank,
	// atomic adds, and waits that yield until the cell is set.
	b.Run("native-goroutines", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			nativeBarrierGoroutines(barrierRanks)
		}
	})
}

func nativeBarrierSerial(p int) {
	cells := make([]int32, p*p) // cells[owner*p + writer]
	for me := 0; me < p; me++ {
		for q := 0; q < p; q++ {
			if q != me {
				cells[q*p+me]++
			}
		}
	}
	for me := 0; me < p; me++ {
		for q := 0; q < p; q++ {
			if q != me && cells[me*p+q] < 1 {
				panic("barrier not complete")
			}
		}
	}
}

func nativeBarrierGoroutines(p int) {
	cells := make([]atomic.Int32, p*p)
	var wg sync.WaitGroup
	for me := 0; me < p; me++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := 0; q < p; q++ {
				if q != me {
					cells[q*p+me].Add(1)
				}
			}
			for q := 0; q < p; q++ {
				for q != me && cells[me*p+q].Load() < 1 {
					runtime.Gosched()
				}
			}
		}()
	}
	wg.Wait()
}

// TestBarrierBenchRuns checks the benchmark program completes with the
// expected counts (at a smaller P, quickly).
func TestBarrierBenchRuns(t *testing.T) {
	const p = 32
	prog := compileFile(t, "testdata/bench.py", "build_bench_barrier(32).barrier_host", p)
	res := emu.Run(context.Background(), prog, emu.Options{})
	mustOK(t, "barrier", res)
	if res.Stats.Notifies != p*(p-1) || res.Stats.Waits != p*(p-1) {
		t.Errorf("%d notifies, %d waits, want %d each", res.Stats.Notifies, res.Stats.Waits, p*(p-1))
	}
}
