package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/trace"
)

// TestPerfettoFromRuns exports real runs — the mesh all-reduce at P=4 and
// the HOST all-reduce on a grid of 2 blocks per rank — and checks the
// result against the importer's rules, with an arrow for every wait a
// notify released and a lane for every block.
func TestPerfettoFromRuns(t *testing.T) {
	cases := []struct {
		file, entry string
		ranks       int
		lanes       []string
	}{
		{"19_mesh_or_ring.py", `build_allreduce(4, 1024, "mesh").run`, 4, []string{"host", "rank 0", "rank 1", "rank 2", "rank 3"}},
		{"sweep/host_cores.py", `build_host_allreduce(2, 2048, 2).run`, 2, []string{"host", "rank 0", "rank 0 / block 1", "rank 1", "rank 1 / block 1"}},
	}
	for _, c := range cases {
		var col trace.Collector
		res := engine.Load(context.Background(), c.file, readKernel(t, c.file), engine.Options{}).Run(context.Background(), engine.RunOptions{
			Options: engine.Options{Entry: c.entry, Ranks: c.ranks}, Fill: emu.FillIndex, OnEvent: col.Sink()})
		if res.Status != emu.StatusOK {
			t.Fatalf("%s: %s %v", c.file, res.Status, res.Error)
		}
		var buf bytes.Buffer
		if err := trace.WritePerfetto(&buf, col.Events, trace.PerfettoOptions{Title: c.entry}); err != nil {
			t.Fatal(err)
		}
		if err := trace.ValidateChromeTrace(buf.Bytes()); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		var doc trace.ChromeTrace
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var lanes []string
		flows, released := 0, 0
		for _, e := range doc.TraceEvents {
			switch {
			case e.Name == "thread_name":
				lanes = append(lanes, e.Args["name"].(string))
			case e.Ph == "f":
				flows++
			}
		}
		for _, e := range col.Events {
			if e.ReleasedBy != nil {
				released++
			}
		}
		if strings.Join(lanes, ", ") != strings.Join(c.lanes, ", ") {
			t.Errorf("%s: lanes %v, want %v", c.file, lanes, c.lanes)
		}
		if released == 0 || flows != released {
			t.Errorf("%s: %d flows for %d released waits, want one each", c.file, flows, released)
		}
	}
}

func readKernel(t *testing.T, path string) []byte {
	t.Helper()
	src, err := os.ReadFile("../kernels/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
