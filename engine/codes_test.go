package engine_test

import (
	"strings"
	"testing"

	"pldworkbench/engine/check"
	"pldworkbench/engine/syntax"
)

// TestCodesUnique keeps every stage's diagnostic codes distinct: the UI
// links a code to one lesson, so two stages must never share one. syntax
// owns E00xx, meta E03xx, check the rest.
func TestCodesUnique(t *testing.T) {
	seen := map[string]string{}
	for _, c := range syntax.ErrorCodes() {
		if !strings.HasPrefix(c.Code, "E00") {
			t.Errorf("syntax code %s outside E00xx", c.Code)
		}
		if prev, ok := seen[c.Code]; ok {
			t.Errorf("code %s used by syntax and %s", c.Code, prev)
		}
		seen[c.Code] = "syntax"
	}
	for _, c := range check.Codes {
		code := string(c.Code)
		if strings.HasPrefix(code, "E00") || strings.HasPrefix(code, "E03") {
			t.Errorf("check code %s inside another stage's range", code)
		}
		if prev, ok := seen[code]; ok {
			t.Errorf("code %s used by check and %s", code, prev)
		}
		seen[code] = "check"
	}
	if len(seen) < 40 {
		t.Errorf("only %d codes seen; the tables did not load", len(seen))
	}
}
