package server

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
)

// The cost of a run through the server, against the engine alone.
//
// BenchmarkRunOverWebsocket is what the page pays for one run of step 8's
// mesh all-reduce at 8 ranks: POST /api/runs (settings normalized, the id
// hashed, the step's kernel looked up), the engine run with every event
// appended to the run's log, the step check of the outputs, the record and
// its gzip-compressed events written to SQLite, and the whole stream (status,
// events in batches, outputs, done) read over a real websocket with
// gorilla/websocket until the server closes it. Each iteration has its own
// seed, so the store never answers from its cache.
//
// BenchmarkEngineRunDirect is the native baseline: engine.Run of the same
// program at the same settings, its events kept in a trace.Collector.
// The ratio of the two is the server's overhead per run.

// benchRanks is the rank count of both benchmarks.
const benchRanks = 8

func BenchmarkRunOverWebsocket(b *testing.B) {
	ts := startOpts(b, Options{})
	code := []byte(kernelSourceTB(b, "08_allreduce_mesh"))
	events := 0
	for i := 0; b.Loop(); i++ {
		body := rawBody(b, code, map[string]any{"step": 8, "ranks": benchRanks, "fill": "randn", "seed": 1000 + i})
		status, ans := ts.postRaw(b, "/api/runs", body)
		var pr postResponse
		if status != 200 || json.Unmarshal(ans, &pr) != nil || pr.Cached {
			b.Fatalf("POST /api/runs: %d %.200s", status, ans)
		}
		out, err := ts.follow(b, pr.ID, time.Now().Add(30*time.Second))
		if err != nil {
			b.Fatalf("run %s: %v", pr.ID, err)
		}
		if out.done.Status != "ok" {
			b.Fatalf("run %s: %s", pr.ID, out.done.Status)
		}
		events = out.events
	}
	b.ReportMetric(float64(events), "events/op")
}

func BenchmarkEngineRunDirect(b *testing.B) {
	code := []byte(kernelSourceTB(b, "08_allreduce_mesh"))
	events := 0
	for i := 0; b.Loop(); i++ {
		var c trace.Collector
		res := engine.Run(context.Background(), "08_allreduce_mesh.py", code, engine.RunOptions{
			Options:  engine.Options{Entry: "mesh_allreduce", Ranks: benchRanks, Platform: "910B"},
			Fill:     engine.FillRandn,
			Seed:     uint64(1000 + i),
			Schedule: "fair",
			OnEvent:  c.Sink(),
		})
		if res.Status != "ok" {
			b.Fatalf("engine.Run: %s", res.Status)
		}
		events = len(c.Events)
	}
	b.ReportMetric(float64(events), "events/op")
}

// kernelSourceTB is kernelSource for a benchmark.
func kernelSourceTB(tb testing.TB, name string) string {
	tb.Helper()
	k, ok := kernels.Get(name)
	if !ok {
		tb.Fatalf("no kernel %s", name)
	}
	return string(k.Source)
}
