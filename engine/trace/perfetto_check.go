package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// ValidateChromeTrace checks a Chrome Trace Event JSON document against the
// rules Perfetto's JSON importer applies (google/perfetto
// json_trace_parser_impl.cc and flow_tracker.cc, as summarised in
// ux-anchors §5), and returns every violation it finds, joined:
//
//   - the document is {"traceEvents": [...]} and every event has a known
//     phase, a name and a numeric pid;
//   - X slices have ts and a non-negative dur, and the slices of one
//     (pid, tid) track nest: none overlaps another only partly;
//   - C counters have ts and numeric args; M metadata names a process or
//     thread (args.name) or sorts one (args.sort_index);
//   - every flow start s has one flow end f with the same (id, cat, name),
//     f carries bp "e", and each end lies strictly inside a slice of its
//     own track (the slice it binds to);
//   - every track with slices has a thread_name, and the process a
//     process_name.
//
// Times are compared in integer nanoseconds, rounded from microseconds as
// Perfetto does.
func ValidateChromeTrace(data []byte) error {
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not a trace object: %v", err)
	}
	if doc.TraceEvents == nil {
		return errors.New(`no "traceEvents" array`)
	}
	v := &validator{tracks: map[track][]span{}, named: map[track]bool{}, processName: map[int64]bool{}, flows: map[flowKey][2]int{}}
	for i, e := range doc.TraceEvents {
		v.event(i, e)
	}
	v.finish()
	return errors.Join(v.errs...)
}

type track struct{ pid, tid int64 }

type span struct {
	start, end int64
	event      int
}

type flowKey struct {
	id        string
	cat, name string
}

type flowEnd struct {
	event int
	tr    track
	ts    int64
}

type validator struct {
	errs        []error
	tracks      map[track][]span
	named       map[track]bool
	processName map[int64]bool
	flows       map[flowKey][2]int // count of s and f
	ends        []flowEnd
}

func (v *validator) errorf(format string, args ...any) {
	if len(v.errs) < 20 {
		v.errs = append(v.errs, fmt.Errorf(format, args...))
	}
}

func num(e map[string]any, key string) (float64, bool) {
	f, ok := e[key].(float64)
	return f, ok
}

// ns converts a timestamp in µs to ns the way Perfetto does.
func ns(us float64) int64 { return int64(math.Round(us * 1000)) }

func (v *validator) event(i int, e map[string]any) {
	ph, _ := e["ph"].(string)
	name, hasName := e["name"].(string)
	pid, okPid := num(e, "pid")
	tid, okTid := num(e, "tid")
	if !okTid {
		tid = pid // Perfetto's default
	}
	tr := track{int64(pid), int64(tid)}
	if !okPid {
		v.errorf("event %d (%s %q): no numeric pid", i, ph, name)
	}
	if !hasName || name == "" {
		v.errorf("event %d (%s): no name", i, ph)
	}
	ts, okTs := num(e, "ts")
	args, _ := e["args"].(map[string]any)
	switch ph {
	case "X":
		d, okDur := num(e, "dur")
		if !okTs || !okDur || d < 0 {
			v.errorf("event %d (X %q): want numeric ts and dur >= 0", i, name)
			return
		}
		v.tracks[tr] = append(v.tracks[tr], span{ns(ts), ns(ts) + ns(d), i})
	case "C":
		if !okTs || len(args) == 0 {
			v.errorf("event %d (C %q): want ts and at least one arg", i, name)
		}
		for k, a := range args {
			if _, isNum := a.(float64); !isNum {
				v.errorf("event %d (C %q): arg %s is not a number", i, name, k)
			}
		}
	case "M":
		switch name {
		case "process_name", "thread_name":
			if s, _ := args["name"].(string); s == "" {
				v.errorf("event %d (M %s): no args.name", i, name)
			}
			if name == "thread_name" {
				v.named[tr] = true
			} else {
				v.processName[tr.pid] = true
			}
		case "process_sort_index", "thread_sort_index":
			if _, isNum := args["sort_index"].(float64); !isNum {
				v.errorf("event %d (M %s): no numeric args.sort_index", i, name)
			}
		default:
			v.errorf("event %d: unknown metadata %q", i, name)
		}
	case "s", "f":
		cat, _ := e["cat"].(string)
		id := fmt.Sprint(e["id"])
		if e["id"] == nil || !okTs {
			v.errorf("event %d (%s %q): want ts and id", i, ph, name)
			return
		}
		if bp, _ := e["bp"].(string); ph == "f" && bp != "e" {
			v.errorf("event %d (f %q): want bp \"e\" (bind to the enclosing slice), got %q", i, name, bp)
		}
		k := flowKey{id, cat, name}
		c := v.flows[k]
		if ph == "s" {
			c[0]++
		} else {
			c[1]++
		}
		v.flows[k] = c
		v.ends = append(v.ends, flowEnd{i, tr, ns(ts)})
	case "B", "E", "i", "I", "b", "e", "n", "t":
		// Valid phases this exporter does not use.
	default:
		v.errorf("event %d: unknown phase %q", i, ph)
	}
}

func (v *validator) finish() {
	for tr, spans := range v.tracks {
		if !v.named[tr] {
			v.errorf("track pid %d tid %d has slices but no thread_name", tr.pid, tr.tid)
		}
		if !v.processName[tr.pid] {
			v.errorf("process %d has no process_name", tr.pid)
			v.processName[tr.pid] = true // once
		}
		sort.SliceStable(spans, func(i, j int) bool {
			if spans[i].start != spans[j].start {
				return spans[i].start < spans[j].start
			}
			return spans[i].end > spans[j].end
		})
		var stack []span
		for _, s := range spans {
			for len(stack) > 0 && s.start >= stack[len(stack)-1].end {
				stack = stack[:len(stack)-1]
			}
			if n := len(stack); n > 0 && s.end > stack[n-1].end {
				v.errorf("track pid %d tid %d: slice %d [%d, %d] ns overlaps slice %d [%d, %d] ns only partly",
					tr.pid, tr.tid, s.event, s.start, s.end, stack[n-1].event, stack[n-1].start, stack[n-1].end)
				continue
			}
			stack = append(stack, s)
		}
		v.tracks[tr] = spans
	}
	for k, c := range v.flows {
		if c[0] != 1 || c[1] != 1 {
			v.errorf("flow id %s (%s/%s): %d starts and %d ends, want one of each", k.id, k.cat, k.name, c[0], c[1])
		}
	}
	for _, f := range v.ends {
		inside := false
		for _, s := range v.tracks[f.tr] {
			if s.start < f.ts && f.ts < s.end {
				inside = true
				break
			}
		}
		if !inside {
			v.errorf("flow event %d at %d ns is not strictly inside a slice of its track (pid %d tid %d)", f.event, f.ts, f.tr.pid, f.tr.tid)
		}
	}
}
