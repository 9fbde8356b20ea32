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

// TestRenderHighlights: a prose code fence is highlighted with chroma
// classes, not inline styles, and the stylesheet has those classes.
func TestRenderHighlights(t *testing.T) {
	h, err := renderLesson("# T\n\n```python\ndef f(x):\n    return x + 1\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, `class="chroma"`) || !strings.Contains(h, `<span class="k">def</span>`) || strings.Contains(h, "style=") {
		t.Errorf("not highlighted with classes:\n%s", h)
	}
	var css strings.Builder
	if err := ChromaCSS(&css); err != nil || !strings.Contains(css.String(), ".chroma .k {") {
		t.Errorf("chroma.css lacks .chroma .k: %v\n%.300s", err, css.String())
	}
}

// TestHints: every lesson's Hints section yields its list items as HTML,
// in order.
func TestHints(t *testing.T) {
	ls, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		hints, err := l.Hints()
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if i := strings.Index(l.Body, "\n## Hints\n"); i >= 0 {
			section := l.Body[i+len("\n## Hints\n"):]
			if j := strings.Index(section, "\n## "); j >= 0 {
				section = section[:j]
			}
			for _, line := range strings.Split(section, "\n") {
				if len(line) > 2 && line[0] >= '1' && line[0] <= '9' && strings.Contains(line[:3], ". ") {
					want++
				}
			}
		}
		if len(hints) != want || want == 0 {
			t.Errorf("%s: %d hints, want %d", l.File, len(hints), want)
		}
		for _, h := range hints {
			if strings.Contains(h, "<li>") || strings.Contains(h, "<ol>") || h == "" {
				t.Errorf("%s: hint %q", l.File, h)
			}
		}
	}
	h, err := Lesson{File: "x.md", Body: "# T\n\n## Hints\n\n1. Use `pld.system.wait` *now*.\n2. Then <b>this</b>.\n"}.Hints()
	if err != nil || len(h) != 2 || h[0] != "Use <code>pld.system.wait</code> <em>now</em>." || strings.Contains(h[1], "<b>") {
		t.Errorf("hints = %q, %v", h, err)
	}
}

// TestRenderFigures: a figure macro renders the engine's value from
// figures.txt, as inline code when asked; a macro without a value is an
// error, not a blank.
func TestRenderFigures(t *testing.T) {
	values, err := FigureValues()
	if err != nil {
		t.Fatal(err)
	}
	f := Figure{Kernel: "08_allreduce_mesh_bug", Args: "--ranks 4 --schedules 20 --no-races", Field: "failing_seeds"}
	v, ok := values[f.Key()]
	if !ok {
		t.Fatalf("figures.txt has no %s", f.Key())
	}
	h, err := renderLesson("seeds {{fig kernel=08_allreduce_mesh_bug args=\"--ranks 4  --schedules 20 --no-races\" field=failing_seeds}} fail; `{{fig x}}` stays code")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, `">`+v+`</span> fail`) || !strings.Contains(h, "<code>{{fig x}}</code>") {
		t.Errorf("got %s, want the value %q in a span and the code span untouched", h, v)
	}
	h, err = renderLesson("{{fig kernel=08_allreduce_mesh_bug args=\"--ranks 4 --schedule adversarial\" field=race.what code}}")
	if err != nil || !strings.Contains(h, `<code class="fig"`) {
		t.Errorf("code figure: %v %s", err, h)
	}
	if _, err := renderLesson("{{fig kernel=nope field=status}}"); err == nil || !strings.Contains(err.Error(), "no value in figures.txt") {
		t.Errorf("a figure without a value rendered: %v", err)
	}
	if _, err := ParseFigure(`kernel=a field=b colour=red`); err == nil {
		t.Error("an unknown key parsed")
	}
}
