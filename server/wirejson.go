package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"pldworkbench/engine/floats"
	"pldworkbench/tutorials/check"
)

// A run's outputs (each a few thousand formatted floats, and the golden's
// values beside them in the output check) go out in its output messages
// and again in its stored record. They are encoded once, by hand, and
// spliced into both: through encoding/json every enclosing Marshal
// validated and compacted the bytes a MarshalJSON method had already
// made (json does that to every Marshaler's output), three times per
// tensor, which was a tenth of the server's CPU per run. Each writer
// below makes the bytes json.Marshal makes of the same value
// (TestWireJSON holds them to that).

// appendTensor appends t's JSON: the fields of floats.TensorJSON, then
// full_shape and truncated when set, then the stats.
func appendTensor(b []byte, t *outTensor) []byte {
	b = append(b, `{"dtype":`...)
	b = appendJSONString(b, t.DType)
	b = append(b, `,"shape":`...)
	b = appendInts(b, t.Shape)
	b = append(b, `,"data":`...)
	b = floats.AppendData(b, t.DType, t.Data) // float32 digits for FP32, FP16, BF16
	if len(t.FullShape) > 0 {
		b = append(b, `,"full_shape":`...)
		b = appendInts(b, t.FullShape)
	}
	if t.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	b = append(b, `,"stats":{"count":`...)
	b = strconv.AppendInt(b, t.Stats.Count, 10)
	b = append(b, `,"nan":`...)
	b = strconv.AppendInt(b, t.Stats.NaN, 10)
	b = append(b, `,"min":`...)
	b = appendFloat(b, t.Stats.Min)
	b = append(b, `,"max":`...)
	b = appendFloat(b, t.Stats.Max)
	b = append(b, `,"mean":`...)
	b = appendFloat(b, t.Stats.Mean)
	return append(b, `}}`...)
}

// jsonRoom is the room n floats' JSON takes at most, and a little
// besides: the float writers grow a buffer 64 bytes short by doubling it,
// and a tensor's or a check's encoding grew so five times, copying what
// it had each time.
func jsonRoom(n int) int { return 256 + 25*n }

func appendInts(b []byte, xs []int) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// appendFloat appends f as Float.MarshalJSON writes it (null for a NaN or
// an infinity), without the json.Marshal of a float64 it makes, a
// reflection and an allocation for each of a run's stats and per-rank
// differences: a finite number is written by floats.AppendElem, which
// writes json's digits (the floats tests hold it to them).
func appendFloat(b []byte, f floats.Float) []byte {
	if v := float64(f); !math.IsNaN(v) && !math.IsInf(v, 0) {
		return floats.AppendElem(b, v)
	}
	return append(b, "null"...)
}

// tensorJSON is t's JSON (nil t: null).
func tensorJSON(t *outTensor) []byte {
	if t == nil {
		return []byte("null")
	}
	j, _ := t.MarshalJSON() // cannot fail
	return j
}

// checkJSON is the JSON of rec's output check of name, encoded the first
// time it is asked for; ok false when the output has none.
func (rec *record) checkJSON(name string) ([]byte, bool) {
	c, ok := rec.OutputChecks[name]
	if !ok {
		return nil, false
	}
	if j, ok := rec.checkRaw[name]; ok {
		return j, true
	}
	j := appendCheck(make([]byte, 0, jsonRoom(len(c.Want))+64*len(c.Ranks)), &c)
	if rec.checkRaw == nil {
		rec.checkRaw = map[string][]byte{}
	}
	rec.checkRaw[name] = j
	return j, true
}

