package lower_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine"
	hdr "pldworkbench/engine/header"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
)

// A program to lower: a source file, an entry expression and a rank count.
type instance struct {
	file  string
	entry string // {P} already replaced
	ranks int
}

func (in instance) String() string {
	return filepath.Base(in.file) + ":" + in.entry + "@" + strconv.Itoa(in.ranks)
}

// header is what a testdata program says about itself in `#!` lines (the
// same format as engine/testdata, see its README).
type header struct {
	entries []string
	ranks   []int
}

func readHeader(t *testing.T, path string) header {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h header
	for _, l := range hdr.Parse(src) {
		val := l.Value
		switch l.Key {
		case "entry":
			h.entries = append(h.entries, val)
		case "ranks":
			for _, f := range strings.Fields(val) {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("%s: bad #! ranks: %q", path, val)
				}
				h.ranks = append(h.ranks, n)
			}
		}
	}
	if len(h.ranks) == 0 {
		h.ranks = []int{limits.DefaultRanks}
	}
	return h
}

func expand(entry string, p int) string { return strings.ReplaceAll(entry, "{P}", strconv.Itoa(p)) }

// corpus lists every instance of the engine's program corpus and of this
// package's testdata that calls a builtin collective, at every rank count
// its header lists.
func corpus(t *testing.T) []instance {
	t.Helper()
	var files []string
	for _, pat := range []string{"../testdata/programs/*.py", "testdata/*.py"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	var out []instance
	for _, f := range files {
		h := readHeader(t, f)
		for _, e := range h.entries {
			for _, p := range h.ranks {
				in := instance{file: f, entry: expand(e, p), ranks: p}
				if len(lower.Collectives(load(t, in))) > 0 {
					out = append(out, in)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no program of the corpus calls a collective")
	}
	return out
}

// load checks an instance and returns its program.
func load(t testing.TB, in instance) *ir.Program {
	t.Helper()
	src, err := os.ReadFile(in.file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), in.file, src, engine.Options{}).Check(context.Background(), engine.Options{Entry: in.entry, Ranks: in.ranks})
	if res.Diags.HasErrors() {
		t.Fatalf("%s: %v", in, res.Diags)
	}
	if len(res.Units) != 1 || res.Units[0].Program == nil {
		t.Fatalf("%s: want one program, got %d units", in, len(res.Units))
	}
	return res.Units[0].Program
}

// lowered loads and fully lowers an instance.
func lowered(t testing.TB, in instance) *ir.Program {
	t.Helper()
	p, err := lower.Lower(load(t, in), "")
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	return p
}
