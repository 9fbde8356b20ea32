package tutorials

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
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
// Everything else is plain CommonMark plus tables. Raw HTML in a lesson is
// not passed through (goldmark's default), so a lesson cannot inject markup.
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

func renderLesson(body string) (string, error) {
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(cellRenderer{}, 100)),
		),
	)
	var buf bytes.Buffer
	if err := md.Convert([]byte(body), &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// cellRenderer renders fenced code blocks: `cell` fences become
// placeholders; any other fence (lessons have none, the tests hold that)
// renders as an ordinary code block.
type cellRenderer struct{}

func (cellRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFence)
}

func renderFence(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
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
		return ast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString("<pre><code>")
	lines := fence.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(src))))
	}
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}
