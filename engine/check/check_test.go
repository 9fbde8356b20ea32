package check

import (
	"flag"
	"fmt"
	"golang.org/x/tools/txtar"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

var update = flag.Bool("update", false, "rewrite the golden IR in testdata")

// A testdata file holds one or more programs separated by lines "---".
// Header comments configure a chunk:
//
//	#! entry: build_ring(4).host     the host orchestrator to check (Check)
//	#! func: kernel                   or a single DSL function (CheckFunc)
//	#! ranks: 4                       P (default 4)
//	#! platform: 950                  (default 910B)
//	#! pypto: compiles                (ok/ only: engine/npu's TestPyPTOVerdicts
//	                                  compiles it with real PyPTO too)
//
// The first chunk's headers are the defaults of the others. A comment
// ### "regexp" "regexp"... on a line expects, for each regexp, one
// diagnostic starting on that line whose "CODE message" it matches; every
// diagnostic must be expected.

type chunk struct {
	file    string
	index   int
	src     []byte // the chunk, preceded by blank lines so lines match the file
	headers map[string]string
}

var headerRE = regexp.MustCompile(`^#!\s*(\w+):\s*(.*?)\s*$`)

func readChunks(t *testing.T, path string) []chunk {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var out []chunk
	start := 0
	flush := func(end int) {
		var b strings.Builder
		b.WriteString(strings.Repeat("\n", start))
		hdr := map[string]string{}
		for _, l := range lines[start:end] {
			b.WriteString(l)
			if m := headerRE.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil {
				hdr[m[1]] = m[2]
			}
		}
		if len(out) > 0 {
			_, ownEntry := hdr["entry"]
			_, ownFunc := hdr["func"]
			for k, v := range out[0].headers {
				if (k == "entry" || k == "func") && (ownEntry || ownFunc) {
					continue
				}
				if _, ok := hdr[k]; !ok {
					hdr[k] = v
				}
			}
		}
		out = append(out, chunk{file: filepath.Base(path), index: len(out), src: []byte(b.String()), headers: hdr})
	}
	for i, l := range lines {
		if strings.TrimRight(l, "\n") == "---" {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return out
}

func (c chunk) name() string { return fmt.Sprintf("%s#%d", c.file, c.index) }

func (c chunk) options(t *testing.T) Options {
	opts := Options{Platform: c.headers["platform"]}
	if r := c.headers["ranks"]; r != "" {
		n, err := strconv.Atoi(r)
		if err != nil {
			t.Fatalf("%s: bad ranks header %q", c.name(), r)
		}
		opts.Ranks = n
	}
	return opts
}

// run parses, loads and checks the chunk. It returns the program text (for
// goldens) and the diagnostics.
func (c chunk) run(t *testing.T) (string, diag.List) {
	t.Helper()
	f, errs := syntax.ParseFile(c.file, c.src)
	if errs.HasErrors() {
		t.Fatalf("%s: parse: %v", c.name(), errs)
	}
	mod, errs := meta.Load(f, meta.Options{})
	if errs.HasErrors() {
		t.Fatalf("%s: load: %v", c.name(), errs)
	}
	expr, single := c.headers["entry"], false
	if expr == "" {
		expr, single = c.headers["func"], true
	}
	if expr == "" {
		t.Fatalf("%s: no #! entry: or #! func: header", c.name())
	}
	v, errs := mod.Eval(expr)
	if errs.HasErrors() {
		t.Fatalf("%s: entry %s: %v", c.name(), expr, errs)
	}
	fn, ok := v.(*meta.DSLFunc)
	if !ok {
		t.Fatalf("%s: entry %s is a %s", c.name(), expr, v.TypeName())
	}
	if single {
		f, diags := CheckFunc(mod, fn, c.options(t))
		if f == nil {
			return "", diags
		}
		if !diags.HasErrors() && f.Level == ir.InCore {
			if err := ir.VerifyWith(&ir.Program{Funcs: []*ir.Func{f}}, LegalAt); err != nil {
				t.Errorf("%s: checked function fails verification: %v", c.name(), err)
			}
		}
		return f.String(), diags
	}
	prog, diags := Check(mod, fn, c.options(t))
	if prog == nil {
		return "", diags
	}
	if !diags.HasErrors() {
		if err := ir.VerifyWith(prog, LegalAt); err != nil {
			t.Errorf("%s: checked program fails verification: %v", c.name(), err)
		}
	}
	return ir.Print(prog), diags
}

var wantRE = regexp.MustCompile(`###((?:\s*"(?:[^"\\]|\\.)*")+)`)
var quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// expectations returns, per line, the regexps expected there.
func (c chunk) expectations(t *testing.T) map[int][]*regexp.Regexp {
	out := map[int][]*regexp.Regexp{}
	for i, l := range strings.Split(string(c.src), "\n") {
		m := wantRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, q := range quotedRE.FindAllString(m[1], -1) {
			// The text between the quotes is the regexp itself, except that
			// \" stands for a quote.
			s := strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
			re, err := regexp.Compile(s)
			if err != nil {
				t.Fatalf("%s:%d: bad expectation %s: %v", c.name(), i+1, q, err)
			}
			out[i+1] = append(out[i+1], re)
		}
	}
	return out
}

// matchDiagnostics checks diags against the chunk's expectations.
func (c chunk) matchDiagnostics(t *testing.T, diags diag.List) {
	t.Helper()
	want := c.expectations(t)
	for _, d := range diags {
		line := d.Span.Start.Line
		text := d.Code + " " + d.Msg
		res := want[line]
		found := -1
		for i, re := range res {
			if re.MatchString(text) {
				found = i
				break
			}
		}
		if found < 0 {
			t.Errorf("%s:%d: unexpected %s", c.file, line, strings.TrimSpace(diag.Render(d, c.src)))
			continue
		}
		want[line] = append(res[:found], res[found+1:]...)
	}
	var lines []int
	for l := range want {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	for _, l := range lines {
		for _, re := range want[l] {
			t.Errorf("%s:%d: expected a diagnostic matching %q", c.file, l, re)
		}
	}
}

// TestErrors runs every program in testdata/errors and compares its
// diagnostics with the ### expectations.
func TestErrors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "errors", "*.py"))
	if len(files) == 0 {
		t.Fatal("no testdata/errors/*.py")
	}
	n := 0
	for _, path := range files {
		for _, c := range readChunks(t, path) {
			_, diags := c.run(t)
			c.matchDiagnostics(t, diags)
			n++
		}
	}
	t.Logf("%d error programs", n)
}

// TestPrograms checks every program in testdata/ok: it must check with no
// diagnostic (or only the ### expected warnings) and its IR must equal the
// golden in testdata/ok/golden.txtar (go test -update rewrites it).
func TestPrograms(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "ok", "*.py"))
	if len(files) == 0 {
		t.Fatal("no testdata/ok/*.py")
	}
	goldenPath := filepath.Join("testdata", "ok", "golden.txtar")
	data, err := os.ReadFile(goldenPath)
	if err != nil && !*update {
		t.Fatal(err)
	}
	golden := txtar.Parse(data)
	var fresh txtar.Archive
	fresh.Comment = []byte("Golden IR of the programs in testdata/ok, one section per program chunk.\nRegenerate with: go test ./engine/check -run TestPrograms -update\n")
	for _, path := range files {
		for _, c := range readChunks(t, path) {
			text, diags := c.run(t)
			c.matchDiagnostics(t, diags)
			if diags.HasErrors() {
				continue
			}
			fresh.Files = append(fresh.Files, txtar.File{Name: c.name(), Data: []byte(text)})
			if *update {
				continue
			}
			want, ok := archiveFile(golden, c.name())
			if !ok {
				t.Errorf("%s: no golden IR; run go test -update", c.name())
			} else if text != want {
				t.Errorf("%s: IR differs from golden:\n--- got\n%s--- want\n%s", c.name(), text, want)
			}
		}
	}
	if *update {
		if err := os.WriteFile(goldenPath, txtar.Format(&fresh), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// archiveFile returns the text of the file called name in a.
func archiveFile(a *txtar.Archive, name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}
