package tutorials

import (
	"bufio"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A figure is a number a lesson quotes about a run — the seeds that fail,
// the line a race names, the bytes moved, the simulated time, an error
// code — written as a macro instead of typed in:
//
//	{{fig kernel=08_allreduce_mesh_bug args="--ranks 4 --schedules 20" field=failing_seeds}}
//
// The keys are kernel (a kernel name, without .py), args (the command-line
// flags of `workbench run`, quoted when they hold spaces), field (what to
// quote; check.FigureFields lists them), edit (optional, "OLD=>NEW": run a
// copy of the kernel with that one change, which must match exactly once —
// how a pitfall table's row quotes the mistake it describes) and the bare
// word code (render the value as inline code, for quoted messages). The value comes from
// figures.txt, a table the engine writes (`go test ./tutorials/check -run
// TestFigures -update`) and a test recomputes and compares on every run,
// so an engine change that moves a figure fails a test instead of making
// a lesson silently wrong. A macro with no value in the table is a render
// error. The lessons' tutorials package imports nothing of the project
// (engine/layers_test.go), which is why the values arrive as a table.

// Figure is one figure macro.
type Figure struct {
	Kernel string // "08_allreduce_mesh_bug"
	Args   string // "--ranks 4 --schedules 20"
	Field  string // "failing_seeds"
	Edit   string // "" or "OLD=>NEW": the run is of a copy with that one change
	Code   bool   // render as <code>
}

// Key is the figure's identity in figures.txt: the macro with its keys in
// one order, without the presentation flag.
func (f Figure) Key() string {
	k := fmt.Sprintf("kernel=%s args=%q field=%s", f.Kernel, f.Args, f.Field)
	if f.Edit != "" {
		k += fmt.Sprintf(" edit=%q", f.Edit)
	}
	return k
}

// EditParts splits Edit into the text to replace and its replacement.
func (f Figure) EditParts() (old, new string, ok bool) {
	return strings.Cut(f.Edit, "=>")
}

// ArgList splits Args into flags and values as a shell would for words
// in single quotes: --entry 'build(4, "ring").run' is two words.
func (f Figure) ArgList() []string {
	var out []string
	var b strings.Builder
	in, word := false, false
	for _, r := range f.Args {
		switch {
		case r == '\'':
			in, word = !in, true
		case r == ' ' && !in:
			if word {
				out = append(out, b.String())
				b.Reset()
				word = false
			}
		default:
			b.WriteRune(r)
			word = true
		}
	}
	if word {
		out = append(out, b.String())
	}
	return out
}

// ParseFigure parses the inside of a macro, after "{{fig " and before "}}".
func ParseFigure(s string) (Figure, error) {
	var f Figure
	rest := strings.TrimSpace(s)
	for rest != "" {
		var word string
		key, after, hasEq := strings.Cut(rest, "=")
		if sp := strings.IndexByte(rest, ' '); !hasEq || (sp >= 0 && sp < len(key)) {
			word, rest, _ = strings.Cut(rest, " ")
			if word != "code" {
				return f, fmt.Errorf("figure: got %q, want key=value or code", word)
			}
			f.Code = true
			rest = strings.TrimSpace(rest)
			continue
		}
		var val string
		if strings.HasPrefix(after, `"`) {
			q, err := strconv.QuotedPrefix(after)
			if err != nil {
				return f, fmt.Errorf("figure: %s=%s: unterminated quote", key, after)
			}
			val, _ = strconv.Unquote(q)
			rest = after[len(q):]
		} else {
			val, rest, _ = strings.Cut(after, " ")
		}
		rest = strings.TrimSpace(rest)
		switch key {
		case "kernel":
			f.Kernel = val
		case "args":
			f.Args = strings.Join(strings.Fields(val), " ")
		case "field":
			f.Field = val
		case "edit":
			if !strings.Contains(val, "=>") {
				return f, fmt.Errorf("figure: edit=%q: want \"OLD=>NEW\"", val)
			}
			f.Edit = val
		default:
			return f, fmt.Errorf("figure: unknown key %q: want kernel, args, field, edit", key)
		}
	}
	if f.Kernel == "" || f.Field == "" {
		return f, fmt.Errorf("figure %q: want kernel= and field=", s)
	}
	return f, nil
}

// Figures lists the figure macros of the lesson, in order, with the line
// each is on.
func (l Lesson) Figures() ([]FigureAt, error) { return findFigures(l.File, l.Body) }

// FigureAt is a figure and where it is.
type FigureAt struct {
	Figure
	Line int // line in the body
}

func findFigures(file, body string) ([]FigureAt, error) {
	var out []FigureAt
	for i, line := range strings.Split(body, "\n") {
		for {
			j := strings.Index(line, "{{fig ")
			if j < 0 {
				break
			}
			k := strings.Index(line[j:], "}}")
			if k < 0 {
				return out, fmt.Errorf("%s: body line %d: a figure macro is not closed on its line", file, i+1)
			}
			f, err := ParseFigure(line[j+len("{{fig ") : j+k])
			if err != nil {
				return out, fmt.Errorf("%s: body line %d: %v", file, i+1, err)
			}
			out = append(out, FigureAt{f, i + 1})
			line = line[j+k+2:]
		}
	}
	return out, nil
}

//go:embed figures.txt
var figuresTxt string

// FigureValues parses figures.txt: "KEY<TAB>VALUE" per line.
func FigureValues() (map[string]string, error) { return parseFigureValues(figuresTxt) }

func parseFigureValues(src string) (map[string]string, error) {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(src))
	n := 0
	for sc.Scan() {
		n++
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		k, v, ok := strings.Cut(t, "\t")
		if !ok {
			return nil, fmt.Errorf("figures.txt:%d: want KEY<TAB>VALUE", n)
		}
		m[k] = v
	}
	return m, nil
}

