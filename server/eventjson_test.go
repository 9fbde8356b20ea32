package server

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
)

// TestEventJSON: appendEvent writes what json.Marshal writes, for every
// event of every kernel's run at its first rank count (under the fair and
// the adversarial schedule) and for events with each optional field set,
// unset and at zero, and strings json.Marshal escapes.
func TestEventJSON(t *testing.T) {
	n := 0
	check := func(e trace.Event) {
		t.Helper()
		n++
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, &e); !bytes.Equal(got, want) {
			t.Fatalf("appendEvent:\n got %s\nwant %s", got, want)
		}
	}
	for _, k := range kernels.All() {
		if len(k.Entries) == 0 || len(k.Ranks) == 0 {
			continue
		}
		for _, sched := range []string{"fair", "adversarial"} {
			engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Run(context.Background(), engine.RunOptions{
				Options:  engine.Options{Entry: k.EntriesAt(k.Ranks[0])[0], Ranks: k.Ranks[0]},
				Schedule: sched, OnEvent: check,
			})
		}
	}
	if n < 1000 {
		t.Errorf("only %d events from the kernels", n)
	}
	zero, one, neg := 0, int64(1), int64(-7)
	for _, e := range []trace.Event{
		{},
		{Rank: trace.HostRank, Block: 3, Seq: 1 << 40, Op: "call", Cat: "call", Callee: "k", Blocks: 8, Peer: &zero},
		{Op: "pld.system.notify", Cell: "signal[2, 0]", Before: &neg, After: &one, Value: new(int64), ReleasedBy: &trace.Ref{Rank: 2, Seq: 9}},
		{Op: `a"b\c<d>e&f`, Cat: "\u2028 é \x01", Callee: "\xff", Cell: "\t"},
		{Line: 1, Col: 2, EndLine: 3, EndCol: 4, Bytes: -1, StartNs: -5, EndNs: 1 << 62},
	} {
		check(e)
	}
}

// TestEventJSONFields: trace.Event and trace.Ref have the fields
// appendEvent writes, no more: a new field must be added there too.
func TestEventJSONFields(t *testing.T) {
	names := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			out = append(out, rt.Field(i).Name)
		}
		return out
	}
	want := []string{"Rank", "Block", "Seq", "Op", "Cat", "Callee", "Blocks", "Line", "Col", "EndLine", "EndCol",
		"Peer", "Bytes", "Cell", "Before", "After", "Value", "ReleasedBy", "StartNs", "EndNs"}
	if got := names(trace.Event{}); !reflect.DeepEqual(got, want) {
		t.Errorf("trace.Event fields %v, appendEvent writes %v", got, want)
	}
	if got := names(trace.Ref{}); !reflect.DeepEqual(got, []string{"Rank", "Seq"}) {
		t.Errorf("trace.Ref fields %v, appendEvent writes Rank, Seq", got)
	}
}

// TestRunEventArena: the messages a run's log holds are its events'
// messages, whatever their length: short ones share arena chunks, one
// longer than the room left grows the arena into a new array, and none
// changes when later ones are appended.
func TestRunEventArena(t *testing.T) {
	r := newRun(context.Background(), "x", "", Settings{}, nil)
	var want [][]byte
	for i := range 300 {
		e := trace.Event{Rank: i % 4, Seq: int64(i), Op: "remote_load", Line: i, Bytes: 64}
		if i%50 == 7 {
			e.Cell = strings.Repeat("c", 3000+i) // past eventRoom, past the chunk's rest
		}
		r.event(e)
		want = append(want, eventMessage(appendEvent(nil, &e)))
	}
	msgs, _ := r.read(0, len(want)+1)
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d", len(msgs), len(want))
	}
	for i := range want {
		if !bytes.Equal(msgs[i], want[i]) {
			t.Fatalf("message %d:\n got %.120s\nwant %.120s", i, msgs[i], want[i])
		}
	}
}
