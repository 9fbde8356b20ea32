package server

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestSettingsJSON: appendSettings, statusMessage and startedMessage
// write json.Marshal's bytes of the same values, over settings with and
// without each field, strings json escapes, args, and tags of each kind.
func TestSettingsJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	strs := []string{"", "fair", "random:7", "e_{P}", "a<b>&c", "é", "\"q\"", "tab\t", "\u2028"}
	pick := func() string { return strs[rng.IntN(len(strs))] }
	tags := []string{"", `"r"`, `7`, `-1`, `null`, `"a<b"`, `{"k": 1}`, `[1, "x"]`, `"é"`}
	for i := range 3000 {
		st := Settings{Step: rng.IntN(3) * 8, Variant: pick(), Kernel: pick(), Ranks: rng.IntN(70) - 3, Entry: pick(), Fill: pick(),
			Seed: rng.Uint64() >> rng.IntN(64), Schedule: pick(), Platform: pick()}
		if i%7 == 0 {
			st.Backend = "pypto 1.0"
		}
		if i%11 == 0 {
			st.Args = map[string]float64{"N": float64(rng.IntN(9)), "m": rng.NormFloat64()}
		}
		want, _ := json.Marshal(st)
		if got := appendSettings(nil, &st); !bytes.Equal(got, want) {
			t.Fatalf("settings:\n got %s\nwant %s", got, want)
		}
		id, entry := pick(), pick()
		ranks := rng.IntN(9)
		want = mustJSON(statusMsg{Type: "status", Status: "running", ID: id, Settings: st, Ranks: ranks, Entry: entry})
		if got := statusMessage("running", id, st, ranks, entry); !bytes.Equal(got, want) {
			t.Fatalf("status:\n got %s\nwant %s", got, want)
		}
		pr := postResponse{ID: id, Cached: i%2 == 0, Settings: st}
		tag := json.RawMessage(tags[i%len(tags)])
		if len(tag) == 0 {
			tag = nil
		}
		want = mustJSON(sessionStarted{Type: "started", Tag: tag, postResponse: pr})
		if got := startedMessage(tag, &pr); !bytes.Equal(got, want) {
			t.Fatalf("started:\n got %s\nwant %s", got, want)
		}
	}
}
