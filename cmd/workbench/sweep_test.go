package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pldworkbench/engine/trace"
)

const meshOrRing = "../../kernels/19_mesh_or_ring.py"

func TestSweepTable(t *testing.T) {
	code, out, errs := runCLI("sweep", meshOrRing, "--ranks", "2,8", "--sizes", "1K:4K")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{
		"allreduce, FP32, platform 910B; link_eff = busbw / ((P-1) x 18.6 GB/s)",
		"# mesh, 8 ranks: build_allreduce({P}, {SIZE}, \"mesh\").run",
		"size(B)        count     time(us)  algbw(GB/s)  busbw(GB/s)  link_eff",
		"# Avg bus bandwidth",
		"# 2 ranks: mesh fastest at every size (no crossover)",
		"# 8 ranks: mesh fastest at every size (no crossover)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// 3 sizes x 2 variants x 2 rank counts.
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 6 && !strings.HasPrefix(line, "#") {
			rows++
		}
	}
	if rows != 12 {
		t.Errorf("%d table rows, want 12:\n%s", rows, out)
	}
}

func TestSweepJSONAndCSV(t *testing.T) {
	code, out, errs := runCLI("sweep", "19", "--ranks", "8", "--sizes", "16K:64K", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
		// The crossover between 32K and 64K at P=8 (see engine's
		// TestSweepMeshOrRing).
		Crossovers []struct {
			Ranks int    `json:"ranks"`
			Below string `json:"below"`
			Above string `json:"above"`
		} `json:"crossovers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(doc.Rows) != 6 || len(doc.Crossovers) != 1 || doc.Crossovers[0].Below != "mesh" || doc.Crossovers[0].Above != "ring" {
		t.Fatalf("%d rows and %d crossovers, want 6 and 1:\n%s", len(doc.Rows), len(doc.Crossovers), out)
	}
	for _, key := range []string{"variant", "ranks", "bytes", "count", "sim_time_ns", "algbw_gbs", "busbw_gbs", "link_eff"} {
		if _, ok := doc.Rows[0][key]; !ok {
			t.Errorf("row lacks %q: %v", key, doc.Rows[0])
		}
	}

	code, out, errs = runCLI("sweep", meshOrRing, "--ranks", "4", "--sizes", "1K:2K", "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 5 || strings.Join(recs[0][:8], ",") != "variant,ranks,bytes,count,sim_time_ns,algbw_gbs,busbw_gbs,link_eff" {
		t.Errorf("csv: %v %v", recs, err)
	}
	if !strings.Contains(errs, "# 4 ranks:") {
		t.Errorf("no crossover line on stderr: %q", errs)
	}
}

func TestSweepUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep"}, "missing FILE"},
		{[]string{"sweep", meshOrRing, "--sizes", "16M:1K"}, "runs backwards"},
		{[]string{"sweep", meshOrRing, "--ranks", "2,x"}, "want rank counts"},
		{[]string{"sweep", meshOrRing, "--json", "--csv"}, "exclude each other"},
		{[]string{"sweep", "99"}, "no kernel with #! sweep: lines"},
		{[]string{"sweep", "../../kernels/08_allreduce_mesh.py"}, "no #! sweep: lines"},
		{[]string{"sweep", meshOrRing, "--op", "barrier", "--sizes", "1K"}, "no bus-bandwidth factor"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, out+errs, c.want)
		}
	}
	// A variant that does not compile is a failed row: exit 1.
	code, out, _ := runCLI("sweep", meshOrRing, "--ranks", "2", "--sizes", "1K",
		"--entry", `good=build_allreduce({P}, {SIZE}, "mesh").run`, "--entry", `bad=build_allreduce({P}, {SIZE}, "tree").run`)
	if code != 1 || !strings.Contains(out, "compile_error") {
		t.Errorf("bad variant: exit %d:\n%s", code, out)
	}
}

// TestRunTracePerfetto: --trace FILE.json writes a Chrome trace that
// validates; any other name keeps JSON lines.
func TestRunTracePerfetto(t *testing.T) {
	dir := t.TempDir()
	entry := `build_allreduce(2, 1024, "mesh").run`
	for _, name := range []string{"t.json", "t.jsonl"} {
		path := filepath.Join(dir, name)
		if code, out, errs := runCLI("run", meshOrRing, "--entry", entry, "--ranks", "2", "--trace", path); code != 0 {
			t.Fatalf("exit %d: %s%s", code, out, errs)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if name == "t.json" {
			if err := trace.ValidateChromeTrace(data); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if !strings.Contains(string(data), `at P=2`) {
				t.Errorf("%s: no process title", name)
			}
			continue
		}
		events, err := trace.Read(strings.NewReader(string(data)))
		if err != nil || len(events) == 0 {
			t.Errorf("%s: %d events, %v", name, len(events), err)
		}
	}
}
