package syntax

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .dump files in testdata")

// testdataFiles returns the Python files in testdata.
func testdataFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata programs (%v)", err)
	}
	return files
}

// TestTestdata parses each program in testdata without error and compares
// its dump with the golden file beside it (go test -update rewrites them).
func TestTestdata(t *testing.T) {
	for _, name := range testdataFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, errs := ParseFile(name, src)
		if len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
			continue
		}
		got := Dump(f) + "\n"
		golden := strings.TrimSuffix(name, ".py") + ".dump"
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s: dump differs from %s (run go test -update and review the diff)", name, golden)
		}
	}
}

// TestTestdataCoverage checks that the testdata programs between them use
// every kind of node, so the span test below covers every node type.
func TestTestdataCoverage(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range testdataFiles(t) {
		src, _ := os.ReadFile(name)
		f, _ := ParseFile(name, src)
		Walk(f, func(n Node) bool {
			seen[fmt.Sprintf("%T", n)] = true
			return true
		})
	}
	all := []Node{
		&File{}, &Ident{}, &NumberLit{}, &StringLit{}, &FStringLit{}, &ConstLit{}, &ListLit{},
		&TupleLit{}, &DictLit{}, &SetLit{}, &CompExpr{}, &ParenExpr{}, &AttrExpr{}, &IndexExpr{},
		&SliceExpr{}, &CallExpr{}, &UnaryExpr{}, &BinaryExpr{}, &BoolExpr{}, &CompareExpr{},
		&CondExpr{}, &LambdaExpr{}, &StarExpr{}, &ImportStmt{}, &FromImportStmt{}, &FuncDef{},
		&ClassDef{}, &AssignStmt{}, &AugAssignStmt{}, &ExprStmt{}, &IfStmt{}, &ForStmt{},
		&WhileStmt{}, &WithStmt{}, &TryStmt{}, &ReturnStmt{}, &RaiseStmt{}, &AssertStmt{},
		&BranchStmt{}, &GlobalStmt{}, &DelStmt{}, &Param{}, &Decorator{}, &ExceptClause{},
	}
	var missing []string
	for _, n := range all {
		if k := fmt.Sprintf("%T", n); !seen[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no testdata program has a %s", strings.Join(missing, ", "))
	}
}

// TestSpans checks every node of every testdata program: its span lies in
// the source with line and column matching the offset, starts and ends on a
// token (no surrounding blanks), and lies within its parent's span.
func TestSpans(t *testing.T) {
	for _, name := range testdataFiles(t) {
		src, _ := os.ReadFile(name)
		f, errs := ParseFile(name, src)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", name, errs)
		}
		for _, problem := range spanProblems(f, src, true) {
			t.Errorf("%s: %s", name, problem)
		}
	}
}

// spanProblems lists what is wrong with the spans of the tree n over src. With
// tight, each node's text must also start and end on a token.
func spanProblems(n Node, src []byte, tight bool) []string {
	lines := newLineIndex(src)
	var problems []string
	var stack []Node
	var visit func(Node) bool
	visit = func(n Node) bool {
		sp := n.Span()
		what := fmt.Sprintf("%T at %d:%d", n, sp.Start.Line, sp.Start.Col)
		for _, p := range []Pos{sp.Start, sp.End} {
			if msg := lines.check(p); msg != "" {
				problems = append(problems, what+": "+msg)
				return false
			}
		}
		if sp.End.Offset < sp.Start.Offset {
			problems = append(problems, what+": span ends before it starts")
		}
		if len(stack) > 0 {
			ps := stack[len(stack)-1].Span()
			if sp.Start.Offset < ps.Start.Offset || sp.End.Offset > ps.End.Offset {
				problems = append(problems, fmt.Sprintf("%s: span [%d,%d) is outside its parent %T [%d,%d)",
					what, sp.Start.Offset, sp.End.Offset, stack[len(stack)-1], ps.Start.Offset, ps.End.Offset))
			}
		}
		if _, isFile := n.(*File); tight && !isFile {
			text := string(src[sp.Start.Offset:sp.End.Offset])
			if text == "" || strings.TrimSpace(text) != text {
				problems = append(problems, fmt.Sprintf("%s: span text %q is empty or has blanks around it", what, clip(text)))
			}
		}
		return true
	}
	var walk func(Node)
	walk = func(n Node) {
		if !visit(n) {
			return
		}
		stack = append(stack, n)
		// Walk the direct children only: the first callback for each child
		// recurses, and returning false stops Walk descending on its own.
		first := true
		Walk(n, func(c Node) bool {
			if first {
				first = false
				return true
			}
			walk(c)
			return false
		})
		stack = stack[:len(stack)-1]
	}
	walk(n)
	return problems
}

// lineIndex checks positions against a source quickly.
type lineIndex struct {
	n      int
	starts []int // offset of each line's first byte
}

func newLineIndex(src []byte) lineIndex {
	li := lineIndex{n: len(src), starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

// check describes what is wrong with p, or returns "".
func (li lineIndex) check(p Pos) string {
	if p.Offset < 0 || p.Offset > li.n {
		return fmt.Sprintf("offset %d outside the source [0, %d]", p.Offset, li.n)
	}
	line := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > p.Offset })
	col := p.Offset - li.starts[line-1] + 1
	if p.Line != line || p.Col != col {
		return fmt.Sprintf("offset %d is %d:%d, but the position says %d:%d", p.Offset, line, col, p.Line, p.Col)
	}
	return ""
}

// TestSpanProblemsCatches makes sure the span checker is not vacuous.
func TestSpanProblemsCatches(t *testing.T) {
	src := []byte("x = f(a)\n")
	f, _ := ParseFile("t.py", src)
	call := f.Body[0].(*AssignStmt).Value.(*CallExpr)
	call.Args[0].Value.(*Ident).Pos.End.Offset = 9 // past the call's ")"
	call.Args[0].Value.(*Ident).Pos.End.Col = 10
	if len(spanProblems(f, src, true)) == 0 {
		t.Error("a child span past its parent went unnoticed")
	}
	f, _ = ParseFile("t.py", src)
	f.Body[0].(*AssignStmt).Targets[0].(*Ident).Pos.Start.Col = 2
	if len(spanProblems(f, src, true)) == 0 {
		t.Error("a column that disagrees with its offset went unnoticed")
	}
}

func BenchmarkParseTestdata(b *testing.B) {
	var srcs [][]byte
	lines := 0
	for _, name := range testdataFiles(b) {
		src, _ := os.ReadFile(name)
		srcs = append(srcs, src)
		lines += strings.Count(string(src), "\n")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range srcs {
			if _, errs := ParseFile("b.py", src); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
