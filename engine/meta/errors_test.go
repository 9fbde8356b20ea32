package meta

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// expectRE reads a `### CODE "regexp"` marker.
var expectRE = regexp.MustCompile(`###\s*(E\d{4})\s*"(.*)"\s*$`)

// TestErrorCases loads each case of testdata/errors.py as its own module
// (after the shared header) and checks its one diagnostic: code, line and
// message, plus a hint for the learner.
func TestErrorCases(t *testing.T) {
	data, err := os.ReadFile("testdata/errors.py")
	if err != nil {
		t.Fatal(err)
	}
	chunks := strings.Split(string(data), "\n---\n")
	header := chunks[0] + "\n"
	headerLines := strings.Count(header, "\n")
	for i, body := range chunks[1:] {
		t.Run(fmt.Sprintf("case%02d", i+1), func(t *testing.T) {
			src := header + body + "\n"
			wantLine, code, pattern := 0, "", ""
			for n, line := range strings.Split(body, "\n") {
				if mm := expectRE.FindStringSubmatch(line); mm != nil {
					wantLine, code, pattern = headerLines+n+1, mm[1], mm[2]
				}
			}
			if wantLine == 0 {
				t.Fatalf("case has no ### marker:\n%s", body)
			}
			d := loadErr(t, src, Options{})
			if d.Code != code || d.Span.Start.Line != wantLine || !regexp.MustCompile(pattern).MatchString(d.Msg) {
				t.Errorf("got %s at line %d: %q\nwant %s at line %d matching %q", d.Code, d.Span.Start.Line, d.Msg, code, wantLine, pattern)
			}
			if d.Span.File != "prog.py" {
				t.Errorf("span file %q, want prog.py", d.Span.File)
			}
			if d.Hint == "" {
				t.Errorf("%s has no hint", d.Code)
			}
		})
	}
}
