package emu

import (
	"strconv"
	"unsafe"

	"pldworkbench/engine/trace"
)

// evAlloc hands out the small values a traced event points to (a notify's
// Peer, Before and After, a wait's Value and ReleasedBy, the cell's name)
// from chunks, instead of one allocation each: a traced barrier made four
// or five tiny objects per signal op, and the garbage collector's work
// grew with their number. A chunk is only appended to, never written again
// where a value was handed out, so every pointer and string stays valid
// and unchanged for as long as the sink keeps the event.
type evAlloc struct {
	ints  []int
	i64s  []int64
	refs  []trace.Ref
	bytes []byte
}

// evChunk is how many values a chunk holds; evNameChunk the bytes of a
// chunk of names.
const evChunk, evNameChunk = 256, 4096

func (a *evAlloc) int(v int) *int {
	if len(a.ints) == cap(a.ints) {
		a.ints = make([]int, 0, evChunk)
	}
	a.ints = append(a.ints, v)
	return &a.ints[len(a.ints)-1]
}

func (a *evAlloc) int64(v int64) *int64 {
	if len(a.i64s) == cap(a.i64s) {
		a.i64s = make([]int64, 0, evChunk)
	}
	a.i64s = append(a.i64s, v)
	return &a.i64s[len(a.i64s)-1]
}

func (a *evAlloc) ref(v trace.Ref) *trace.Ref {
	if len(a.refs) == cap(a.refs) {
		a.refs = make([]trace.Ref, 0, evChunk)
	}
	a.refs = append(a.refs, v)
	return &a.refs[len(a.refs)-1]
}

// cellName is cellName(n, offs), its bytes in a chunk.
func (a *evAlloc) cellName(n *node, offs []int) string {
	need := len(n.args[0].name) + 2 + len(offs)*24
	if cap(a.bytes)-len(a.bytes) < need {
		a.bytes = make([]byte, 0, max(evNameChunk, need))
	}
	start := len(a.bytes)
	a.bytes = appendCellName(a.bytes, n, offs)
	s := a.bytes[start:]
	return unsafe.String(unsafe.SliceData(s), len(s))
}

// appendCellName appends the name of the cell a notify or wait at n
// addresses to b: "signal[2, 0]".
func appendCellName(b []byte, n *node, offs []int) []byte {
	b = append(b, n.args[0].name...)
	b = append(b, '[')
	for i, o := range offs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(o), 10)
	}
	return append(b, ']')
}
