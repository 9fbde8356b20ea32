package limits

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the limits table in server/API.md and README.md")

// docs are the files that show the table; each must carry it exactly as
// Markdown renders Table, so a limit changed in code fails here until the
// docs say so too.
var docs = []string{"../../server/API.md", "../../README.md"}

func TestLimitsDocumented(t *testing.T) {
	want := BeginMarker + "\n" + Markdown() + EndMarker
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		i, j := strings.Index(s, BeginMarker), strings.Index(s, EndMarker)
		if i < 0 || j < i {
			t.Errorf("%s has no limits table between %q and %q", path, BeginMarker, EndMarker)
			continue
		}
		got := s[i : j+len(EndMarker)]
		if got == want {
			continue
		}
		if *update {
			if err := os.WriteFile(path, []byte(s[:i]+want+s[j+len(EndMarker):]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's limits table differs from engine/limits.Table; run go test ./engine/limits -update", path)
	}
}

// TestTableComplete: every row says what it bounds, its defaults, its flag
// and its error, and names are unique.
func TestTableComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Table {
		if l.Name == "" || l.What == "" || l.Server == "" || l.CLI == "" || l.Flag == "" || l.Error == "" {
			t.Errorf("row %+v has an empty field", l)
		}
		if seen[l.Name] {
			t.Errorf("limit %q appears twice", l.Name)
		}
		seen[l.Name] = true
	}
}
