package lower_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"pldworkbench/engine/ir"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldens lists, per source file, the entries whose lowered IR is kept in
// testdata/golden/<file>.txtar, and the rank counts: 2 and 4 for every
// collective, and 3 and 5 as well for the ring allreduce, whose segments
// do not divide 64 evenly there.
var goldens = []struct {
	file    string
	entries []string
	ranks   []int
}{
	{"../testdata/programs/05_remote_load_store.py", []string{"pull_from_left"}, []int{2}},
	{"../testdata/programs/07_dynamic_rank_count.py", []string{"barrier_then_get_prev"}, []int{2, 4}},
	{"../testdata/programs/11_allreduce_reveal.py", []string{
		`build_reveal_allreduce({P}, "mesh").allreduce_host`,
		`build_reveal_allreduce({P}, "mesh", True).allreduce_host`,
	}, []int{2, 4}},
	{"../testdata/programs/11_allreduce_reveal.py", []string{`build_reveal_allreduce({P}, "ring").allreduce_host`}, []int{2, 3, 4, 5}},
	{"../testdata/programs/12_broadcast.py", []string{"build_broadcast({P}, True).host_orch"}, []int{2, 4}},
	{"../testdata/programs/13_allgather.py", []string{"build_allgather({P}, True).host_orch"}, []int{2, 4}},
	{"../testdata/programs/14_reduce_scatter.py", []string{"build_reduce_scatter({P}, True).host_orch"}, []int{2, 4}},
	{"../testdata/programs/15_all_to_all.py", []string{"build_all_to_all({P}, True).host_orch"}, []int{2, 4}},
	{"../testdata/programs/16_compose.py", []string{"build_compose({P}).host_orch"}, []int{2, 4}},
	{"testdata/alltoallv.py", []string{"build_alltoallv({P}).host_orch"}, []int{2, 4}},
	{"testdata/reuse.py", []string{`build_reuse({P}, "mesh").host_orch`}, []int{2}},
	{"testdata/shapes.py", []string{
		`build_shapes({P}, 1, 5000, "mesh", "min").host_orch`,
		`build_shapes({P}, 4, 8, "mesh", "prod").host_orch`,
	}, []int{2}},
	{"testdata/shapes.py", []string{`build_shapes({P}, 1, 5000, "ring", "sum").host_orch`}, []int{3, 5}},
	{"testdata/host_reduce.py", []string{
		`build_host_reduce({P}, 960, 4, "mesh", "sum").host_orch`,
		`build_host_reduce({P}, 64, 1, "mesh", "prod").host_orch`,
	}, []int{2, 4}},
	{"testdata/host_reduce.py", []string{`build_host_reduce({P}, 960, 1, "ring", "sum").host_orch`}, []int{2, 3, 4, 5}},
	{"testdata/host_data.py", []string{
		"build_host_data({P}).bcast_orch",
		"build_host_data({P}).gather_orch",
		"build_host_data({P}).scatter_orch",
		"build_host_data({P}).swap_orch",
	}, []int{2, 4}},
}

// loweredText prints what lowering changed: every function that holds an
// emitted statement or that a pass synthesized, in program order.
func loweredText(p *ir.Program) string {
	var b strings.Builder
	b.WriteString("# program " + p.Name + ", " + strconv.Itoa(p.Ranks) + " ranks, lowered functions only\n")
	for _, f := range p.Funcs {
		if f.From != nil || lowers(f) {
			b.WriteString("\n" + f.String())
		}
	}
	return b.String()
}

func TestLoweredGolden(t *testing.T) {
	sections := map[string][]txtar.File{}
	var order []string
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g.file), ".py") + ".txtar"
		if _, ok := sections[name]; !ok {
			order = append(order, name)
		}
		for _, e := range g.entries {
			for _, p := range g.ranks {
				in := instance{file: g.file, entry: expand(e, p), ranks: p}
				sections[name] = append(sections[name], txtar.File{Name: in.entry + " @" + strconv.Itoa(p), Data: []byte(loweredText(lowered(t, in)))})
			}
		}
	}
	for _, name := range order {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			a := &txtar.Archive{Comment: []byte("Lowered IR, written by go test -update: the functions lowering changed.\n"), Files: sections[name]}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		a := txtar.Parse(data)
		want := map[string]string{}
		for _, f := range a.Files {
			want[f.Name] = string(f.Data)
		}
		for _, f := range sections[name] {
			w, ok := want[f.Name]
			switch {
			case !ok:
				t.Errorf("%s: no golden for %s; run go test -update", name, f.Name)
			case w != string(f.Data):
				t.Errorf("%s: %s differs from its golden:\n%s", name, f.Name, firstDiff(string(f.Data), w))
			}
		}
		if len(a.Files) != len(sections[name]) {
			t.Errorf("%s holds %d sections, want %d; run go test -update", name, len(a.Files), len(sections[name]))
		}
	}
}

// firstDiff shows the first line where got and want part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + gl + "\n  want: " + wl
		}
	}
	return "(equal)"
}
