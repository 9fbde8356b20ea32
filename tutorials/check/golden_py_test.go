package check

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/npu"
	"pldworkbench/kernels"
)

// TestGoldenPyAgrees runs every Python golden (the ones exported scripts
// carry) and its Go twin on the same inputs — the inputs the emulator
// makes for that kernel's entry at 4 ranks (randn) — and requires the
// same expected values, and a Python twin for every Go golden.
func TestGoldenPyAgrees(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the Python goldens cannot be run")
	}
	for key := range goldens {
		if _, ok := goldensPy[key]; !ok {
			t.Errorf("%s has a Go golden and no Python one: exported scripts of it would not be checked", key)
		}
	}
	for key := range goldensPy {
		if _, ok := goldens[key]; !ok {
			t.Errorf("%s has a Python golden and no Go one", key)
		}
	}
	type tensor struct {
		Data  []float64 `json:"data"`
		Shape []int     `json:"shape"`
	}
	type job struct {
		Key    string            `json:"key"`
		Code   string            `json:"code"`
		P      int               `json:"p"`
		Inputs map[string]tensor `json:"inputs"`
	}
	const p = 4
	var jobs []job
	want := map[string]map[string]tensor{}
	keys := make([]string, 0, len(goldens))
	for k := range goldens {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	skipped := 0
	for _, key := range keys {
		name, entry, _ := strings.Cut(key, "/")
		k, ok := kernels.Get(name)
		if !ok {
			t.Fatalf("%s: no kernel %s", key, name)
		}
		e := strings.ReplaceAll(entry, "{P}", fmt.Sprint(p))
		res := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: e, Ranks: p}, Fill: emu.FillRandn, Seed: 11})
		if res.In == nil {
			skipped++ // a bug the checker refuses makes no inputs
			continue
		}
		j := job{Key: key, Code: goldensPy[key], P: p, Inputs: map[string]tensor{}}
		for n, t := range res.In {
			j.Inputs[n] = tensor{t.Floats(), t.Shape}
		}
		jobs = append(jobs, j)
		w := map[string]tensor{}
		for n, t := range goldens[key].Want(p, res.In) {
			w[n] = tensor{t.Floats(), t.Shape}
		}
		want[key] = w
	}
	dir := t.TempDir()
	in, _ := json.Marshal(jobs)
	if err := os.WriteFile(filepath.Join(dir, "jobs.json"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	script := npu.GoldenPrelude + `

import json, sys
out = {}
for j in json.load(open(sys.argv[1])):
    ns = {k: v for k, v in globals().items() if k.startswith("_pld_")}
    exec(j["code"], ns)
    inp = {n: (t["data"], tuple(t["shape"])) for n, t in j["inputs"].items()}
    got = ns["golden"](j["p"], inp)
    out[j["key"]] = {n: {"data": [float(v) for v in vals], "shape": list(shape)} for n, (vals, shape) in got.items()}
json.dump(out, open(sys.argv[2], "w"))
`
	if err := os.WriteFile(filepath.Join(dir, "run.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, filepath.Join(dir, "run.py"), filepath.Join(dir, "jobs.json"), filepath.Join(dir, "out.json")).CombinedOutput(); err != nil {
		t.Fatalf("the Python goldens: %v\n%s", err, out)
	}
	var got map[string]map[string]tensor
	b, _ := os.ReadFile(filepath.Join(dir, "out.json"))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		for n, w := range want[j.Key] {
			g, ok := got[j.Key][n]
			if !ok || fmt.Sprint(g.Shape) != fmt.Sprint(w.Shape) || len(g.Data) != len(w.Data) {
				t.Errorf("%s: %s: Python gives shape %v, Go %v", j.Key, n, g.Shape, w.Shape)
				continue
			}
			for i := range w.Data {
				// The same sums in another order: float64 rounding only.
				if math.Abs(g.Data[i]-w.Data[i]) > 1e-9*(1+math.Abs(w.Data[i])) {
					t.Errorf("%s: %s[%d]: Python %v, Go %v", j.Key, n, i, g.Data[i], w.Data[i])
					break
				}
			}
		}
		if len(got[j.Key]) != len(want[j.Key]) {
			t.Errorf("%s: Python names %d outputs, Go %d", j.Key, len(got[j.Key]), len(want[j.Key]))
		}
	}
	t.Logf("%d goldens agree in Python and Go on the emulator's randn inputs at %d ranks; %d bugs the checker refuses have no inputs", len(jobs), p, skipped)
}
