package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ChromeTrace is a Chrome Trace Event Format document, the JSON that
// Perfetto's importer and chrome://tracing read.
type ChromeTrace struct {
	TraceEvents []ChromeEvent `json:"traceEvents"`
	// DisplayTimeUnit only changes how chrome://tracing labels time;
	// timestamps are microseconds either way.
	DisplayTimeUnit string `json:"displayTimeUnit"`
}

// ChromeEvent is one trace event. Ts and Dur are microseconds; fractions
// keep nanoseconds (Perfetto rounds ts × 1000 to integer ns).
type ChromeEvent struct {
	Name string   `json:"name"`
	Cat  string   `json:"cat,omitempty"`
	Ph   string   `json:"ph"`
	Ts   float64  `json:"ts"`
	Dur  *float64 `json:"dur,omitempty"`
	Pid  int      `json:"pid"`
	Tid  int      `json:"tid,omitempty"`
	// ID and BP are a flow's id and, on its end, "e": bind to the
	// enclosing slice.
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// PerfettoOptions tunes the export.
type PerfettoOptions struct {
	// Title names the run's process track; "" means "pld run".
	Title string
}

// perfettoPid is the one process every lane belongs to.
const perfettoPid = 1

// releasedNs is the longest "released" slice drawn at the end of a wait;
// it is shorter when the wait itself is (at most half of it).
const releasedNs = 10

// lane is one track: the host, a rank, or a block b >= 1 of a rank's grid
// (block 0 shares its rank's lane: the rank is idle while its grid runs).
type lane struct{ rank, block int }

func laneOf(e Event) lane {
	if e.Rank == HostRank {
		return lane{HostRank, 0}
	}
	return lane{e.Rank, e.Block}
}

func (l lane) String() string {
	switch {
	case l.rank == HostRank:
		return "host"
	case l.block == 0:
		return fmt.Sprintf("rank %d", l.rank)
	}
	return fmt.Sprintf("rank %d / block %d", l.rank, l.block)
}

// Perfetto turns events into a Chrome trace: lanes, slices, released
// slices, flows and counters as the package comment describes.
func Perfetto(events []Event, opts PerfettoOptions) *ChromeTrace {
	title := opts.Title
	if title == "" {
		title = "pld run"
	}
	// Lanes: host first, then ranks and their blocks in order.
	seen := map[lane]bool{}
	var lanes []lane
	for _, e := range events {
		if l := laneOf(e); !seen[l] {
			seen[l] = true
			lanes = append(lanes, l)
		}
	}
	sort.Slice(lanes, func(i, j int) bool {
		if lanes[i].rank != lanes[j].rank {
			return lanes[i].rank < lanes[j].rank
		}
		return lanes[i].block < lanes[j].block
	})
	tid := map[lane]int{}
	out := &ChromeTrace{DisplayTimeUnit: "ns", TraceEvents: []ChromeEvent{
		{Name: "process_name", Ph: "M", Pid: perfettoPid, Args: map[string]any{"name": title}},
	}}
	for i, l := range lanes {
		tid[l] = i + 1
		out.TraceEvents = append(out.TraceEvents,
			ChromeEvent{Name: "thread_name", Ph: "M", Pid: perfettoPid, Tid: i + 1, Args: map[string]any{"name": l.String()}},
			ChromeEvent{Name: "thread_sort_index", Ph: "M", Pid: perfettoPid, Tid: i + 1, Args: map[string]any{"sort_index": i}})
	}

	byRef := map[Ref]int{}
	for i, e := range events {
		if e.Cat == catNotify {
			byRef[Ref{Rank: e.Rank, Seq: e.Seq}] = i
		}
	}
	var body []ChromeEvent
	flow := 0
	for _, e := range events {
		t := tid[laneOf(e)]
		body = append(body, ChromeEvent{Name: sliceName(e), Cat: category(e), Ph: "X", Ts: us(e.StartNs),
			Dur: dur(e.EndNs - e.StartNs), Pid: perfettoPid, Tid: t, Args: sliceArgs(e)})
		if e.ReleasedBy == nil {
			continue
		}
		d := min(releasedNs, (e.EndNs-e.StartNs)/2)
		n, ok := byRef[*e.ReleasedBy]
		if d < 2 {
			continue // too short to hold a child slice with a flow inside
		}
		rel := e.EndNs - d
		body = append(body, ChromeEvent{Name: "released", Cat: "wait", Ph: "X", Ts: us(rel), Dur: dur(d), Pid: perfettoPid, Tid: t,
			Args: map[string]any{"by": fmt.Sprintf("rank %d seq %d", e.ReleasedBy.Rank, e.ReleasedBy.Seq)}})
		if !ok || events[n].EndNs-events[n].StartNs < 2 {
			continue
		}
		src := events[n]
		flow++
		body = append(body,
			ChromeEvent{Name: "release", Cat: "flow", Ph: "s", Ts: us(src.StartNs + (src.EndNs-src.StartNs)/2), Pid: perfettoPid, Tid: tid[laneOf(src)], ID: flow},
			ChromeEvent{Name: "release", Cat: "flow", Ph: "f", BP: "e", Ts: us(rel + d/2), Pid: perfettoPid, Tid: t, ID: flow})
	}
	body = append(body, inFlight(events)...)
	// Time order; at one instant counters first, then enclosing slices
	// before the slices they enclose, then flow ends.
	sort.SliceStable(body, func(i, j int) bool {
		a, b := body[i], body[j]
		if a.Ts != b.Ts {
			return a.Ts < b.Ts
		}
		if pa, pb := phaseOrder[a.Ph], phaseOrder[b.Ph]; pa != pb {
			return pa < pb
		}
		if a.Ph == "X" {
			return *a.Dur > *b.Dur
		}
		return false
	})
	out.TraceEvents = append(out.TraceEvents, body...)
	return out
}

var phaseOrder = map[string]int{"C": 0, "X": 1, "s": 2, "f": 3}

// WritePerfetto writes events as a Chrome trace that opens in Perfetto.
func WritePerfetto(w io.Writer, events []Event, opts PerfettoOptions) error {
	b, err := json.Marshal(Perfetto(events, opts))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// catNotify is the category of a notify (ir.CatNotify): a wait's
// ReleasedBy names one.
const catNotify = "notify"

func us(ns int64) float64 { return float64(ns) / 1000 }

func dur(ns int64) *float64 {
	d := us(max(ns, 0))
	return &d
}

// sliceName is an event's label on its lane: the op without its
// namespace, "call kernel" for a call.
func sliceName(e Event) string {
	if e.Op == "call" && e.Callee != "" {
		return "call " + e.Callee
	}
	return strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(e.Op, "pld."), "pl."), "system.")
}

