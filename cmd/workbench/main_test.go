package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	const prog = "../../engine/testdata/programs/"
	const bad = "../../engine/testdata/errors/"
	const l2 = "../../engine/check/testdata/ok/"
	tests := []struct {
		args     []string
		code     int
		contains string // in stdout+stderr
	}{
		{[]string{"serve", "--bogus"}, 2, "usage: workbench [serve]"},
		{[]string{"help"}, 0, "usage: workbench"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"steps"}, 0, "20  Debugging lab"},
		{[]string{"steps", "extra"}, 2, "no arguments"},
		{[]string{"check"}, 2, "missing FILE"},
		{[]string{"check", "nope.py"}, 2, "no such file"},
		{[]string{"check", prog + "08_allreduce_mesh.py", "--ranks", "0"}, 2, "--ranks 0 out of range"},
		{[]string{"check", prog + "08_allreduce_mesh.py", "--platform", "H100"}, 2, "unknown"},
		{[]string{"check", prog + "08_allreduce_mesh.py"}, 0, "ok,"},
		{[]string{"check", "--ranks", "8", prog + "09_allreduce_two_phase.py"}, 0, "at 8 ranks:"},
		{[]string{"check", prog + "10_allreduce_ring.py", "--entry", "build_ring_allreduce(4).ring_sum"}, 0, "host ring_sum"},
		{[]string{"check", bad + "world_size_in_kernel.py"}, 1, "world_size"},
		{[]string{"check", bad + "for_missing_colon.py"}, 1, "expected ':'"},
		{[]string{"check", bad + "two_phase_guard.py", "--entry", "build_two_phase_allreduce(3).two_phase_sum"}, 1, "got 3"},
		{[]string{"ir", prog + "10_allreduce_ring.py", "--entry", "build_ring_allreduce(4).ring_sum"}, 0, "pld.system.notify"},
		{[]string{"ir", prog + "04_barrier.py"}, 2, "--entry"},
		{[]string{"check", "../../kernels/sweep/allgather.py"}, 0, "hint: name one with --entry, e.g. --entry 'build_allgather(...)"},
		// The six-line crash (issue 11): a diagnostic and exit 1, never a panic.
		{[]string{"check", bad + "host_param_default.py"}, 1, "E0112: parameter x has a default"},
		{[]string{"run", bad + "host_param_default.py"}, 1, "E0112: parameter x has a default"},
		{[]string{"ir", bad + "host_param_default.py"}, 1, "E0112: parameter x has a default"},
		{[]string{"check", prog + "08_allreduce_mesh.py", "--mem-limit", "lots"}, 2, "--mem-limit"},
		{[]string{"check", prog + "08_allreduce_mesh.py", "--timeout", "-1s"}, 2, "--timeout"},
		{[]string{"run", prog + "08_allreduce_mesh.py", "--mem-limit", "1KiB"}, 1, "E0516"},
		{[]string{"step", "8", "--mem-limit", "512MiB", "--timeout", "20s"}, 0, "pass"},
		// The command line's only rank limit is the memory budget (the
		// server's cap of 64 is the server's).
		{[]string{"run", "../../kernels/01_hello_rank.py", "--ranks", "4096"}, 0, "at 4096 ranks"},
		{[]string{"run", "../../kernels/01_hello_rank.py", "--ranks", "4096", "--mem-limit", "1MiB"}, 1, "E0516"},
		{[]string{"sweep", "../../kernels/sweep/allgather.py", "--ranks", "0"}, 2, "rank counts of 1 or more"},
		// Programs with no HOST level: the chip orchestration is the entry,
		// on one chip; with several, none is the default.
		{[]string{"run", "../../engine/testdata/heads/l2_single.py"}, 0, "ok (axpy at 1 rank)"},
		{[]string{"run", "../../engine/testdata/heads/l2_single.py", "--ranks", "2"}, 1, "E0519"},
		{[]string{"check", l2 + "l2_only.py"}, 0, "Blend.distance at 1 rank"},
		{[]string{"run", l2 + "l2_only.py"}, 2, "E0412: no entry named, and the file has 2 chip orchestrations"},
		{[]string{"run", l2 + "l2_only.py"}, 2, "pick one: 'Blend.blend', 'Blend.distance'"},
		{[]string{"run", l2 + "l2_only.py", "--entry", "Blend.distance"}, 0, "ok (Blend.distance at 1 rank)"},
		{[]string{"ir", l2 + "l2_only.py"}, 2, "hint: name one with --entry"},
		{[]string{"ir", l2 + "l2_only.py", "--entry", "Blend.blend"}, 0, "orchestration blend("},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(tt.args...)
		if code != tt.code {
			t.Errorf("workbench %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(tt.args, " "), code, tt.code, out, errs)
			continue
		}
		if !strings.Contains(out+errs, tt.contains) {
			t.Errorf("workbench %s: output lacks %q\nstdout: %s\nstderr: %s", strings.Join(tt.args, " "), tt.contains, out, errs)
		}
	}
}

