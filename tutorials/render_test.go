package tutorials

import (
	"strings"
	"testing"
)

// TestRenderLessons renders every lesson and checks the HTML a browser will
// get: one placeholder per cell, in order, no raw code blocks, tables
// rendered, and no markup from the lesson text passed through.
func TestRenderLessons(t *testing.T) {
	ls, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) == 0 {
		t.Fatal("no lessons embedded")
	}
	for _, l := range ls {
		h, err := l.HTML()
		if err != nil {
			t.Fatalf("%s: %v", l.File, err)
		}
		if got := strings.Count(h, `<div class="cell"`); got != len(l.Cells) {
			t.Errorf("%s: %d cell placeholders, want %d", l.File, got, len(l.Cells))
		}
		rest := h
		for _, c := range l.Cells {
			want := `data-action="` + c.Action + `" data-kernel="` + c.Kernel + `"`
			i := strings.Index(rest, want)
			if i < 0 {
				t.Errorf("%s:%d: cell %s %s missing or out of order in the HTML", l.File, c.Line, c.Action, c.Kernel)
				break
			}
			rest = rest[i+len(want):]
		}
		if strings.Contains(h, "<pre>") {
			t.Errorf("%s: a code block reached the HTML; lessons show code through cells", l.File)
		}
		if !strings.Contains(h, "<h1>") {
			t.Errorf("%s: no title heading", l.File)
		}
		if strings.Contains(l.Body, "| ---") && !strings.Contains(h, "<table>") {
			t.Errorf("%s: a Markdown table did not render", l.File)
		}
	}
}

func TestRenderEscapes(t *testing.T) {
	h, err := renderLesson("# T\n\n<script>alert(1)</script>\n\n```cell run kernels/x.py --entry \"a<b\"\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, "<script>") {
		t.Errorf("raw HTML passed through:\n%s", h)
	}
	if !strings.Contains(h, `data-args="--entry &#34;a&lt;b&#34;"`) {
		t.Errorf("cell arguments not escaped:\n%s", h)
	}
}
