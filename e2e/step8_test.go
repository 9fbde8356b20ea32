package e2e

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// meshKernel is step 8's solution, the mesh all-reduce.
const meshKernel = "08_allreduce_mesh"

// stepEightRunCell opens step 8 and returns its run cell (on the
// learner's working copy) once the cell's editor is drawn.
func stepEightRunCell(s *site, tb *tab) cell {
	tb.t.Helper()
	tb.navigate(s.base + "/step/8")
	c := findCell(tb, 8, "run", meshKernel)
	waitFor[bool](tb, "the run cell's editor", "!!"+c.q(".cm-editor"), c.state())
	return c
}

// runMesh opens /step/8 in tb, runs the first run cell of the mesh
// all-reduce at ranks ranks, and checks what issue 7 asks of it: the lanes
// show ranks lanes with events and notify→wait arrows, and every rank's
// output passes the step's check. With shots set it saves step-page.png
// (before the run) and swimlanes.png (after) there.
func runMesh(t *testing.T, s *site, tb *tab, ranks int, shots string) cell {
	t.Helper()
	c := stepEightRunCell(s, tb)
	// The run cell acts on the learner's working copy, which starts as the
	// starter: put the finished kernel in, as a learner who solved it.
	c.pasteKernel(s, meshKernel)
	if shots != "" {
		tb.viewportShot(shots, "step-page.png")
	}
	c.setRanks(ranks)
	if st := c.run(); st != "done" {
		t.Fatalf("run of %s at %d ranks: data-state=%s, want done; %s", meshKernel, ranks, st, eval[string](tb, "state", c.state()))
	}

	c.showView("lanes")
	// Drawing may trail the run's end: wait for the first events and arrows.
	waitFor[bool](tb, "lanes with events and arrows",
		fmt.Sprintf(`(() => { const l = %s; return +l.dataset.events > 0 && +l.dataset.arrows > 0; })()`, c.q("[data-test=lanes]")),
		c.q("[data-test=lanes]")+"?.outerHTML.slice(0, 300)")
	if got := c.intAttr("[data-test=lanes]", "data-ranks"); got != ranks {
		t.Errorf("lanes data-ranks = %d, want %d", got, ranks)
	}
	events := c.intAttr("[data-test=lanes]", "data-events")
	arrows := c.intAttr("[data-test=lanes]", "data-arrows")
	t.Logf("lanes: %d ranks, %d events, %d arrows", ranks, events, arrows)
	if shots != "" {
		c.scrollTo()
		tb.elementShot(shots, "swimlanes.png", c.q("[data-test=lanes]"))
	}

	c.showView("outputs")
	checkRanks(t, c, ranks)
	return c
}

// checkRanks asserts that the cell's outputs view shows a passing
// [data-test=rank-check] for every rank 0..ranks-1 and none for other ranks,
// and a passing overall [data-test=check-verdict].
func checkRanks(t *testing.T, c cell, ranks int) {
	t.Helper()
	type rankCheck struct {
		Rank string `json:"rank"`
		Pass string `json:"pass"`
	}
	checks := eval[[]rankCheck](c.tb, "read the rank checks",
		fmt.Sprintf(`[...%s.querySelectorAll('[data-test=rank-check]')].map(e => ({rank: e.dataset.rank ?? '', pass: e.dataset.pass ?? ''}))`, c.js()))
	seen := map[int]bool{}
	for _, rc := range checks {
		r, err := strconv.Atoi(rc.Rank)
		if err != nil || r < 0 || r >= ranks {
			t.Errorf("rank-check with data-rank=%q, want 0..%d", rc.Rank, ranks-1)
			continue
		}
		seen[r] = true
		if rc.Pass != "true" {
			t.Errorf("rank %d: rank-check data-pass=%q, want true", r, rc.Pass)
		}
	}
	for r := range ranks {
		if !seen[r] {
			t.Errorf("rank %d: no [data-test=rank-check][data-rank=%d] (got %d checks: %v)", r, r, len(checks), checks)
		}
	}
	if v := c.attr("[data-test=check-verdict]", "data-pass"); v != "true" {
		t.Errorf("[data-test=check-verdict] data-pass=%q, want true", v)
	}
}

// TestStepEightRun runs step 8's mesh all-reduce at 4 ranks from its
// notebook cell and checks the lanes and the per-rank verdicts.
func TestStepEightRun(t *testing.T) {
	s, tb := newSession(t)
	runMesh(t, s, tb, 4, shotDir(t))
}

// removeBarrier deletes the barrier of the mesh kernel: every for loop
// whose body calls pld.system.notify or pld.system.wait, the comment line
// right above the first of them, and a blank line the removal doubles. It returns the edited code and the
// number of loops removed. The kernel stays a valid program: the loops are
// whole statements of the kernel body, which keeps its other statements.
func removeBarrier(code string) (string, int) {
	lines := strings.Split(code, "\n")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }
	var out []string
	removed := 0
	for i := 0; i < len(lines); {
		line := lines[i]
		if !strings.HasPrefix(strings.TrimSpace(line), "for ") {
			out = append(out, line)
			i++
			continue
		}
		// The loop's block: the lines after it that are blank or indented
		// deeper, without the blank lines at its end.
		end := i + 1
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if indent(lines[j]) <= indent(line) {
				break
			}
			end = j + 1
		}
		body := strings.Join(lines[i:end], "\n")
		if !strings.Contains(body, "pld.system.notify(") && !strings.Contains(body, "pld.system.wait(") {
			out = append(out, line)
			i++
			continue
		}
		if removed == 0 && len(out) > 0 && strings.HasPrefix(strings.TrimSpace(out[len(out)-1]), "#") {
			out = out[:len(out)-1]
		}
		removed++
		i = end
		// Keep one blank line where the loop was, not two.
		if i < len(lines) && strings.TrimSpace(lines[i]) == "" && len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			i++
		}
	}
	return strings.Join(out, "\n"), removed
}