func TestCheckJSON(t *testing.T) {
	code, out, _ := runCLI("check", "--json", "../../engine/testdata/errors/notify_without_op.py")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var got struct {
		Diagnostics []struct {
			File     string `json:"file"`
			Line     int    `json:"line"`
			Col      int    `json:"col"`
			EndLine  int    `json:"end_line"`
			EndCol   int    `json:"end_col"`
			Code     string `json:"code"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Hint     string `json:"hint"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(got.Diagnostics) != 1 {
		t.Fatalf("want 1 diagnostic, got %d: %s", len(got.Diagnostics), out)
	}
	d := got.Diagnostics[0]
	if d.Severity != "error" || !strings.Contains(d.Message, "op=") || d.Code == "" || d.Hint == "" || d.Line == 0 || d.EndCol <= d.Col && d.EndLine == d.Line {
		t.Errorf("diagnostic = %+v", d)
	}

	code, out, _ = runCLI("check", "--json", "../../engine/testdata/programs/01_hello_rank.py")
	if code != 0 || !strings.Contains(out, `"diagnostics": []`) {
		t.Errorf("clean program: exit %d, output %s", code, out)
	}
}

func TestRun(t *testing.T) {
	const prog = "../../engine/testdata/programs/"
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"run", prog + "08_allreduce_mesh.py", "--ranks", "4"}, 0, "y[3] = [384, 388, 392"},
		{[]string{"run", prog + "08_allreduce_mesh.py", "--fill", "bogus"}, 2, "unknown fill"},
		{[]string{"run", prog + "04_barrier.py"}, 2, "--entry"},
		{[]string{"run", "../../engine/testdata/run/deadlock_ring.py", "--ranks", "3"}, 1, "rank 2, line 27: wait token[0, 0] >= 1, but it holds 0; no rank has notified it"},
		{[]string{"run", "../../engine/testdata/errors/notify_without_op.py"}, 1, "compile_error"},
		// FP8 is refused by the checker, before the run could fail with E0510.
		{[]string{"run", "../../engine/testdata/errors/fp8_window.py"}, 1, "error E0228: dtype=FP8E4M3FN"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.contains) {
			t.Errorf("workbench %s: exit %d (want %d); want output containing %q\nstdout: %s\nstderr: %s",
				strings.Join(tt.args, " "), code, tt.code, tt.contains, out, errs)
		}
	}
}