// FormatFigureValues writes the table figures.txt holds, sorted by key.
func FormatFigureValues(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# Written by the engine: go test ./tutorials/check -run TestFigures -update. Do not edit.\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\t%s\n", k, m[k])
	}
	return b.String()
}

// figureNode is a figure macro in the inline AST.
type figureNode struct {
	ast.BaseInline
	fig Figure
}

var kindFigure = ast.NewNodeKind("Figure")

func (n *figureNode) Kind() ast.NodeKind { return kindFigure }

func (n *figureNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Key": n.fig.Key()}, nil)
}

// figureParser is the inline parser of "{{fig ...}}", triggered by '{'.
type figureParser struct{}

func (figureParser) Trigger() []byte { return []byte{'{'} }

func (figureParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	if !strings.HasPrefix(string(line), "{{fig ") {
		return nil
	}
	end := strings.Index(string(line), "}}")
	if end < 0 {
		return nil
	}
	f, err := ParseFigure(string(line[len("{{fig "):end]))
	if err != nil {
		return nil // left as text; findFigures reports it
	}
	block.Advance(end + 2)
	return &figureNode{fig: f}
}

// figureRenderer writes a figure's value from the table.
type figureRenderer struct {
	values map[string]string
	err    error // figures.txt did not parse
}

func (r figureRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindFigure, r.render)
}

func (r figureRenderer) render(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if r.err != nil {
		return ast.WalkStop, r.err
	}
	f := n.(*figureNode).fig
	v, ok := r.values[f.Key()]
	if !ok {
		return ast.WalkStop, fmt.Errorf("figure %s has no value in figures.txt (go test ./tutorials/check -run TestFigures -update)", f.Key())
	}
	if f.Field == "diagram" {
		fmt.Fprintf(w, `<img class="diagram" alt="%s" src="data:image/svg+xml;base64,%s">`,
			html.EscapeString(f.Kernel+" "+f.Args+", round by round, drawn from the emulator's trace"), base64.StdEncoding.EncodeToString([]byte(v)))
		return ast.WalkSkipChildren, nil
	}
	what := "workbench run kernels/" + f.Kernel + ".py " + f.Args
	if old, new, ok := f.EditParts(); ok {
		what += " (on a copy with " + old + " changed to " + new + ")"
	}
	title := html.EscapeString(what + " → " + f.Field)
	if f.Code {
		fmt.Fprintf(w, `<code class="fig" title="%s">%s</code>`, title, html.EscapeString(v))
	} else {
		fmt.Fprintf(w, `<span class="fig" title="%s">%s</span>`, title, html.EscapeString(v))
	}
	return ast.WalkSkipChildren, nil
}

// figureExtension adds figure macros to a goldmark configuration.
type figureExtension struct {
	values map[string]string
	err    error
}

func (e figureExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithInlineParsers(util.Prioritized(figureParser{}, 500)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(figureRenderer{e.values, e.err}, 500)))
}
