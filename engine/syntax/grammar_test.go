package syntax

import (
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var productionStart = regexp.MustCompile(`^([A-Za-z_]+):\s`)

// codeProductions collects the grammar productions written above the parseX
// methods of this package: the leading lines of each doc comment that start
// with "name:" or continue one with "|". It also reports parseX methods
// without a production.
func codeProductions(t *testing.T) (prods map[string]string, missing []string) {
	files, _ := filepath.Glob("*.go")
	fset := gotoken.NewFileSet()
	prods = map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, goparser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "parse") {
				continue
			}
			found := false
			if fn.Doc != nil {
				found = collect(fn.Doc.Text(), prods, t)
			}
			if !found {
				missing = append(missing, fn.Name.Name)
			}
		}
	}
	return prods, missing
}

// collect adds the productions at the top of a comment to prods and reports
// whether there was any.
func collect(text string, prods map[string]string, t *testing.T) bool {
	var cur string
	n := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := productionStart.FindStringSubmatch(line); m != nil {
			cur = m[1]
			if _, dup := prods[cur]; dup {
				t.Errorf("production %s is written twice", cur)
			}
			prods[cur] = strings.TrimSpace(line[len(m[0]):])
			n++
			continue
		}
		if strings.HasPrefix(line, "|") && cur != "" {
			prods[cur] += " " + line
			continue
		}
		break
	}
	for k, v := range prods {
		prods[k] = strings.Join(strings.Fields(v), " ")
	}
	return n > 0
}

// fileProductions reads grammar.txt: '#' comments, a production per
// unindented "name: ..." line, indented lines continuing it.
func fileProductions(t *testing.T) map[string]string {
	data, err := os.ReadFile("grammar.txt")
	if err != nil {
		t.Fatal(err)
	}
	prods := map[string]string{}
	var cur string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if cur == "" {
				t.Fatalf("grammar.txt: continuation line before any production: %q", line)
			}
			prods[cur] += " " + strings.TrimSpace(line)
			continue
		}
		m := productionStart.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("grammar.txt: not a production: %q", line)
		}
		cur = m[1]
		if _, dup := prods[cur]; dup {
			t.Errorf("grammar.txt: production %s is written twice", cur)
		}
		prods[cur] = line[len(m[0]):]
	}
	for k, v := range prods {
		prods[k] = strings.Join(strings.Fields(v), " ")
	}
	return prods
}

// TestGrammarInSync checks that every parseX method carries its production
// and that grammar.txt holds exactly the productions the code states.
func TestGrammarInSync(t *testing.T) {
	code, missing := codeProductions(t)
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("parse methods without a production comment: %s", strings.Join(missing, ", "))
	}
	file := fileProductions(t)
	for name, rhs := range code {
		got, ok := file[name]
		switch {
		case !ok:
			t.Errorf("grammar.txt lacks %s: %s", name, rhs)
		case got != rhs:
			t.Errorf("%s differs:\n code:        %s\n grammar.txt: %s", name, rhs, got)
		}
	}
	for name := range file {
		if _, ok := code[name]; !ok {
			t.Errorf("grammar.txt has %s, which no parse method states", name)
		}
	}
}
