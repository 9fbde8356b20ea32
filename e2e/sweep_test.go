package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestSweepCell runs step 19's sweep cell (--ranks 8) and checks it against
// `workbench sweep 19 --ranks 8`: the chart draws a line per variant (mesh
// and ring), the crossover sentence is the CLI's, the mark sits at the
// CLI's crossover size, and the table has the CLI's rows with its numbers.
func TestSweepCell(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(s.base + "/step/19")
	c := findCell(tb, 19, "sweep", "19_mesh_or_ring")
	waitFor[bool](tb, "the sweep cell's editor", "!!"+c.q(".cm-editor"), c.state())
	c.pasteKernel(s, "19_mesh_or_ring")
	c.run()
	waitFor[bool](tb, "the sweep chart", "!!"+c.q("[data-test=sweep-chart]"), c.state()+" + ' ' + "+c.q(".rv-status")+"?.textContent")

	text, err := exec.Command("go", "run", "../cmd/workbench", "sweep", "19", "--ranks", "8").Output()
	if len(text) == 0 {
		t.Fatalf("workbench sweep 19 --ranks 8: %v", err)
	}
	m := regexp.MustCompile(`(?m)^# (8 ranks: .*)$`).FindSubmatch(text)
	if m == nil {
		t.Fatalf("workbench sweep printed no crossover line:\n%s", text)
	}
	cross := eval[string](tb, "crossover", c.q("[data-test=sweep-crossover]")+".textContent")
	t.Logf("page: %q; CLI: %q", cross, m[1])
	if cross != string(m[1]) {
		t.Errorf("the page says %q, workbench sweep 19 --ranks 8 says %q", cross, m[1])
	}

	js, _ := exec.Command("go", "run", "../cmd/workbench", "sweep", "19", "--ranks", "8", "--json").Output()
	var res struct {
		Rows []struct {
			Variant string  `json:"variant"`
			Bytes   int64   `json:"bytes"`
			BusBW   float64 `json:"busbw_gbs"`
			Status  string  `json:"status"`
		} `json:"rows"`
		Crossovers []struct {
			Ranks     int   `json:"ranks"`
			NearBytes int64 `json:"near_bytes"`
		} `json:"crossovers"`
	}
	if err := json.Unmarshal(js, &res); err != nil {
		t.Fatalf("workbench sweep --json: %v", err)
	}
	lines := eval[map[string]int](tb, "chart lines", fmt.Sprintf(`Object.fromEntries([...%s.querySelectorAll('[data-test=sweep-line]')].map(l => [l.dataset.variant, l.getAttribute('points').split(' ').length]))`, c.q("[data-test=sweep-chart]")))
	if lines["mesh"] < 2 || lines["ring"] < 2 || len(lines) != 2 {
		t.Errorf("chart lines %v, want mesh and ring with their points", lines)
	}
	marks := eval[[]int64](tb, "crossover marks", fmt.Sprintf(`[...%s.querySelectorAll('[data-test=sweep-cross-mark]')].map(l => +l.dataset.near)`, c.q("[data-test=sweep-chart]")))
	var want []int64
	for _, x := range res.Crossovers {
		if x.Ranks == 8 {
			want = append(want, x.NearBytes)
		}
	}
	if fmt.Sprint(marks) != fmt.Sprint(want) || len(want) == 0 {
		t.Errorf("crossover marks at %v, the CLI's crossovers at %v", marks, want)
	}
	// Every row the CLI measured is in the table with the same busbw.
	type row struct {
		Variant, Bytes, Busbw string
	}
	rows := eval[[]row](tb, "table rows", fmt.Sprintf(`[...%s.querySelectorAll('tbody tr')].map(r => ({Variant: r.dataset.variant, Bytes: r.dataset.bytes, Busbw: r.children[5]?.textContent || r.children[3].textContent}))`, c.q("[data-test=sweep-table]")))
	if len(rows) != len(res.Rows) {
		t.Fatalf("table has %d rows, the CLI %d", len(rows), len(res.Rows))
	}
	for i, r := range res.Rows {
		wantBW := fmt.Sprintf("%.2f", r.BusBW)
		if r.Status != "" {
			wantBW = r.Status
		}
		if rows[i].Variant != r.Variant || rows[i].Bytes != fmt.Sprint(r.Bytes) || !strings.HasPrefix(rows[i].Busbw, wantBW) {
			t.Errorf("row %d: page %+v, CLI %s %d %s", i, rows[i], r.Variant, r.Bytes, wantBW)
		}
	}
	c.scrollTo()
	tb.elementShot(shotDir(t), "sweep.png", c.q("[data-test=sweep]"))
}
