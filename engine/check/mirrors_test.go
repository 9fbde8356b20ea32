package check

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMirrorsDoc keeps docs/pypto-checks.md, the table of which upstream
// check each code mirrors, rendered from Mirrors (-update rewrites it), and
// every row naming a code of the table.
func TestMirrorsDoc(t *testing.T) {
	titles := map[Code]string{}
	for _, ci := range Codes {
		titles[ci.Code] = ci.Title
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Which PyPTO check each code mirrors\n\n")
	fmt.Fprintf(&b, "Rendered from `engine/check/mirrors.go` by `go test ./engine/check -run TestMirrorsDoc -update`; "+
		"read at upstream hw-native-sys/pypto %s (`runtime/` is its simpler submodule). "+
		"A program the workbench refuses with one of these codes is refused by PyPTO at the place named; "+
		"a warning (W) code marks a program PyPTO documents but cannot compile yet.\n\n", MirrorCommit)
	b.WriteString("| code | what | upstream file | upstream check | PyPTO says |\n|---|---|---|---|---|\n")
	prev := Code("")
	for _, m := range Mirrors {
		title, ok := titles[m.Code]
		if !ok {
			t.Errorf("mirror row for %s, which is no code of the table", m.Code)
		}
		if m.Code <= prev {
			t.Errorf("mirror rows out of code order at %s", m.Code)
		}
		prev = m.Code
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s | `%s` |\n", m.Code, title, m.Where, m.Check, m.Says)
	}
	b.WriteString("\nAt run time (the emulator's codes):\n\n| code | upstream file | upstream check | PyPTO says |\n|---|---|---|---|\n")
	for _, m := range RuntimeMirrors {
		fmt.Fprintf(&b, "| %s | `%s` | %s | `%s` |\n", m.Code, m.Where, m.Check, m.Says)
	}
	const path = "../../docs/pypto-checks.md"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != b.String() {
		t.Errorf("%s is stale: run go test ./engine/check -run TestMirrorsDoc -update", path)
	}
}
