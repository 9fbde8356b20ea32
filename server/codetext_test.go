package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pldworkbench/engine/limits"
)

// TestCodeTexts: a known text gives the run id and code sum hashing it
// whole gives, its spelling is found only for the same bytes, and the
// texts kept stay within the budget, the oldest dropped first.
func TestCodeTexts(t *testing.T) {
	code := kernelSource(t, "08_allreduce_mesh")
	q, _ := json.Marshal(code)
	raw := q[1 : len(q)-1]
	texts := newCodeTexts(4 * (len(raw) + len(code) + codeTextCost))
	e := texts.add(raw, code)
	if got := texts.spelled(raw); got == nil || got != e || got.code != code {
		t.Fatalf("spelled: %v", got)
	}
	if texts.spelled(raw[:len(raw)-1]) != nil {
		t.Error("a prefix of the spelling found")
	}
	st := Settings{Step: 8, Ranks: 4, Fill: "randn", Seed: 3, Schedule: "fair", Platform: "910B"}
	for seed := range uint64(3) {
		st.Seed = seed
		id, sum := runIDSum(code, st, e)
		wantID, wantSum := runIDSum(code, st, nil)
		if id != wantID || sum != wantSum || id != runID(code, st) {
			t.Errorf("seed %d: id %s sum %x, hashed whole %s %x", seed, id, sum, wantID, wantSum)
		}
	}
	if id, _ := runIDSum(code+" ", st, e); id != runID(code+" ", st) {
		t.Error("another text's id, given code's entry, differs from its own")
	}
	// Four fit; the fifth drops the first.
	for i := range 4 {
		c := strings.Replace(code, "mesh", fmt.Sprintf("mesX%d", i), 1)
		q, _ := json.Marshal(c)
		texts.add(q[1:len(q)-1], c)
	}
	if texts.spelled(raw) != nil {
		t.Error("the oldest text is still kept")
	}
	if texts.bytes > texts.max || len(texts.order) != len(texts.byRaw) {
		t.Errorf("%d bytes kept, budget %d; %d in order, %d by spelling", texts.bytes, texts.max, len(texts.order), len(texts.byRaw))
	}
	big := strings.Repeat("x", texts.max)
	if texts.add([]byte(big), big) != nil || texts.spelled([]byte(big)) != nil {
		t.Error("a text over the budget is kept")
	}
	// A text over limits.MaxCode is refused by the request's check, so it
	// is not kept whatever the budget; small texts count their entry's
	// cost, so a budget of n entries keeps n however short they are.
	many := newCodeTexts(2 * limits.MaxCode)
	huge := strings.Repeat("y", limits.MaxCode+1)
	if many.add([]byte(huge), huge) != nil {
		t.Error("a text over MaxCode is kept")
	}
	few := newCodeTexts(10 * (codeTextCost + 3))
	for i := range 100 {
		few.add([]byte{byte('a' + i%26), byte('a' + i/26)}, "c")
	}
	if len(few.order) != 10 || few.bytes > few.max {
		t.Errorf("%d short texts kept in %d bytes, budget %d: want 10", len(few.order), few.bytes, few.max)
	}
}
