package check

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/platform"
	"pldworkbench/engine/syntax"
)

// upstreamEntries lists, per upstream tutorial program, the host
// orchestrators to check and the rank counts each may run at. The
// programs are not part of the repository: set PLD_UPSTREAM to the
// directory holding 01_hello_rank.py ... 16_putting_it_together.py.
var upstreamEntries = []struct {
	file    string
	entries []string // %d is replaced by the rank count
	ranks   []int
}{
	{"01_hello_rank.py", []string{"hello_rank"}, []int{2}},
	{"02_programming_model.py", []string{"host_orch"}, []int{2}},
	{"03_window_buffer.py", []string{"window_program"}, []int{2}},
	{"04_barrier.py", []string{"barrier_program_hand", "barrier_program_builtin"}, []int{2}},
	{"05_remote_load_store.py", []string{"ring_shift_load", "ring_shift_store"}, []int{2}},
	{"06_put_get.py", []string{"ring_put", "ring_get"}, []int{2}},
	{"07_dynamic_rank_count.py", []string{"ring_put", "ring_get"}, []int{2, 3, 4, 8}},
	{"08_allreduce_mesh.py", []string{"build_mesh_allreduce(%d).mesh_allreduce"}, []int{2, 3, 4, 8}},
	{"09_allreduce_two_phase.py", []string{"build_two_phase_allreduce(%d).two_phase_allreduce"}, []int{2, 4, 8}},
	{"10_allreduce_ring.py", []string{"build_ring_allreduce(%d).ring_allreduce"}, []int{2, 4, 8}},
	{"11_allreduce_reveal.py", []string{`build_reveal_allreduce(%d, "mesh").allreduce_reveal`, `build_reveal_allreduce(%d, "ring").allreduce_reveal`}, []int{2, 3, 4, 8}},
	{"12_broadcast.py", []string{"build_broadcast(%d, False).host_orch", "build_broadcast(%d, True).host_orch"}, []int{2, 3, 4, 8}},
	{"13_allgather.py", []string{"build_allgather(%d, False).host_orch", "build_allgather(%d, True).host_orch"}, []int{2, 3, 4, 8}},
	{"14_reduce_scatter.py", []string{"build_reduce_scatter(%d, False).host_orch", "build_reduce_scatter(%d, True).host_orch"}, []int{2, 3, 4, 8}},
	{"15_all_to_all.py", []string{"build_all_to_all(%d, False).host_orch", "build_all_to_all(%d, True).host_orch"}, []int{2, 3, 4, 8}},
	{"16_putting_it_together.py", []string{"build_compose(%d).host_orch"}, []int{2, 3, 4, 8}},
}

// TestUpstreamPrograms checks every host orchestrator of the upstream
// tutorial programs at every rank count its harness allows, on both
// platforms: each must check with no diagnostic at all, and its IR must
// pass ir.VerifyWith under the operation table.
func TestUpstreamPrograms(t *testing.T) {
	dir := os.Getenv("PLD_UPSTREAM")
	if dir == "" {
		t.Skip("set PLD_UPSTREAM to the directory of the upstream tutorial programs")
	}
	var table strings.Builder
	for _, u := range upstreamEntries {
		src, err := readTutorial(dir, u.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, entry := range u.entries {
			for _, p := range u.ranks {
				for _, plat := range platform.Names() {
					expr := entry
					if strings.Contains(expr, "%d") {
						expr = fmt.Sprintf(entry, p)
					}
					prog, diags, err := checkSource(u.file, src, expr, Options{Ranks: p, Platform: plat})
					status := "clean"
					switch {
					case err != nil:
						status = "LOAD ERROR: " + err.Error()
						t.Errorf("%s %s P=%d: %v", u.file, expr, p, err)
					case len(diags) > 0:
						status = fmt.Sprintf("%d diagnostics", len(diags))
						for _, d := range diags {
							t.Errorf("%s %s P=%d %s:\n%s", u.file, expr, p, plat, diag.Render(d, src))
						}
					default:
						if verr := ir.VerifyWith(prog, LegalAt); verr != nil {
							status = "VERIFY: " + verr.Error()
							t.Errorf("%s %s P=%d: %v", u.file, expr, p, verr)
						}
					}
					if plat == platform.Default() {
						fmt.Fprintf(&table, "| %s | %s | %d | %s | %d funcs |\n", u.file, expr, p, status, len(prog.Funcs))
					}
				}
			}
		}
	}
	t.Logf("\n%s", table.String())
}

// checkSource parses, loads and checks src with entry evaluated in the
// module.
func checkSource(name string, src []byte, entry string, opts Options) (*ir.Program, diag.List, error) {
	f, errs := syntax.ParseFile(name, src)
	if errs.HasErrors() {
		return nil, nil, errs
	}
	mod, errs := meta.Load(f, meta.Options{})
	if errs.HasErrors() {
		return nil, nil, errs
	}
	v, errs := mod.Eval(entry)
	if errs.HasErrors() {
		return nil, nil, errs
	}
	fn, ok := v.(*meta.DSLFunc)
	if !ok {
		return nil, nil, fmt.Errorf("entry %s is a %s, not a DSL function", entry, v.TypeName())
	}
	prog, diags := Check(mod, fn, opts)
	return prog, diags, nil
}

// TestUpstreamMutations deletes each line of each upstream program in turn
// and checks the mutant at the program's smallest rank count: no panic, and
// whatever the checker accepts verifies.
func TestUpstreamMutations(t *testing.T) {
	dir := os.Getenv("PLD_UPSTREAM")
	if dir == "" {
		t.Skip("set PLD_UPSTREAM to the directory of the upstream tutorial programs")
	}
	runs, accepted := 0, 0
	for _, u := range upstreamEntries {
		src, err := readTutorial(dir, u.file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		for _, entry := range u.entries {
			expr := entry
			if strings.Contains(expr, "%d") {
				expr = fmt.Sprintf(entry, u.ranks[0])
			}
			c := chunk{file: u.file, headers: map[string]string{"entry": expr, "ranks": fmt.Sprint(u.ranks[0])}}
			for i := range lines {
				if strings.TrimSpace(lines[i]) == "" {
					continue
				}
				mutated := strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n")
				runs++
				if mutateOnce(t, c, []byte(mutated), i+1) {
					accepted++
				}
			}
		}
	}
	t.Logf("%d mutants checked, %d accepted", runs, accepted)
}
