package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"pldworkbench/engine/lower"
)

// TestIRPane lowers step 11's reveal cell and checks the Compiler Explorer
// style pane: source and IR side by side, IR lines tinted by their origin;
// hovering an IR line from the allreduce marks its source line (and only
// IR lines of that origin); the pass picker lists every pass of the
// engine's table, and lowering after "checked" shows the call unlowered.
func TestIRPane(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/11")
	c := findCell(tb, 11, "ir", "11_allreduce_reveal")
	waitFor[bool](tb, "the ir cell's editor", "!!"+c.q(".cm-editor"), c.state())
	c.pasteKernel(s, "11_allreduce_reveal")

	// The picker: "final" and then what GET /api/passes lists, which is
	// "checked" and lower.Passes in order.
	want := []string{"", "checked"}
	for _, p := range lower.Passes {
		want = append(want, p.Name)
	}
	waitFor[bool](tb, "the pass list", c.q("[data-test=after]")+".dataset.loaded > 0", c.q("[data-test=after]")+".outerHTML")
	got := eval[[]string](tb, "read the pass picker", fmt.Sprintf(`[...%s.options].map(o => o.value)`, c.q("[data-test=after]")))
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("pass picker offers %q, want %q", got, want)
	}
	// The CLI's list says the same passes.
	if out, err := exec.Command("go", "run", "../cmd/workbench", "ir", "--passes").Output(); err == nil {
		for _, p := range want[1:] {
			if !strings.Contains(string(out), p) {
				t.Errorf("workbench ir --passes does not list %q, which the picker offers", p)
			}
		}
	} else {
		t.Errorf("workbench ir --passes: %v", err)
	}

	if st := c.run(); st != "done" {
		t.Fatalf("lower: data-state=%s; %s", st, eval[string](tb, "state", c.state()))
	}
	src := c.q("[data-test=ir-source]")
	irl := c.q("[data-test=ir-lines]")
	waitFor[bool](tb, "source and IR", fmt.Sprintf("!!%s && %s.children.length > 10", src, irl), c.q("[data-test=ir]")+"?.innerText.slice(0, 200)")
	// Side by side: the IR column starts right of the source column, at the same height.
	type box struct{ L, T, R float64 }
	sb := eval[box](tb, "source box", fmt.Sprintf(`(() => { const r = %s.getBoundingClientRect(); return {L: r.left, T: r.top, R: r.right}; })()`, src))
	ib := eval[box](tb, "ir box", fmt.Sprintf(`(() => { const r = %s.getBoundingClientRect(); return {L: r.left, T: r.top, R: r.right}; })()`, irl))
	if !(ib.L >= sb.R-1) || ib.T != sb.T {
		t.Errorf("source at %+v and IR at %+v are not side by side", sb, ib)
	}

	// The first IR line the allreduce produced, and its source line.
	type line struct {
		Index, Src int
		Text       string
	}
	l := eval[line](tb, "an allreduce IR line", fmt.Sprintf(`(() => { const rows = [...%s.children];
		const i = rows.findIndex(r => r.textContent.includes('# from pld.tensor.allreduce (line '));
		return {Index: i, Src: +rows[i].dataset.src, Text: rows[i].textContent}; })()`, irl))
	if l.Index < 0 || !strings.Contains(l.Text, fmt.Sprintf("(line %d)", l.Src)) {
		t.Fatalf("IR line %d %q maps to source line %d", l.Index, l.Text, l.Src)
	}
	tinted := eval[bool](tb, "tints", fmt.Sprintf(`(() => { const r = %s.children[%d], s = %s.children[%d];
		return !!r.style.background && r.style.background === s.style.background; })()`, irl, l.Index, src, l.Src-1))
	if !tinted {
		t.Errorf("IR line %d and source line %d do not share a tint", l.Index+1, l.Src)
	}
	c.scrollTo()
	hover(tb, "the IR line", fmt.Sprintf("%s.children[%d]", irl, l.Index))
	hot := waitFor[[]int](tb, "the marked source line", fmt.Sprintf(`(() => { const h = [...%s.querySelectorAll('.irp-line.hot')].map(r => +r.dataset.line); return h.length ? h : null; })()`, src), c.q("[data-test=ir]")+".dataset.hot")
	if len(hot) != 1 || hot[0] != l.Src {
		t.Errorf("hovering IR line %d marked source lines %v, want [%d]", l.Index+1, hot, l.Src)
	}
	others := eval[int](tb, "hot IR lines of another origin", fmt.Sprintf(`[...%s.querySelectorAll('.irp-line.hot')].filter(r => +r.dataset.src !== %d).length`, irl, l.Src))
	if others != 0 {
		t.Errorf("%d IR lines of other origins are lit", others)
	}
	tb.elementShot(shotDir(t), "ir-pane.png", c.q("[data-test=ir]"))

	// Hover the source line back: its IR lines light up.
	hover(tb, "the source line", fmt.Sprintf("%s.children[%d]", src, l.Src-1))
	n := waitFor[int](tb, "lit IR lines", fmt.Sprintf(`%s.querySelectorAll('.irp-line.hot').length`, irl), "")
	all := eval[int](tb, "IR lines of that origin", fmt.Sprintf(`[...%s.children].filter(r => +r.dataset.src === %d).length`, irl, l.Src))
	if n != all || n < 2 {
		t.Errorf("hovering source line %d lit %d IR lines, %d come from it", l.Src, n, all)
	}

	// After "checked" the allreduce is one call, not its lowering.
	tb.do("pick checked", chromedp.SetValue(chromedp.JSPath(c.q("[data-test=after]")), "checked"))
	if st := c.run(); st != "done" {
		t.Fatalf("lower after checked: data-state=%s", st)
	}
	text := waitFor[string](tb, "IR after checked", irl+"?.innerText", "")
	if strings.Contains(text, "# from pld.tensor.allreduce") || !strings.Contains(text, "allreduce") {
		t.Errorf("IR after checked still shows the lowering, or no allreduce call: %.300q", text)
	}
}

// hover moves the mouse to the middle of the element elemJS yields, in
// view: the page gets real mouseover events.
func hover(tb *tab, what, elemJS string) {
	tb.t.Helper()
	tb.do("scroll to "+what, chromedp.ScrollIntoView(chromedp.JSPath(elemJS)))
	type pt struct{ X, Y float64 }
	p := eval[pt](tb, "where is "+what, fmt.Sprintf(`(() => { const r = %s.getBoundingClientRect(); return {X: r.left + Math.min(r.width / 2, 120), Y: r.top + r.height / 2}; })()`, elemJS))
	tb.do("hover "+what, chromedp.MouseEvent(chromedp.MouseMoved, p.X, p.Y))
}
