package tutorials

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"
	"sync"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// The lessons are rendered once, by goldmark with GitHub tables, and kept:
// the text is embedded, so it cannot change while the process runs.
var (
	renderOnce sync.Once
	rendered   map[string]string
	renderErr  error
)

// HTML returns the lesson rendered to HTML. A cell fence becomes an empty
// placeholder the browser fills with a runnable cell:
//
//	<div class="cell" data-action="run" data-kernel="kernels/01_hello_rank.py" data-args="--ranks 2"></div>
//
// Everything else is plain CommonMark plus tables. A prose code fence (the
// lessons have none today; README.md keeps code in cells) is highlighted by
// chroma with CSS classes, not inline styles, so one stylesheet (ChromaCSS)
// themes every block. Raw HTML in a lesson is not passed through
// (goldmark's default), so a lesson cannot inject markup.
func (l Lesson) HTML() (string, error) {
	renderOnce.Do(renderAll)
	if renderErr != nil {
		return "", renderErr
	}
	if h, ok := rendered[l.File]; ok {
		return h, nil
	}
	return renderLesson(l.Body)
}

func renderAll() {
	ls, err := Lessons()
	if err != nil {
		renderErr = err
		return
	}
	rendered = make(map[string]string, len(ls))
	for _, l := range ls {
		h, err := renderLesson(l.Body)
		if err != nil {
			renderErr = fmt.Errorf("%s: %w", l.File, err)
			return
		}
		rendered[l.File] = h
	}
}

// ChromaStyle is the chroma style whose classes ChromaCSS writes.
const ChromaStyle = "github"

// highlightOptions configure the highlighter of prose code fences: chroma
// classes (class="chroma", "k", "nf", ...) rather than inline styles.
func highlightOptions() []highlighting.Option {
	return []highlighting.Option{
		highlighting.WithStyle(ChromaStyle),
		highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
	}
}

// ChromaCSS writes the stylesheet for the classes of highlighted code.
func ChromaCSS(w io.Writer) error {
	style := styles.Get(ChromaStyle)
	return chromahtml.New(chromahtml.WithClasses(true)).WriteCSS(w, style)
}

func newMarkdown() goldmark.Markdown {
	values, err := FigureValues()
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, figureExtension{values, err}),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(newCellRenderer(), 100)),
		),
	)
}

func renderLesson(body string) (string, error) {
	var buf bytes.Buffer
	if err := newMarkdown().Convert([]byte(body), &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// cellRenderer renders fenced code blocks: `cell` fences become
// placeholders; any other fence goes to goldmark-highlighting's renderer,
// captured when the cell renderer is made (both render the same node kind,
// and goldmark keeps only one function per kind).
type cellRenderer struct {
	code renderer.NodeRendererFunc
}

func newCellRenderer() cellRenderer {
	var c capture
	highlighting.NewHTMLRenderer(highlightOptions()...).RegisterFuncs(&c)
	return cellRenderer{code: c.fn}
}

// capture keeps the fenced-code-block function a node renderer registers.
type capture struct{ fn renderer.NodeRendererFunc }

func (c *capture) Register(k ast.NodeKind, fn renderer.NodeRendererFunc) {
	if k == ast.KindFencedCodeBlock {
		c.fn = fn
	}
}

func (r cellRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.renderFence)
}

func (r cellRenderer) renderFence(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	fence := n.(*ast.FencedCodeBlock)
	info := ""
	if fence.Info != nil {
		info = string(fence.Info.Segment.Value(src))
	}
	fields := strings.Fields(info)
	if len(fields) >= 3 && fields[0] == "cell" {
		fmt.Fprintf(w, "<div class=\"cell\" data-action=\"%s\" data-kernel=\"%s\" data-args=\"%s\"></div>\n",
			html.EscapeString(fields[1]), html.EscapeString(fields[2]), html.EscapeString(strings.Join(fields[3:], " ")))
		if fields[1] == "predict" {
			// The answer is rendered now and hidden; the page shows it
			// once the learner has run the cell.
			var body strings.Builder
			for i := 0; i < fence.Lines().Len(); i++ {
				seg := fence.Lines().At(i)
				body.Write(seg.Value(src))
			}
			answer, err := renderLesson(body.String())
			if err != nil {
				return ast.WalkStop, err
			}
			fmt.Fprintf(w, "<div class=\"predict-answer\" data-test=\"predict-answer\" hidden>%s</div>\n", answer)
		}
		// Every code cell points at the operation reference and the
		// glossary (issue 14); the page turns the .md links into routes.
		fmt.Fprint(w, "<p class=\"cell-ref\"><a href=\"reference.md\">The pl/pld operations</a> · <a href=\"glossary.md\">glossary</a></p>\n")
		return ast.WalkSkipChildren, nil
	}
	if _, err := r.code(w, src, n, entering); err != nil {
		return ast.WalkStop, err
	}
	return ast.WalkSkipChildren, nil
}
