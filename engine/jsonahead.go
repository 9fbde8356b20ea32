package engine

import (
	"runtime"
	"slices"
	"sync/atomic"

	"pldworkbench/engine/emu"
)

// aheadText is the start of a run's "inputs" object as WriteJSON writes
// it, formatted while the emulator ran (RunOptions.JSONAhead): buf holds
// `{`, the tensors before names[tensor] whole, and, when open, the head
// of names[tensor] and its elements before elem. WriteJSON writes buf and
// formats the rest, so the bytes are those without it.
//
// The document cannot be written while the run goes on, since its status
// comes first; but the inputs are known before the run starts and the
// emulator keeps one core busy, so on a machine with two the inputs'
// text costs no wall time, up to a budget: at P = 8 and 1 Mi FP32 per
// rank the run is some 150 ms and the inputs' 8 Mi elements about 200 ms
// of one core's formatting, half of the --json run's work.
type aheadText struct {
	names        []string // the input tensors in the document's order
	buf          []byte
	tensor, elem int
	open         bool
}

// fits reports whether a holds the start of the tensors named names.
func (a *aheadText) fits(names []string) bool {
	return a != nil && slices.Equal(a.names, names)
}

// startAhead formats the inputs' text of res on another goroutine, into
// at most limit bytes, until stop is called; stop waits for it to end
// (within one chunk, under a millisecond) and sets res.ahead. Nothing is
// started on a single core, where it would only take turns with the run.
// The inputs are only read: the run shares their bytes and never writes
// them (cloneInputs).
func startAhead(res *RunResult, limit int64) (stop func()) {
	if limit <= 0 || runtime.GOMAXPROCS(0) < 2 || len(res.InputOrder) == 0 {
		return func() {}
	}
	names := tensorNames(res.InputOrder, res.In)
	var quit atomic.Bool
	done := make(chan *aheadText, 1)
	go func() { done <- formatAhead(names, res.In, limit, &quit) }()
	return func() {
		quit.Store(true)
		res.ahead = <-done
	}
}

// aheadCap is the buffer formatAhead allocates for the tensors named
// names: limit, or less when their text is sure to be shorter.
func aheadCap(names []string, m map[string]*emu.Tensor, limit int64) int {
	need := int64(1)
	for _, k := range names {
		need += int64(len(k)) + 64 // key, dtype, shape, brackets
		if t := m[k]; t != nil {
			need += int64(16+len(t.Shape)*20) + int64(t.Len())*int64(newFormatter(t, 0).maxElemBytes())
		}
		if need >= limit {
			return int(limit)
		}
	}
	return int(need)
}

// formatAhead formats the tensors named names as writeTensors does, a
// chunk at a time, until the next chunk might not fit in limit bytes or
// quit is set. The buffer is allocated once, at its cap: its pages are
// only touched as the text fills them.
func formatAhead(names []string, m map[string]*emu.Tensor, limit int64, quit *atomic.Bool) *aheadText {
	a := &aheadText{names: names, buf: make([]byte, 0, aheadCap(names, m, limit))}
	a.buf = append(a.buf, '{')
	for i, k := range names {
		t := m[k]
		b, err := tensorHead(a.buf, i == 0, k, t)
		if err != nil || len(b) > cap(a.buf) || quit.Load() {
			return a // the head is dropped: a.buf's length is unchanged
		}
		a.buf, a.tensor, a.elem, a.open = b, i, 0, t != nil
		if t == nil {
			a.tensor++
			continue
		}
		f := newFormatter(t, chunk)
		for lo := 0; lo < t.Len(); lo += chunk {
			if quit.Load() || len(a.buf)+min(chunk, t.Len()-lo)*f.maxElemBytes() > cap(a.buf) {
				return a
			}
			a.buf = f.appendChunk(a.buf, lo)
			a.elem = min(lo+chunk, t.Len())
		}
		if len(a.buf)+len(tensorTail) > cap(a.buf) {
			return a
		}
		a.buf = append(a.buf, tensorTail...)
		a.tensor, a.elem, a.open = i+1, 0, false
	}
	return a
}
