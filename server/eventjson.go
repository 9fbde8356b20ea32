package server

import (
	"encoding/json"
	"strconv"

	"pldworkbench/engine/trace"
)

// appendEvent appends e's JSON, the bytes json.Marshal makes of it
// (TestEventJSON holds it to that over every field and every kernel's
// events), written out by hand: encoding each of a run's events through
// reflection was the largest part of the server's own work per event.
// A trace.Event field it does not know fails TestEventJSONFields.
func appendEvent(b []byte, e *trace.Event) []byte {
	b = append(b, `{"rank":`...)
	b = strconv.AppendInt(b, int64(e.Rank), 10)
	if e.Block != 0 {
		b = append(b, `,"block":`...)
		b = strconv.AppendInt(b, int64(e.Block), 10)
	}
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"op":`...)
	b = appendJSONString(b, e.Op)
	if e.Cat != "" {
		b = append(b, `,"cat":`...)
		b = appendJSONString(b, e.Cat)
	}
	if e.Callee != "" {
		b = append(b, `,"callee":`...)
		b = appendJSONString(b, e.Callee)
	}
	if e.Blocks != 0 {
		b = append(b, `,"blocks":`...)
		b = strconv.AppendInt(b, int64(e.Blocks), 10)
	}
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(e.Line), 10)
	b = append(b, `,"col":`...)
	b = strconv.AppendInt(b, int64(e.Col), 10)
	b = append(b, `,"end_line":`...)
	b = strconv.AppendInt(b, int64(e.EndLine), 10)
	b = append(b, `,"end_col":`...)
	b = strconv.AppendInt(b, int64(e.EndCol), 10)
	if e.Peer != nil {
		b = append(b, `,"peer":`...)
		b = strconv.AppendInt(b, int64(*e.Peer), 10)
	}
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.Bytes, 10)
	if e.Cell != "" {
		b = append(b, `,"cell":`...)
		b = appendJSONString(b, e.Cell)
	}
	for _, f := range [...]struct {
		name string
		v    *int64
	}{{`,"before":`, e.Before}, {`,"after":`, e.After}, {`,"value":`, e.Value}} {
		if f.v != nil {
			b = append(b, f.name...)
			b = strconv.AppendInt(b, *f.v, 10)
		}
	}
	if e.ReleasedBy != nil {
		b = append(b, `,"released_by":{"rank":`...)
		b = strconv.AppendInt(b, int64(e.ReleasedBy.Rank), 10)
		b = append(b, `,"seq":`...)
		b = strconv.AppendInt(b, e.ReleasedBy.Seq, 10)
		b = append(b, '}')
	}
	b = append(b, `,"start_ns":`...)
	b = strconv.AppendInt(b, e.StartNs, 10)
	b = append(b, `,"end_ns":`...)
	b = strconv.AppendInt(b, e.EndNs, 10)
	return append(b, '}')
}

// appendJSONString appends s quoted as json.Marshal quotes it: printable
// ASCII other than the characters it escapes goes as it is, anything else
// through json.Marshal itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string: cannot fail
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
