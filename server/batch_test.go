package server

import (
	"encoding/json"
	"testing"
)

// TestBatchedAndOrdered checks two parts of the websocket contract on a
// replay, where every message is ready at once: fast messages travel as
// JSON arrays (fewer frames than messages, never more than batchMax in a
// frame), and the messages keep their documented order — status first,
// every event before the outputs, done last — with each rank's events in
// sequence order.
func TestBatchedAndOrdered(t *testing.T) {
	ts := start(t, t.TempDir())
	defer ts.stop(t)
	body := map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "step": 8, "ranks": 8}
	pr, live := ts.watch(t, body)
	if got := ofType(live, "done"); len(got) != 1 || got[0].Status != "ok" {
		t.Fatalf("live run: done %+v", got)
	}

	c := ts.dial(t, pr.ID)
	defer c.Close()
	frames, msgs := 0, []msg{}
	for {
		ms, err := frame(t, c)
		if err != nil {
			break
		}
		frames++
		if len(ms) > batchMax {
			t.Errorf("a frame carried %d messages, more than batchMax %d", len(ms), batchMax)
		}
		msgs = append(msgs, ms...)
	}
	events := len(ofType(msgs, "event"))
	if events < 100 {
		t.Fatalf("replay of step 8 at 8 ranks sent %d events, want hundreds", events)
	}
	if frames >= len(msgs) {
		t.Errorf("replay sent %d messages in %d frames: not batched", len(msgs), frames)
	}
	t.Logf("replay: %d messages (%d events) in %d frames", len(msgs), events, frames)

	if msgs[0].Type != "status" || msgs[0].Status != "replay" {
		t.Errorf("first message %s %q, want status replay", msgs[0].Type, msgs[0].Status)
	}
	if last := msgs[len(msgs)-1]; last.Type != "done" || last.Status != "ok" {
		t.Errorf("last message %s %q, want done ok", last.Type, last.Status)
	}
	lastEvent, firstOutput := -1, len(msgs)
	seq := map[int]int64{}
	for i, m := range msgs {
		switch m.Type {
		case "event":
			lastEvent = i
			var ev struct {
				Rank  int   `json:"rank"`
				Block int   `json:"block"`
				Seq   int64 `json:"seq"`
			}
			if err := json.Unmarshal(m.Event, &ev); err != nil {
				t.Fatal(err)
			}
			key := ev.Rank*1000 + ev.Block
			if prev, ok := seq[key]; ok && ev.Seq <= prev {
				t.Errorf("rank %d block %d: seq %d after %d", ev.Rank, ev.Block, ev.Seq, prev)
			}
			seq[key] = ev.Seq
		case "output":
			firstOutput = min(firstOutput, i)
		}
	}
	if lastEvent > firstOutput {
		t.Errorf("an event (message %d) came after the first output (message %d)", lastEvent, firstOutput)
	}
	if len(seq) != 9 { // the host and ranks 0..7
		t.Errorf("events came from %d lanes, want 9 (host + 8 ranks)", len(seq))
	}
}
