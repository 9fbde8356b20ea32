package engine_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
)

// BenchmarkRunJSON is `workbench run --json` against the same run without
// it, at the acceptance's size: the mesh all-reduce of 1 Mi FP32 per rank
// at P = 8 (16 Mi elements written: the inputs and the outputs), with
// the index and the randn fill. Every iteration runs the program, then
// streams its JSON to io.Discard, and the metrics are medians over the
// iterations, so the ratio comes from one process under one load.
// x-run is (run + WriteJSON) / run, the --json run's time against the
// plain one's (the acceptance: at most 2), and x-run-ahead the same with
// the inputs' text formatted on another core during the run (JSONAhead,
// as run --json does), against the same plain run; json-ns/elem is WriteJSON's
// wall time an element, its chunks formatted on every core (GOMAXPROCS),
// json1-ns/elem the same with GOMAXPROCS=1, which is its CPU time; and
// strconv-ns/elem and encjson-ns/elem are the native baselines on the
// same elements, one core: strconv.AppendFloat(…, 32) in encoding/json's
// form into one reused buffer, and json.Marshal of each tensor's data as
// a []float32.
//
//	go test ./engine -run '^$' -bench RunJSON -benchtime 5x
func BenchmarkRunJSON(b *testing.B) {
	src, err := os.ReadFile("emu/testdata/bench.py")
	if err != nil {
		b.Fatal(err)
	}
	opts := engine.Options{Entry: "build_bench_mesh(8, 1048576, 4096).mesh_host", Ranks: 8}
	mod := engine.Load(context.Background(), "bench.py", src, opts)
	prog, diags := mod.Compile(context.Background(), opts.Entry, opts)
	if prog.Entry == "" {
		b.Fatalf("compile: %v", diags)
	}
	for _, fill := range []emu.Fill{emu.FillIndex, emu.FillRandn} {
		b.Run("fill="+string(fill), func(b *testing.B) {
			ropts := engine.RunOptions{Options: opts, Fill: fill, Seed: 1}
			run := func(ahead int64) (*engine.RunResult, time.Duration) {
				o := ropts
				o.JSONAhead = ahead
				start := time.Now()
				res := prog.Run(context.Background(), o)
				if res.Status != emu.StatusOK {
					b.Fatalf("status %s: %v", res.Status, res.Error)
				}
				return res, time.Since(start)
			}
			write := func(res *engine.RunResult, procs int) time.Duration {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				start := time.Now()
				if err := res.WriteJSON(io.Discard); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			res, _ := run(0) // warm the heap: the first run faults in its pages
			data := elements(res)
			n := 0
			for _, d := range data {
				n += len(d)
			}
			b.ResetTimer()
			var ratio, ahead, jsonNs, json1Ns, strconvNs, encNs []float64
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
			for range b.N {
				res, tr := run(0)
				tw := write(res, runtime.GOMAXPROCS(0))
				ratio = append(ratio, float64(tr+tw)/float64(tr))
				resA, ta := run(limits.JSONAhead)
				ahead = append(ahead, float64(ta+write(resA, runtime.GOMAXPROCS(0)))/float64(tr))
				jsonNs = append(jsonNs, per(tw))
				json1Ns = append(json1Ns, per(write(res, 1)))
				strconvNs = append(strconvNs, per(timeStrconv32(data)))
				encNs = append(encNs, per(timeMarshal32(b, data)))
			}
			b.ReportMetric(median(ratio), "x-run")
			b.ReportMetric(median(ahead), "x-run-ahead")
			b.ReportMetric(median(jsonNs), "json-ns/elem")
			b.ReportMetric(median(json1Ns), "json1-ns/elem")
			b.ReportMetric(median(strconvNs), "strconv-ns/elem")
			b.ReportMetric(median(encNs), "encjson-ns/elem")
		})
	}
}

// elements is the data of the tensors run --json writes, as float32s.
func elements(res *engine.RunResult) [][]float32 {
	var out [][]float32
	for _, side := range []struct {
		order []string
		m     map[string]*emu.Tensor
	}{{res.InputOrder, res.In}, {res.OutputOrder, res.Out}} {
		for _, k := range side.order {
			if t := side.m[k]; t != nil {
				d := make([]float32, t.Len())
				t.Float32sAt(d, 0)
				out = append(out, d)
			}
		}
	}
	return out
}

// timeStrconv32 formats every element as encoding/json formats a float32,
// by strconv, comma-separated, into one reused buffer.
func timeStrconv32(data [][]float32) time.Duration {
	buf := make([]byte, 0, 1<<20)
	start := time.Now()
	for _, d := range data {
		for _, x := range d {
			if len(buf) > 1<<20-64 {
				buf = buf[:0]
			}
			abs := math.Abs(float64(x))
			format := byte('f')
			if abs != 0 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
				format = 'e'
			}
			buf = strconv.AppendFloat(buf, float64(x), format, -1, 32)
			buf = append(buf, ',')
		}
	}
	return time.Since(start)
}

// timeMarshal32 is json.Marshal of each tensor's data as a []float32.
func timeMarshal32(b *testing.B, data [][]float32) time.Duration {
	start := time.Now()
	for _, d := range data {
		if _, err := json.Marshal(d); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}
