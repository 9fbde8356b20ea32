package npu_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/npu"
	"pldworkbench/kernels"
	"pldworkbench/tutorials/check"
)

func standinEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	dir, err := filepath.Abs("testdata/standin")
	if err != nil {
		t.Fatal(err)
	}
	return append(append(os.Environ(), "PYTHONPATH="+dir), extra...)
}

// TestDetect finds the stand-in's pypto and torch on PYTHONPATH, cards by
// their device nodes, and says what is missing and how to get it.
func TestDetect(t *testing.T) {
	py := python(t)
	dev := t.TempDir()
	for _, n := range []string{"davinci0", "davinci1", "davinci_manager", "davinci3"} {
		if err := os.WriteFile(filepath.Join(dev, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tc := npu.Detect(t.Context(), npu.DetectOptions{Python: py, Env: standinEnv(t), DevRoot: dev})
	if tc.PyPTO != "0.0.0+standin" || tc.Torch != "0.0.0+standin" || !strings.Contains(tc.PyPTOPath, "testdata/standin") {
		t.Errorf("with the stand-in on PYTHONPATH: pypto %q at %q, torch %q", tc.PyPTO, tc.PyPTOPath, tc.Torch)
	}
	if _, err := os.Stat("/dev/davinci0"); err != nil && !slices.Equal(tc.Devices, []int{0, 1, 3}) {
		t.Errorf("devices %v from %s, want [0 1 3] from the davinciN nodes", tc.Devices, tc.DeviceSource)
	}
	if !tc.Usable("a2a3sim") || !tc.Usable("a2a3") || tc.PTOAS != "/standin/ptoas" {
		t.Errorf("not usable: %v (assembler %q)", tc.Missing, tc.PTOAS)
	}
	// A PyPTO without its assembler compiles (--compile-only) but cannot
	// run, and says where to get one.
	noas := npu.Detect(t.Context(), npu.DetectOptions{Python: py, Env: standinEnv(t, "PLD_STANDIN_PTOAS="), DevRoot: dev})
	if !noas.NoPTOAS || noas.Usable("a2a3sim") || !noas.Compiles() || !strings.Contains(strings.Join(noas.MissingFor("a2a3sim"), "\n"), "PTOAS_ROOT") {
		t.Errorf("without an assembler: no_ptoas %v, usable %v, compiles %v, missing %q", noas.NoPTOAS, noas.Usable("a2a3sim"), noas.Compiles(), noas.MissingFor("a2a3sim"))
	}

	bare := npu.Detect(t.Context(), npu.DetectOptions{Python: py, Env: []string{"PATH=" + os.Getenv("PATH"), "PYTHONPATH=" + t.TempDir()}, DevRoot: t.TempDir()})
	if bare.PyPTO != "" {
		t.Skipf("a pypto is importable without the stand-in (%s at %s): the missing-toolchain messages cannot be checked here", bare.PyPTO, bare.PyPTOPath)
	}
	if bare.Usable("a2a3sim") || len(bare.MissingFor("a2a3sim")) == 0 || !strings.Contains(strings.Join(bare.Missing, "\n"), "github.com/hw-native-sys/pypto") {
		t.Errorf("without pypto: missing %q", bare.Missing)
	}
	if !strings.Contains(strings.Join(bare.MissingFor("a2a3"), "\n"), "no Ascend NPU") || strings.Contains(strings.Join(bare.MissingFor("a2a3sim"), "\n"), "no Ascend NPU") {
		t.Errorf("a card platform must miss the cards, a simulator must not: %q / %q", bare.MissingFor("a2a3"), bare.MissingFor("a2a3sim"))
	}
	none := npu.Detect(t.Context(), npu.DetectOptions{Python: "no-such-python3", DevRoot: t.TempDir()})
	if none.PythonOK || !strings.Contains(none.Missing[0], "python3 is not on PATH") {
		t.Errorf("without python: %q", none.Missing)
	}
}

// exportOne exports a course entry at p ranks with its golden.
func exportOne(t *testing.T, name, entry string, p int, fill emu.Fill) (*engine.ExportResult, kernels.Kernel) {
	t.Helper()
	k, _ := kernels.Get(name)
	g, prose, _, ok := check.ExportGolden(name, entry, p)
	if !ok {
		t.Fatalf("no golden for %s %s", name, entry)
	}
	res, err := engine.Load(t.Context(), k.File, k.Source, engine.Options{}).Export(t.Context(), engine.ExportOptions{Options: engine.Options{Entry: entry, Ranks: p},
		Fill: fill, Seed: 3, DataFile: "exported.inputs.bin", Golden: &npu.Golden{Code: g.Code, Exact: g.Exact, Prose: prose}})

	if err != nil || res.Script == nil {
		t.Fatalf("export: %v %v", err, res.Diags)
	}
	return res, k
}

// emulatorOutputs runs the entry on the emulator and writes its outputs
// where the stand-in reads them, by argument position.
func emulatorOutputs(t *testing.T, k kernels.Kernel, entry string, p int, fill emu.Fill) (string, *engine.RunResult) {
	t.Helper()
	run := engine.Load(t.Context(), k.File, k.Source, engine.Options{}).Run(t.Context(), engine.RunOptions{Options: engine.Options{Entry: entry, Ranks: p}, Fill: fill, Seed: 3})
	if run.Status != "ok" {
		t.Fatalf("emulator: %s", run.Status)
	}
	outs := map[string][]float64{}
	for pos, prm := range run.Program.Entry.Params {
		if o, ok := run.Out[prm.Var.Name]; ok && prm.Dir != ir.In {
			outs[fmt.Sprint(pos)] = o.Floats()
		}
	}
	path := filepath.Join(t.TempDir(), "outs.json")
	writeJSON(t, path, outs)
	return path, run
}

// TestRunStandin runs an exported step-08 mesh all-reduce through Run
// under the stand-in: a temporary directory, the compile and run calls
// with the device ids, the manifest read back, the per-rank swimlane
// records turned into task slices, and the directory gone afterwards.
func TestRunStandin(t *testing.T) {
	py := python(t)
	const p = 4
	res, k := exportOne(t, "08_allreduce_mesh", "mesh_allreduce", p, emu.FillRandn)
	outs, run := emulatorOutputs(t, k, "mesh_allreduce", p, emu.FillRandn)
	log := filepath.Join(t.TempDir(), "calls.jsonl")
	parent := t.TempDir()
	r, err := npu.Run(t.Context(), npu.RunSpec{Script: res.Script, Data: res.Data, DataFile: "exported.inputs.bin",
		Platform: "a2a3", Devices: []int{4, 5, 6, 7}, Swimlane: true, Python: py, Dir: parent, Timeout: time.Minute, Memory: 1 << 30,
		Env: standinEnv(t, "PLD_STANDIN_OUTPUTS="+outs, "PLD_STANDIN_LOG="+log, "PLD_STANDIN_TASKS=3")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "ok" || r.Manifest == nil {
		t.Fatalf("status %s exit %d\n%s", r.Status, r.ExitCode, r.Stderr)
	}
	if !slices.Equal(r.Manifest.DeviceIDs, []int{4, 5, 6, 7}) || r.Manifest.Platform != "a2a3" || r.Manifest.Ranks != p {
		t.Errorf("manifest: devices %v platform %s ranks %d", r.Manifest.DeviceIDs, r.Manifest.Platform, r.Manifest.Ranks)
	}
	if got, want := []float64(r.Manifest.Outputs["y"].Data), run.Out["y"].Floats(); !slices.Equal(got, want) {
		t.Errorf("manifest y differs from what the run wrote: %v… vs %v…", got[:4], want[:4])
	}
	calls := readLines(t, log)
	if len(calls) != 2 || calls[0]["call"] != "ir.compile" && calls[0]["call"] != "jit.compile" || calls[1]["call"] != "run" || calls[1]["swimlane"] != true {
		t.Errorf("the stand-in saw %v, want one compile then one run with the swimlane on", calls)
	}
	if ids, _ := json.Marshal(calls[0]["device_ids"]); string(ids) != "[4,5,6,7]" {
		t.Errorf("compiled for devices %s, want [4,5,6,7]", ids)
	}
	// The stand-in's records (testdata/standin, distributed_compiled_program.py):
	// task t of rank r runs on core t%2 from 1000(t+1)+100r cycles for
	// 500+50t cycles at a2a3's 50 MHz, 20 ns a cycle.
	if len(r.Events) != p*3 {
		t.Fatalf("%d events, want %d (3 tasks on each of %d ranks)", len(r.Events), p*3, p)
	}
	for _, e := range r.Events {
		task := int64(e.Seq)
		if e.Op != npu.TaskOp || e.Block != int(task%2) || e.StartNs != 1000*task*20 || e.EndNs-e.StartNs != (500+50*task)*20 {
			t.Errorf("rank %d seq %d: %s block %d [%d, %d] ns", e.Rank, e.Seq, e.Op, e.Block, e.StartNs, e.EndNs)
		}
	}
	if !strings.Contains(r.Lanes, "task-level") {
		t.Errorf("lanes label %q does not say the slices are tasks", r.Lanes)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("the run left %d entries in its parent directory", len(left))
	}
}

// TestRunMismatch: a wrong output makes the script exit 1 with the
// mismatch in the manifest.
func TestRunMismatch(t *testing.T) {
	py := python(t)
	res, k := exportOne(t, "01_hello_rank", "hello_rank", 2, emu.FillIndex)
	outs, _ := emulatorOutputs(t, k, "hello_rank", 2, emu.FillIndex)
	var m map[string][]float64
	b, _ := os.ReadFile(outs)
	json.Unmarshal(b, &m)
	m["1"][5] += 1
	writeJSON(t, outs, m)
	r, err := npu.Run(t.Context(), npu.RunSpec{Script: res.Script, Platform: "a2a3sim", Python: py, Timeout: time.Minute,
		Env: standinEnv(t, "PLD_STANDIN_OUTPUTS="+outs)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "mismatch" || r.ExitCode != 1 || len(r.Manifest.Mismatches) != 1 || r.Manifest.Mismatches[0].First != 5 || r.Manifest.Mismatches[0].Wrong != 1 {
		t.Fatalf("status %s exit %d mismatches %+v\n%s", r.Status, r.ExitCode, r.Manifest, r.Stderr)
	}
}

// TestRunLimits: a compile that outlives the deadline is killed with its
// process group, and a run that wants more memory than the budget fails
// with Python's MemoryError instead of taking it.
func TestRunLimits(t *testing.T) {
	py := python(t)
	res, _ := exportOne(t, "01_hello_rank", "hello_rank", 2, emu.FillIndex)
	r, err := npu.Run(context.Background(), npu.RunSpec{Script: res.Script, Platform: "a2a3sim", Python: py, Timeout: time.Second,
		Env: standinEnv(t, "PLD_STANDIN_COMPILE_SECONDS=120")})
	if err != nil {
		t.Fatal(err)
	}
	// The bound is the deadline plus the 2 s the process gets to go after
	// the kill, with room for a loaded machine.
	if r.Status != npu.StatusTimeout || r.Elapsed > 20*time.Second {
		t.Errorf("status %s after %v, want timeout soon after 1s", r.Status, r.Elapsed)
	}
	r, err = npu.Run(context.Background(), npu.RunSpec{Script: res.Script, Platform: "a2a3sim", Python: py, Timeout: time.Minute,
		Memory: 64 << 20, Env: standinEnv(t, "PLD_STANDIN_ALLOC_MB=512")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != npu.StatusError || !strings.Contains(r.Stderr, "MemoryError") {
		t.Errorf("status %s, stderr %q, want error with MemoryError", r.Status, r.Stderr)
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}
