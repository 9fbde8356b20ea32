package tutorials

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// typedFigure matches what reads as a figure about a run: an error code, a
// number with a unit of bytes or time, a line number, a seed, a count of
// failing schedules, "N of M", a count of the stats line (notifies, waits,
// events, remote or local bytes).
var typedFigure = regexp.MustCompile(`\bE0\d{3}\b|\d[\d.,]*\s*(?:µs|ns|ms|bytes|KiB|MiB|GiB)\b|\blines? \d+(?:[–/-]\d+)?|\bseeds? \d+|\d+ (?:failing|failed)\b|\b\d+ of (?:the )?\d+\b|\b\d[\d,]* (?:notifies|waits|events|remote bytes|local bytes)\b`)

var figureMacro = regexp.MustCompile(`\{\{fig [^}]*\}\}`)

// TestNoTypedFigures renders every lesson's text and fails on a figure
// typed into it: a figure must come from a {{fig}} macro (computed by the
// engine, checked by tutorials/check's TestFigures) or be listed in
// typed-figures.txt with the reason it may stay typed. A listed figure
// that no longer appears is an error too, so the list only shrinks.
func TestNoTypedFigures(t *testing.T) {
	allowed := map[[2]string]string{}
	f, err := os.Open("typed-figures.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 || strings.TrimSpace(parts[2]) == "" {
			t.Fatalf("typed-figures.txt:%d: want FILE<TAB>FIGURE<TAB>REASON", n)
		}
		allowed[[2]string{parts[0], parts[1]}] = parts[2]
	}
	ls, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]string]bool{}
	for _, l := range ls {
		for i, line := range strings.Split(figureMacro.ReplaceAllString(l.Body, ""), "\n") {
			for _, m := range typedFigure.FindAllString(line, -1) {
				k := [2]string{l.File, m}
				seen[k] = true
				if _, ok := allowed[k]; !ok {
					t.Errorf("%s: body line %d: %q is typed in; quote it with {{fig kernel=… args=… field=…}} or list it in typed-figures.txt with a reason", l.File, i+1, m)
				}
			}
		}
	}
	for k := range allowed {
		if !seen[k] {
			t.Errorf("typed-figures.txt lists %s %q, which the lesson no longer has: remove the entry", k[0], k[1])
		}
	}
}
