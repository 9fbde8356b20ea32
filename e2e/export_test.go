package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestExportButton: a runnable cell's Export button asks the server for
// the PyPTO script of the kernel and says what it saved.
func TestExportButton(t *testing.T) {
	s, tb := newSession(t)
	tb.navigate(fmt.Sprintf("%s/step/%d", s.base, 8))
	waitFor[bool](tb, "an Export button", `!!document.querySelector('[data-test=export]')`, summary)
	tb.do("click Export", chromedp.Click(chromedp.JSPath(`document.querySelector("[data-test=export]")`)))
	note := waitFor[string](tb, "the export's note", `(() => { const t = document.querySelector('[data-test=export-note]')?.textContent ?? ''; return /exporting/.test(t) ? '' : t; })()`, summary)
	if !strings.Contains(note, "exported 08_allreduce_mesh") || !strings.Contains(note, "_pypto.py") {
		t.Errorf("the note says %q, want the saved script's name", note)
	}
}