func TestRunJSONDeterministic(t *testing.T) {
	args := []string{"run", "--json", "--fill", "randn", "--seed", "3", "--ranks", "4", "../../engine/testdata/programs/10_allreduce_ring.py"}
	code1, out1, _ := runCLI(args...)
	code2, out2, _ := runCLI(args...)
	if code1 != 0 || code2 != 0 || out1 != out2 {
		t.Fatalf("two runs differ or failed: exit %d/%d\n%s\n%s", code1, code2, out1, out2)
	}
	var got struct {
		Status  string `json:"status"`
		Ranks   int    `json:"ranks"`
		Inputs  map[string]struct{ Data []float64 }
		Outputs map[string]struct {
			DType string
			Shape []int
			Data  []float64
		}
		Diagnostics []any `json:"diagnostics"`
		Stats       map[string]int64
	}
	if err := json.Unmarshal([]byte(out1), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "ok" || got.Ranks != 4 || got.Diagnostics == nil || got.Stats["notifies"] == 0 {
		t.Fatalf("unexpected result: %+v", got)
	}
	// Every rank's row is the element-wise sum of the four input rows.
	x, y := got.Inputs["x"].Data, got.Outputs["y"].Data
	n := len(x) / 4
	for r := 0; r < 4; r++ {
		for j := 0; j < n; j++ {
			want := float32(0)
			for k := 0; k < 4; k++ {
				want += float32(x[k*n+j])
			}
			if d := y[r*n+j] - float64(want); d > 1e-4 || d < -1e-4 {
				t.Fatalf("y[%d][%d] = %v, want %v", r, j, y[r*n+j], want)
			}
		}
	}
}

func TestCompare(t *testing.T) {
	const bcast = "../../engine/testdata/programs/12_broadcast.py"
	head, _ := os.ReadFile(bcast)
	if !strings.Contains(string(head), "build_broadcast") {
		t.Fatalf("%s no longer defines build_broadcast", bcast)
	}
	code, out, errs := runCLI("compare", bcast, "--entry", "build_broadcast(4, False).host_orch", "--entry", "build_broadcast(4, True).host_orch", "--ranks", "4")
	if code != 0 || !strings.Contains(out, "verdict: equal at 4 ranks") || !strings.Contains(out, "# from pld.tensor.broadcast") {
		t.Fatalf("compare hand vs builtin broadcast: exit %d\n%s\n%s", code, out, errs)
	}
	// A shift and its mirror image differ: the verdict says so and names
	// where each rank's output first differs.
	const k = "../../kernels/"
	code, out, _ = runCLI("compare", k+"06_put_get.py", k+"05_remote_load_store.py", "--entry", "pass_by_put", "--entry", "shift_by_load", "--ranks", "4", "--json")
	var got struct {
		Verdict string `json:"verdict"`
		Outputs []struct {
			Equal     bool  `json:"equal"`
			FirstDiff []int `json:"first_diff"`
		} `json:"outputs"`
		A struct {
			Status string `json:"status"`
		} `json:"a"`
		KernelDiff string `json:"kernel_diff"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	if code != 1 || got.Verdict != "different" || got.A.Status != "ok" || len(got.Outputs) != 1 || got.Outputs[0].Equal ||
		len(got.Outputs[0].FirstDiff) != 4 || got.Outputs[0].FirstDiff[0] != 0 || got.KernelDiff == "" {
		t.Fatalf("compare put vs get: exit %d, %+v", code, got)
	}
	// A side with inputs the other side lacks makes its own from the fill.
	_, out, _ = runCLI("compare", k+"04_barrier_hand.py", k+"04_barrier_builtin.py", "--ranks", "2")
	if strings.Count(out, ": ok\n") != 2 {
		t.Errorf("compare of a program without inputs against one with inputs: both sides must run\n%s", out)
	}
	if code, _, errs := runCLI("compare", k+"06_put_get.py", "--entry", "x"); code != 2 || !strings.Contains(errs, "two --entry") {
		t.Errorf("one file, one entry: exit %d, %s", code, errs)
	}
}

func TestRunRaceAndSchedules(t *testing.T) {
	const racy = "../../engine/testdata/run/mesh_without_barrier.py"
	code, out, _ := runCLI("run", racy, "--ranks", "4", "--json")
	var got struct {
		Status string `json:"status"`
		Races  []struct {
			A, B struct {
				Line int    `json:"line"`
				Op   string `json:"op"`
			}
			Message string `json:"message"`
		} `json:"races"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 1 || got.Status != "race" || len(got.Races) == 0 {
		t.Fatalf("racy mesh: exit %d, %+v", code, got)
	}
	r := got.Races[0]
	if r.A.Op != "pl.store" || r.B.Op != "pld.tile.remote_load" || !strings.Contains(r.Message, "no notify/wait orders them") {
		t.Errorf("race = %+v", r)
	}
	// Under the adversarial schedule the missing wait produces a wrong sum:
	// rank 0 adds peers' slots before they are staged (zeros).
	code, out, _ = runCLI("run", racy, "--ranks", "4", "--schedule", "adversarial", "--no-races")
	if code != 0 || !strings.Contains(out, "y[0] = [0, 1, 2, 3") {
		t.Errorf("adversarial: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("run", racy, "--ranks", "4", "--schedules", "12", "--no-races")
	if code != 1 || !strings.Contains(out, "differs from the fair schedule") {
		t.Errorf("--schedules: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI("run", racy, "--schedule", "sometimes"); code != 2 || !strings.Contains(errs, "--schedule") {
		t.Errorf("bad --schedule: exit %d, %s", code, errs)
	}
	// A correct kernel is clean under every schedule.
	code, out, _ = runCLI("run", "../../kernels/08_allreduce_mesh.py", "--ranks", "4", "--schedules", "8")
	if code != 0 || !strings.Contains(out, "8 random schedules: 0 failed") {
		t.Errorf("correct mesh under random schedules: exit %d\n%s", code, out)
	}
}

func TestEntryExpandsP(t *testing.T) {
	code, out, errs := runCLI("run", "../../kernels/10_allreduce_ring.py", "--entry", "build_ring_allreduce({P}).ring_allreduce", "--ranks", "8")
	if code != 0 || !strings.Contains(out, "build_ring_allreduce(8).ring_allreduce at 8 ranks") {
		t.Errorf("{P} in --entry: exit %d\n%s%s", code, out, errs)
	}
}

// TestRunShadowedLoopVar runs the program whose wait loop reuses the window's
// name: the run is refused with the error at the later use (it once ran "ok"
// with every statement after the loop dropped), and the same program with
// the loop variable renamed runs and moves the data.
func TestRunShadowedLoopVar(t *testing.T) {
	const bad = "../../engine/testdata/errors/loop_var_shadows_window.py"
	code, out, errs := runCLI("run", bad)
	if code != 1 || !strings.Contains(out+errs, "loop_var_shadows_window.py:38:35: error E0408: stage is the INDEX scalar loop variable of line 35") ||
		strings.Contains(out, ": ok") {
		t.Fatalf("workbench run %s: exit %d, want 1 with E0408 at 38:35\nstdout: %s\nstderr: %s", bad, code, out, errs)
	}
	src, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.NewReplacer("for stage in", "for src in", "if stage != me", "if src != me", "[stage, 0], 1", "[src, 0], 1").Replace(string(src))
	path := t.TempDir() + "/renamed.py"
	if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI("run", path)
	// --fill index: rank r's x holds 64r..64r+63, and y[r] is x[r+1 mod 4].
	if code != 0 || !strings.Contains(out, "y[0] = [64, 65, 66") || !strings.Contains(out, "y[3] = [0, 1, 2") {
		t.Fatalf("workbench run (renamed): exit %d, want 0 with y[r] = x[r+1]\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// TestEntryExcerpt: a diagnostic in an --entry expression quotes that
// expression, not line 1 of the file (which is what it showed when every
// excerpt came from the file's text).
func TestEntryExcerpt(t *testing.T) {
	const mesh = "../../engine/testdata/programs/08_allreduce_mesh.py"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", mesh, "--entry", "nosuch", "--ranks", "4"}, "<entry>:1:1: error E0303: name 'nosuch' is not defined\n 1 | nosuch\n   | ^^^^^^\n"},
		{[]string{"run", mesh, "--entry", "nosuch", "--ranks", "4", "--schedules", "2"}, " 1 | nosuch\n   | ^^^^^^\n"},
		{[]string{"check", mesh, "--entry", "mesh_allreduce("}, " 1 | mesh_allreduce(\n   |               ^\n"},
		{[]string{"check", mesh, "--entry", "SIZE"}, "--entry SIZE is an int, want a DSL function\n 1 | SIZE\n   | ^^^^\n"},
		{[]string{"ir", mesh, "--entry", "nosuch"}, " 1 | nosuch\n"},
	} {
		code, out, errb := runCLI(tc.args...)
		if code == 0 || !strings.Contains(out+errb, tc.want) {
			t.Errorf("%v: exit %d, want the entry quoted:\n%q\ngot:\n%s%s", tc.args, code, tc.want, out, errb)
		}
		if first, _, _ := strings.Cut(mustRead(t, mesh), "\n"); strings.Contains(out+errb, " | "+first) {
			t.Errorf("%v quotes the file's first line %q for an entry diagnostic", tc.args, first)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