// category is the event's Cat, which its producer took from the IR's
// operation table; the exporter classifies no op names. An event without
// one (a hand-made trace) is compute.
func category(e Event) string {
	if e.Cat == "" {
		return "compute"
	}
	return e.Cat
}

// sliceArgs is what Perfetto shows for a selected slice.
func sliceArgs(e Event) map[string]any {
	a := map[string]any{"line": e.Line, "seq": e.Seq}
	if e.Peer != nil {
		a["peer"] = *e.Peer
	}
	if e.Bytes != 0 {
		a["bytes"] = e.Bytes
	}
	if e.Cell != "" {
		a["cell"] = e.Cell
	}
	if e.Value != nil {
		a["value"] = *e.Value
	}
	if e.Before != nil {
		a["before"] = *e.Before
	}
	if e.After != nil {
		a["after"] = *e.After
	}
	if e.Blocks != 0 {
		a["blocks"] = e.Blocks
	}
	if e.Block != 0 {
		a["block"] = e.Block
	}
	return a
}

// inFlight is the "bytes in flight" counter of every rank: the bytes of
// its transfers with another rank (remote_load, remote_store, put, get)
// that have started and not ended, summed over its blocks.
func inFlight(events []Event) []ChromeEvent {
	type delta struct {
		ns    int64
		bytes int64
	}
	per := map[int][]delta{}
	for _, e := range events {
		if e.Bytes == 0 || e.Peer == nil || *e.Peer == e.Rank || e.Rank == HostRank || e.Cat != "rma" {
			continue
		}
		per[e.Rank] = append(per[e.Rank], delta{e.StartNs, e.Bytes}, delta{e.EndNs, -e.Bytes})
	}
	ranks := make([]int, 0, len(per))
	for r := range per {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	var out []ChromeEvent
	for _, r := range ranks {
		ds := per[r]
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].ns < ds[j].ns })
		key := fmt.Sprintf("rank %d", r)
		var v int64
		for i := 0; i < len(ds); {
			at := ds[i].ns
			for ; i < len(ds) && ds[i].ns == at; i++ {
				v += ds[i].bytes
			}
			out = append(out, ChromeEvent{Name: "bytes in flight", Ph: "C", Ts: us(at), Pid: perfettoPid, Args: map[string]any{key: v}})
		}
	}
	return out
}
