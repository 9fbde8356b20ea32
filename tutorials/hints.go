package tutorials

import (
	"bytes"
	"fmt"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Hints returns the items of the lesson's "## Hints" list, in order, each
// rendered to HTML by the same goldmark configuration as HTML (inline code,
// emphasis and links keep their markup; a tight list item has no <p>
// around it). A lesson without a Hints section has none; a Hints heading
// not followed by a list is an error, so a broken section cannot hide.
func (l Lesson) Hints() ([]string, error) {
	md := newMarkdown()
	src := []byte(l.Body)
	doc := md.Parser().Parse(text.NewReader(src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level != 2 || string(headingText(h, src)) != "Hints" {
			continue
		}
		list, ok := h.NextSibling().(*ast.List)
		if !ok {
			return nil, fmt.Errorf("%s: the Hints heading is not followed by a list", l.File)
		}
		var out []string
		for item := list.FirstChild(); item != nil; item = item.NextSibling() {
			var buf bytes.Buffer
			for c := item.FirstChild(); c != nil; c = c.NextSibling() {
				if err := md.Renderer().Render(&buf, src, c); err != nil {
					return nil, fmt.Errorf("%s: rendering a hint: %v", l.File, err)
				}
			}
			out = append(out, string(bytes.TrimSpace(buf.Bytes())))
		}
		return out, nil
	}
	return nil, nil
}

// headingText concatenates the text segments of a heading.
func headingText(h *ast.Heading, src []byte) []byte {
	var b []byte
	for c := h.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b = append(b, t.Segment.Value(src)...)
		}
	}
	return b
}
