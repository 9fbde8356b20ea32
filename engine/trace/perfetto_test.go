package trace

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// perfettoSample: the events as the emulator makes them, each with its
// category from the IR's table. The host allocates and dispatches; rank 0 notifies rank
// 1, whose wait it releases; rank 1 then reads 256 bytes from rank 0 while
// rank 0 pushes 512 bytes to rank 1; block 2 of rank 1's grid does a load.
func perfettoSample() []Event {
	return []Event{
		{Rank: HostRank, Seq: 0, Op: "pld.alloc_window_buffer", Cat: "setup", Line: 3},
		{Rank: HostRank, Seq: 1, Op: "call", Cat: "call", Callee: "per_rank", Line: 6, Peer: Int(1)},
		{Rank: 0, Seq: 4, Op: "pld.system.notify", Cat: "notify", Line: 12, Peer: Int(1), Cell: "signal[0, 0]", Before: Int64(0), After: Int64(1), StartNs: 10, EndNs: 30},
		{Rank: 1, Seq: 7, Op: "pld.system.wait", Cat: "wait", Line: 14, Cell: "signal[0, 0]", Value: Int64(1), ReleasedBy: &Ref{Rank: 0, Seq: 4}, StartNs: 12, EndNs: 530},
		{Rank: 1, Seq: 8, Op: "pld.tile.remote_load", Cat: "rma", Line: 15, Peer: Int(0), Bytes: 256, StartNs: 530, EndNs: 1044},
		{Rank: 0, Seq: 5, Op: "pld.tensor.put", Cat: "rma", Line: 16, Peer: Int(1), Bytes: 512, StartNs: 530, EndNs: 1200},
		{Rank: 1, Seq: 9, Block: 2, Op: "pl.load", Cat: "memory", Line: 20, Bytes: 64, StartNs: 1100, EndNs: 1120},
		{Rank: 1, Seq: 10, Op: "call", Cat: "call", Callee: "kernel", Blocks: 3, Line: 21, StartNs: 1044, EndNs: 1045},
	}
}

