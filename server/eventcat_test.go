package server

import (
	"encoding/json"
	"testing"

	"pldworkbench/engine/trace"
)

// TestWithCategories: an event stored before events carried a category
// gets its op's; one that has a category, and a line that is not an event,
// are left alone.
func TestWithCategories(t *testing.T) {
	old := []byte(`{"rank":1,"seq":7,"op":"pld.system.wait","line":14,"col":5,"end_line":14,"end_col":60,"bytes":0,"cell":"signal[0, 0]","value":1,"start_ns":12,"end_ns":530}`)
	call := []byte(`{"rank":-1,"seq":1,"op":"call","callee":"per_rank","line":6,"col":1,"end_line":6,"end_col":9,"bytes":0,"start_ns":0,"end_ns":0}`)
	current := []byte(`{"rank":0,"seq":4,"op":"pld.system.notify","cat":"notify","line":12,"col":1,"end_line":12,"end_col":9,"bytes":0,"start_ns":10,"end_ns":30}`)
	junk := []byte(`not json`)
	got := withCategories([][]byte{old, call, current, junk})
	for i, want := range []string{"wait", "call", "notify"} {
		var e trace.Event
		if err := json.Unmarshal(got[i], &e); err != nil || e.Cat != want {
			t.Errorf("line %d: %s (%v), want cat %q", i, got[i], err, want)
		}
	}
	var e trace.Event
	if json.Unmarshal(got[0], &e); e.Op != "pld.system.wait" || e.Value == nil || *e.Value != 1 || e.EndNs != 530 {
		t.Errorf("the old event lost a field: %s", got[0])
	}
	if string(got[2]) != string(current) || string(got[3]) != "not json" {
		t.Errorf("lines with a category or not events changed: %s, %s", got[2], got[3])
	}
}