// withoutBarrier is removeBarrier for a test: the mesh kernel's barrier is
// its two signal loops, a notify loop and a wait loop, and nothing of
// pld.system may remain once they are gone.
func withoutBarrier(t *testing.T, code string) string {
	t.Helper()
	edited, loops := removeBarrier(code)
	if loops != 2 {
		t.Fatalf("removed %d barrier loops from the mesh kernel, want 2 (notify and wait)", loops)
	}
	if strings.Contains(edited, "pld.system.") {
		t.Fatal("edited code still calls pld.system")
	}
	return edited
}

// lineOf returns the 1-based number of the only line of code containing
// sub, or fails the test.
func lineOf(t *testing.T, code, sub string) int {
	t.Helper()
	n := 0
	for i, l := range strings.Split(code, "\n") {
		if strings.Contains(l, sub) {
			if n != 0 {
				t.Fatalf("%q is on lines %d and %d of the edited code; want one", sub, n, i+1)
			}
			n = i + 1
		}
	}
	if n == 0 {
		t.Fatalf("%q is not in the edited code", sub)
	}
	return n
}

// TestRaceExplained deletes the barrier of step 8's kernel in the editor,
// runs it at 4 ranks, and checks that the explain view reports the race
// between the staging store and the remote read, and that the editor marks
// both lines.
func TestRaceExplained(t *testing.T) {
	s, tb := newSession(t)
	c := stepEightRunCell(s, tb)
	c.pasteKernel(s, meshKernel)

	code := c.getCode()
	if !strings.Contains(code, "pld.system.wait(") {
		t.Fatalf("getCode(%d) has no pld.system.wait; is it the mesh kernel? It begins %q", c.i, firstLines(code, 3))
	}
	edited := withoutBarrier(t, code)
	storeLine := lineOf(t, edited, "part = pl.store(")
	loadLine := lineOf(t, edited, "pld.tile.remote_load(")
	c.setCode(edited)
	if got := c.getCode(); got != edited {
		t.Fatalf("getCode after setCode differs from the text set (%d vs %d bytes)", len(got), len(edited))
	}

	c.setRanks(4)
	// API.md lists no data-state for a run that ends in a race: it is
	// finished (done) but did not pass, so failed is accepted too.
	st := c.run()
	t.Logf("race run ended with data-state=%s", st)

	c.showView("explain")
	waitFor[bool](tb, "a [data-test=race] item", "!!"+c.q("[data-test=race]"), c.q("[data-test=explain]")+"?.innerText")
	type race struct {
		A string `json:"a"`
		B string `json:"b"`
	}
	races := eval[[]race](tb, "read the races",
		fmt.Sprintf(`[...%s.querySelectorAll('[data-test=race]')].map(e => ({a: e.dataset.lineA ?? '', b: e.dataset.lineB ?? ''}))`, c.js()))
	want := []string{strconv.Itoa(storeLine), strconv.Itoa(loadLine)}
	found := false
	for _, r := range races {
		got := []string{r.A, r.B}
		slices.Sort(got)
		w := slices.Clone(want)
		slices.Sort(w)
		if slices.Equal(got, w) {
			found = true
		}
	}
	t.Logf("races shown: %v; want lines %d (store) and %d (remote_load)", races, storeLine, loadLine)
	if !found {
		t.Errorf("no [data-test=race] with data-line-a/data-line-b = lines %d and %d; got %v", storeLine, loadLine, races)
	}

	// The marked lines, by their text. CodeMirror renders only the lines in
	// (or near) its scroller's view, and the editor scrolls inside a fixed
	// height, so scroll each raced line into view before looking for it.
	srcLines := strings.Split(edited, "\n")
	for _, n := range []int{storeLine, loadLine} {
		text := strings.TrimSpace(srcLines[n-1])
		scrollEditor(c, n)
		waitFor[bool](tb, fmt.Sprintf("line %d (%q) marked .cm-pld-race-line", n, text),
			fmt.Sprintf(`[...%s.querySelectorAll('.cm-pld-race-line')].some(e => e.textContent.trim() === %s)`, c.js(), jsString(text)),
			fmt.Sprintf(`'marked: ' + JSON.stringify([...%s.querySelectorAll('.cm-pld-race-line')].map(e => e.textContent))`, c.js()))
	}

	c.scrollTo()
	scrollEditor(c, min(storeLine, loadLine))
	tb.viewportShot(shotDir(t), "race.png")
}

// scrollEditor scrolls the cell's editor so that line n (1-based) is a few
// lines below the top of its view. It reads the line height from a rendered
// .cm-line, since CodeMirror draws every line at the same height here (no
// wrapping in a code editor of this width).
func scrollEditor(c cell, n int) {
	c.tb.t.Helper()
	eval[bool](c.tb, fmt.Sprintf("scroll the editor to line %d", n), fmt.Sprintf(`(() => {
		const ed = %s, line = ed.querySelector('.cm-line');
		ed.querySelector('.cm-scroller').scrollTop = Math.max(0, (%d - 4) * line.getBoundingClientRect().height);
		return true;
	})()`, c.q(".cm-editor"), n))
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
