package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	hdr "pldworkbench/engine/header"
	"pldworkbench/engine/limits"
)

// header is what a testdata program says about itself in `#!` lines.
type header struct {
	entries []string // with {P} unexpanded
	ranks   []int
}

func readHeader(t *testing.T, src string) header {
	t.Helper()
	var h header
	for _, l := range hdr.Parse([]byte(src)) {
		val := l.Value
		switch l.Key {
		case "entry":
			h.entries = append(h.entries, val)
		case "ranks":
			for _, f := range strings.Fields(val) {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("bad #! ranks: %q", val)
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

// instances expands the header into (entry, ranks) pairs.
func (h header) instances() [][2]string {
	var out [][2]string
	for _, e := range h.entries {
		for _, p := range h.ranks {
			ps := strconv.Itoa(p)
			exp := strings.ReplaceAll(e, "{P}", ps)
			out = append(out, [2]string{exp, ps})
		}
	}
	return out
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	return files
}

// TestPrograms checks that every program of our corpus checks clean at every
// entry and rank count its header lists, and without --entry too.
func TestPrograms(t *testing.T) {
	for _, file := range glob(t, "testdata/programs/*.py") {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		h := readHeader(t, string(src))
		if len(h.entries) == 0 {
			t.Errorf("%s: no #! entry line", file)
		}
		for _, inst := range h.instances() {
			p, _ := strconv.Atoi(inst[1])
			res := engine.Load(context.Background(), file, src, engine.Options{}).Check(context.Background(), engine.Options{Entry: inst[0], Ranks: p})
			if res.Diags.HasErrors() {
				t.Errorf("%s --entry %q --ranks %d:\n%s", file, inst[0], p, diag.RenderAll(res.Diags, src))
				continue
			}
			if len(res.Units) != 1 || res.Units[0].Program == nil {
				t.Errorf("%s --entry %q: want one checked program, got %d units", file, inst[0], len(res.Units))
				continue
			}
			if got := res.Units[0].Program.Ranks; got != p {
				t.Errorf("%s --entry %q: program has %d ranks, want %d", file, inst[0], got, p)
			}
		}
		res := engine.Load(context.Background(), file, src, engine.Options{}).Check(context.Background(), engine.Options{Ranks: h.ranks[0]})
		if res.Diags.HasErrors() {
			t.Errorf("%s without --entry at %d ranks:\n%s", file, h.ranks[0], diag.RenderAll(res.Diags, src))
		}
	}
}

var wantRE = regexp.MustCompile(`###\s*"((?:[^"\\]|\\.)*)"`)

// TestErrors runs every broken program and requires exactly the errors its
// `### "regexp"` comments expect, each on its own line, and no others.
func TestErrors(t *testing.T) {
	for _, file := range glob(t, "testdata/errors/*.py") {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		h := readHeader(t, string(src))
		type want struct {
			line int
			re   *regexp.Regexp
		}
		var wants []want
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range wantRE.FindAllStringSubmatch(line, -1) {
				pat, err := strconv.Unquote(`"` + m[1] + `"`)
				if err != nil {
					t.Fatalf("%s:%d: bad expectation %s", file, i+1, m[0])
				}
				wants = append(wants, want{i + 1, regexp.MustCompile("(?i)" + pat)})
			}
		}
		if len(wants) == 0 {
			t.Errorf("%s: no ### expectation", file)
			continue
		}
		opts := engine.Options{Ranks: h.ranks[0]}
		if len(h.entries) > 0 {
			opts.Entry = strings.ReplaceAll(h.entries[0], "{P}", strconv.Itoa(h.ranks[0]))
		}
		res := engine.Load(context.Background(), file, src, opts).Check(context.Background(), opts)
		var errs []diag.Diagnostic
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				errs = append(errs, d)
			}
		}
		used := make([]bool, len(errs))
		for _, w := range wants {
			found := false
			for i, d := range errs {
				if used[i] || d.Span.File != file || d.Span.Start.Line != w.line {
					continue
				}
				if w.re.MatchString(d.Code + " " + d.Msg) {
					used[i], found = true, true
					break
				}
			}
			if !found {
				t.Errorf("%s:%d: no error matching %q; got:\n%s", file, w.line, w.re, diag.RenderAll(res.Diags, src))
			}
		}
		for i, d := range errs {
			if !used[i] {
				t.Errorf("%s: unexpected error:\n%s", file, diag.Render(d, src))
			}
		}
		for _, d := range errs {
			if d.Code == "" || d.Hint == "" {
				t.Errorf("%s: error without code or hint: %s", file, d.Error())
			}
		}
	}
}

func ExampleCheck() {
	src := []byte(`import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(signal: pld.DistributedTensor[[4, 1], pl.INT32]):
    n = pld.world_size()
`)
	res := engine.Load(context.Background(), "prog.py", src, engine.Options{}).Check(context.Background(), engine.Options{})
	for _, d := range res.Diags {
		fmt.Println(d.Span.Start.Line, d.Severity)
	}
	// Output:
	// 7 error
}
