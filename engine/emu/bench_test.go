package emu_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"pldworkbench/engine/emu"
)

// Benchmarks of the emulator, each beside a native-Go baseline doing the
// same arithmetic and copies in the same run, so the ratio is the
// emulator's overhead on this machine:
//
//	go test ./engine/emu/ -run '^$' -bench . -benchtime 5x

const meshRanks, meshSize = 8, 1 << 20

// BenchmarkMeshAllreduce is the data path: a mesh all-reduce of 1 Mi FP32
// per rank at P = 8, in one 4 MiB tile per step or in 16 KiB tiles.
func BenchmarkMeshAllreduce(b *testing.B) {
	for _, bc := range []struct {
		name  string
		width int
	}{{"tile=4MiB", meshSize}, {"tile=16KiB", 4096}} {
		b.Run("emu/"+bc.name, func(b *testing.B) {
			prog := compileFile(b, "testdata/bench.py", benchMeshEntry(bc.width), meshRanks)
			in := fill(prog, "randn", 1)
			b.SetBytes(meshRanks * meshSize * 4)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := emu.Run(context.Background(), prog, emu.Options{Inputs: in})
				if res.Status != emu.StatusOK {
					b.Fatalf("status %s: %v", res.Status, res.Error)
				}
			}
		})
	}
	b.Run("native", func(b *testing.B) {
		x := make([][]float32, meshRanks)
		for r := range x {
			x[r] = make([]float32, meshSize)
			for j := range x[r] {
				x[r][j] = float32(r*j%97) * 0.5
			}
		}
		b.SetBytes(meshRanks * meshSize * 4)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			nativeMesh(x)
		}
	})
	// The same plus the conversions Run does at its boundary: float64
	// inputs to FP32 bytes, and every host tensor (x and y) back to
	// float64 for Result.Outputs.
	b.Run("native+api", func(b *testing.B) {
		in := make([]float64, meshRanks*meshSize)
		for i := range in {
			in[i] = float64(i%97) * 0.5
		}
		b.SetBytes(meshRanks * meshSize * 4)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			x := make([][]float32, meshRanks)
			for r := range x {
				x[r] = make([]float32, meshSize)
				for j := range x[r] {
					x[r][j] = float32(in[r*meshSize+j])
				}
			}
			y := nativeMesh(x)
			for _, t := range [][][]float32{x, y} {
				out := make([]float64, meshRanks*meshSize)
				for r := range t {
					for j, v := range t[r] {
						out[r*meshSize+j] = float64(v)
					}
				}
			}
		}
	})
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
	for _, mode := range []struct {
		name string
		off  bool
	}{{"emu", false}, {"emu-noraces", true}} {
		b.Run(mode.name, func(b *testing.B) {
			prog := compileFile(b, "testdata/bench.py", "build_bench_barrier(256).barrier_host", barrierRanks)
			b.ResetTimer()
			var ops int64
			for i := 0; i < b.N; i++ {
				res := emu.Run(context.Background(), prog, emu.Options{NoRaces: mode.off})
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
