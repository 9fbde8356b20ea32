package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCodeTexts: a known text gives the run id and code sum hashing it
// whole gives, its spelling is found only for the same bytes, and the
// texts kept stay within the budget, the oldest dropped first.
func TestCodeTexts(t *testing.T) {
	code := kernelSourceTB(t, "08_allreduce_mesh")
	q, _ := json.Marshal(code)
	raw := q[1 : len(q)-1]
	texts := newCodeTexts(4 * (len(raw) + len(code)))
	texts.add(raw, code)
	if got, ok := texts.spelled(raw); !ok || got != code {
		t.Fatalf("spelled: %v", ok)
	}
	if _, ok := texts.spelled(raw[:len(raw)-1]); ok {
		t.Error("a prefix of the spelling found")
	}
	st := Settings{Step: 8, Ranks: 4, Fill: "randn", Seed: 3, Schedule: "fair", Platform: "910B"}
	for seed := range uint64(3) {
		st.Seed = seed
		id, sum := texts.runIDSum(code, st)
		wantID, wantSum := runIDSum(code, st)
		if id != wantID || sum != wantSum || id != runID(code, st) {
			t.Errorf("seed %d: id %s sum %x, hashed whole %s %x", seed, id, sum, wantID, wantSum)
		}
	}
	if id, _ := texts.runIDSum(code+" ", st); id != runID(code+" ", st) {
		t.Error("an unknown text's id differs")
	}
	// Four fit; the fifth drops the first.
	for i := range 4 {
		c := strings.Replace(code, "mesh", fmt.Sprintf("mesX%d", i), 1)
		q, _ := json.Marshal(c)
		texts.add(q[1:len(q)-1], c)
	}
	if _, ok := texts.spelled(raw); ok || texts.text(code) != nil {
		t.Error("the oldest text is still kept")
	}
	if texts.bytes > texts.max || len(texts.order) != len(texts.byRaw) {
		t.Errorf("%d bytes kept, budget %d; %d in order, %d by spelling", texts.bytes, texts.max, len(texts.order), len(texts.byRaw))
	}
	big := strings.Repeat("x", texts.max)
	if texts.add([]byte(big), big); texts.text(big) != nil {
		t.Error("a text over the budget is kept")
	}
}