// appendCheck appends c's JSON: check.OutputCheck's fields in order,
// reason and want omitted when empty. Through json.Marshal the golden's
// values, already formatted by Floats.MarshalJSON, were validated and
// compacted again (half the cost of an output message).
func appendCheck(b []byte, c *check.OutputCheck) []byte {
	b = append(b, `{"pass":`...)
	b = strconv.AppendBool(b, c.Pass)
	b = append(b, `,"ranks":`...)
	if c.Ranks == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, r := range c.Ranks {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"rank":`...)
			b = strconv.AppendInt(b, int64(r.Rank), 10)
			b = append(b, `,"pass":`...)
			b = strconv.AppendBool(b, r.Pass)
			b = append(b, `,"max_abs_diff":`...)
			b = appendFloat(b, r.MaxAbsDiff)
			b = append(b, `,"first_bad":`...)
			b = strconv.AppendInt(b, int64(r.FirstBad), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if c.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, c.Reason)
	}
	if len(c.Want) > 0 {
		// Floats.MarshalJSON's bytes, written in place
		b = append(b, `,"want":[`...)
		b = floats.AppendElems(b, c.Want, false)
		b = append(b, ']')
	}
	return append(b, '}')
}

// outputMessage is the output message of rec's output name. The first
// time, the tensor and its check are encoded in place in the message,
// and what the record keeps of them (outTensor.raw, rec.checkRaw) are
// slices of it: encoded apart and copied in, each output's floats were
// three buffers of their size a run (a tenth of the server's
// allocations per run).
func outputMessage(rec *record, name string) []byte {
	t := rec.Outputs[name]
	c, hasCheck := rec.OutputChecks[name]
	_, checked := rec.checkRaw[name]
	if t != nil && t.raw == nil && !checked {
		n := len(`{"type":"output","name":"","tensor":,"check":}`) + 2*len(name) + jsonRoom(len(t.Data))
		if hasCheck {
			n += jsonRoom(len(c.Want)) + 64*len(c.Ranks)
		}
		b := append(make([]byte, 0, n), `{"type":"output","name":`...)
		b = appendJSONString(b, name)
		b = append(b, `,"tensor":`...)
		at := len(b)
		b = appendTensor(b, t)
		t.raw = b[at:len(b):len(b)] // full: an append to it copies
		if hasCheck {
			b = append(b, `,"check":`...)
			at = len(b)
			b = appendCheck(b, &c)
			if rec.checkRaw == nil {
				rec.checkRaw = map[string][]byte{}
			}
			rec.checkRaw[name] = b[at:len(b):len(b)]
		}
		return append(b, '}')
	}
	tj := tensorJSON(t)
	cj, hasCheck := rec.checkJSON(name)
	b := make([]byte, 0, len(`{"type":"output","name":"","tensor":,"check":}`)+len(name)+len(tj)+len(cj))
	b = append(b, `{"type":"output","name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"tensor":`...)
	b = append(b, tj...)
	if hasCheck {
		b = append(b, `,"check":`...)
		b = append(b, cj...)
	}
	return append(b, '}')
}

// recordJSON is rec's JSON, json.Marshal's bytes, with its outputs and
// output checks spliced in from their one encoding: rec is marshalled
// without them, and they go where json puts them (outputs before
// output_order, output_checks after it). In the bytes json makes, a
// comma directly followed by a quote only begins a key (inside a string
// a quote is escaped), so the keys found here are the record's own; the
// settings' args, before them, hold numbers only.
func recordJSON(rec *record) ([]byte, error) {
	outs, checks := rec.Outputs, rec.OutputChecks
	rec.Outputs, rec.OutputChecks = nil, nil
	bare, err := json.Marshal(rec)
	rec.Outputs, rec.OutputChecks = outs, checks
	if err != nil {
		return nil, err
	}
	const outKey, racesKey = `,"outputs":null,"output_order":`, `,"races":`
	at := bytes.Index(bare, []byte(outKey))
	races := -1
	if at >= 0 {
		races = bytes.Index(bare[at:], []byte(racesKey))
	}
	if races < 0 {
		return nil, fmt.Errorf("run %s: record JSON without outputs or races", rec.ID)
	}
	races += at
	// Sized to fit (the outputs are encoded already, mostly: outputMessage):
	// grown by doublings it copied each output's floats again.
	n := len(bare) + 64
	for name, t := range outs {
		n += len(name) + 8 + len(tensorJSON(t))
	}
	for name := range checks {
		j, _ := rec.checkJSON(name)
		n += len(name) + 8 + len(j)
	}
	b := make([]byte, 0, n)
	b = append(b, bare[:at]...)
	b = append(b, `,"outputs":`...)
	if outs == nil {
		b = append(b, "null"...)
	} else {
		b = appendMap(b, outs, func(name string) []byte { return tensorJSON(outs[name]) })
	}
	b = append(b, bare[at+len(`,"outputs":null`):races]...)
	if len(checks) > 0 {
		b = append(b, `,"output_checks":`...)
		b = appendMap(b, checks, func(name string) []byte { j, _ := rec.checkJSON(name); return j })
	}
	return append(b, bare[races:]...), nil
}

// appendMap appends a JSON object of m's keys in json's order (sorted),
// each value from val.
func appendMap[V any](b []byte, m map[string]V, val func(string) []byte) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = append(b, val(k)...)
	}
	return append(b, '}')
}