func exportJSON(t *testing.T, events []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePerfetto(&buf, events, PerfettoOptions{Title: "sample"}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPerfettoValid(t *testing.T) {
	data := exportJSON(t, perfettoSample())
	if err := ValidateChromeTrace(data); err != nil {
		t.Fatalf("export does not validate:\n%v\n%s", err, data)
	}
	var doc struct {
		TraceEvents     []ChromeEvent `json:"traceEvents"`
		DisplayTimeUnit string        `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit = %q, want ns", doc.DisplayTimeUnit)
	}
	// Lanes: host, rank 0, rank 1, rank 1 / block 2, in that order.
	names := map[int]string{}
	sortIdx := map[int]float64{}
	for _, e := range doc.TraceEvents {
		switch e.Name {
		case "thread_name":
			names[e.Tid] = e.Args["name"].(string)
		case "thread_sort_index":
			sortIdx[e.Tid] = e.Args["sort_index"].(float64)
		}
	}
	for tid, want := range []string{"host", "rank 0", "rank 1", "rank 1 / block 2"} {
		if names[tid+1] != want || sortIdx[tid+1] != float64(tid) {
			t.Errorf("tid %d: name %q sort %v, want %q sort %d", tid+1, names[tid+1], sortIdx[tid+1], want, tid)
		}
	}
	var wait, released, notify *ChromeEvent
	var starts, ends []ChromeEvent
	counters := map[string][]float64{}
	for i := range doc.TraceEvents {
		e := &doc.TraceEvents[i]
		switch {
		case e.Ph == "X" && e.Name == "wait":
			wait = e
		case e.Ph == "X" && e.Name == "released":
			released = e
		case e.Ph == "X" && e.Name == "notify":
			notify = e
		case e.Ph == "s":
			starts = append(starts, *e)
		case e.Ph == "f":
			ends = append(ends, *e)
		case e.Ph == "C":
			for k, v := range e.Args {
				counters[k] = append(counters[k], v.(float64))
			}
		}
	}
	if wait == nil || released == nil || notify == nil {
		t.Fatal("missing the wait, its released slice or the notify")
	}
	// Every slice carries its event's category; the released slice is part
	// of its wait.
	if wait.Cat != "wait" || notify.Cat != "notify" || released.Cat != "wait" {
		t.Errorf("categories: wait %q, notify %q, released %q", wait.Cat, notify.Cat, released.Cat)
	}
	cats := map[string]string{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			cats[e.Name] = e.Cat
		}
	}
	for name, want := range map[string]string{"alloc_window_buffer": "setup", "call per_rank": "call", "tile.remote_load": "rma", "tensor.put": "rma", "load": "memory"} {
		if cats[name] != want {
			t.Errorf("slice %s has category %q, want %q", name, cats[name], want)
		}
	}
	// The wait keeps its args; the released slice ends with it, 10 ns long.
	if wait.Args["cell"] != "signal[0, 0]" || wait.Args["value"] != float64(1) || wait.Args["line"] != float64(14) {
		t.Errorf("wait args = %v", wait.Args)
	}
	if released.Tid != wait.Tid || released.Ts != 0.52 || *released.Dur != 0.01 {
		t.Errorf("released slice tid %d at %v µs for %v µs, want tid %d at 0.52 for 0.01", released.Tid, released.Ts, *released.Dur, wait.Tid)
	}
	// One arrow from inside the notify to inside the released slice.
	if len(starts) != 1 || len(ends) != 1 || starts[0].ID != ends[0].ID {
		t.Fatalf("flows: %v -> %v, want one pair with one id", starts, ends)
	}
	if s := starts[0]; s.Tid != notify.Tid || s.Ts <= notify.Ts || s.Ts >= notify.Ts+*notify.Dur {
		t.Errorf("flow start %+v not inside notify %+v", s, *notify)
	}
	if f := ends[0]; f.Tid != released.Tid || f.BP != "e" || f.Ts <= released.Ts || f.Ts >= released.Ts+*released.Dur {
		t.Errorf("flow end %+v not bound inside released %+v", f, *released)
	}
	// Bytes in flight: rank 1 reads 256 bytes from 0.53 to 1.044 µs; rank
	// 0 pushes 512 from 0.53 to 1.2; block 2's local load is not remote.
	if got := counters["rank 1"]; len(got) != 2 || got[0] != 256 || got[1] != 0 {
		t.Errorf("rank 1 in flight = %v, want [256 0]", got)
	}
	if got := counters["rank 0"]; len(got) != 2 || got[0] != 512 || got[1] != 0 {
		t.Errorf("rank 0 in flight = %v, want [512 0]", got)
	}
}

// TestPerfettoDeterministic: equal events give identical bytes.
func TestPerfettoDeterministic(t *testing.T) {
	a, b := exportJSON(t, perfettoSample()), exportJSON(t, perfettoSample())
	if !bytes.Equal(a, b) {
		t.Error("two exports of the same events differ")
	}
}

// TestPerfettoShortWait: a wait too short for a child slice gets neither
// a released slice nor a flow, and the trace stays valid.
func TestPerfettoShortWait(t *testing.T) {
	ev := perfettoSample()
	ev[3].StartNs, ev[3].EndNs = 40, 43
	data := exportJSON(t, ev)
	if err := ValidateChromeTrace(data); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"released"`) || strings.Contains(string(data), `"ph":"s"`) {
		t.Errorf("a 3 ns wait got a released slice or a flow:\n%s", data)
	}
}

// TestValidateCatches: the validator is not vacuous; each broken document
// names its fault.
func TestValidateCatches(t *testing.T) {
	meta := `{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"rank 0"}}`
	cases := []struct{ doc, want string }{
		{`[]`, "not a trace object"},
		{`{"events":[]}`, "no \"traceEvents\""},
		{`{"traceEvents":[` + meta + `,{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":2}]}`, "only partly"},
		{`{"traceEvents":[` + meta + `,{"ph":"X","name":"a","pid":1,"tid":1,"ts":1}]}`, "dur >= 0"},
		{`{"traceEvents":[` + meta + `,{"ph":"X","name":"a","pid":1,"tid":2,"ts":1,"dur":1}]}`, "no thread_name"},
		{`{"traceEvents":[` + meta + `,{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"s","name":"r","cat":"flow","id":1,"pid":1,"tid":1,"ts":1.5}]}`, "1 starts and 0 ends"},
		{`{"traceEvents":[` + meta + `,{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"s","name":"r","cat":"flow","id":1,"pid":1,"tid":1,"ts":1.5},{"ph":"f","name":"r","cat":"flow","id":1,"pid":1,"tid":1,"ts":1.6}]}`, "bp \"e\""},
		{`{"traceEvents":[` + meta + `,{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"s","name":"r","cat":"flow","id":1,"pid":1,"tid":1,"ts":1},{"ph":"f","bp":"e","name":"r","cat":"flow","id":1,"pid":1,"tid":1,"ts":1.5}]}`, "not strictly inside"},
		{`{"traceEvents":[` + meta + `,{"ph":"C","name":"c","pid":1,"ts":1,"args":{"x":"many"}}]}`, "not a number"},
		{`{"traceEvents":[` + meta + `,{"ph":"Q","name":"q","pid":1}]}`, "unknown phase"},
		{`{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"x"}},{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]}`, "no process_name"},
	}
	for _, c := range cases {
		err := ValidateChromeTrace([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v, want an error containing %q", c.doc, err, c.want)
		}
	}
}
