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
// comes first; but the inputs are known as soon as the fill writes them,
// and the fill and the emulator keep one core busy, so on a machine with
// two the inputs' text is made in time that costs no wall clock, up to
// a budget: at P = 8 and 1 Mi FP32 per rank the fill and the run take
// about 140 ms, in which one core formats some 6 of the inputs' 8 Mi
// elements, nearly half of the --json run's formatting. With the
// float32 writer's vector lanes (floats.AppendFloat32s) it keeps up with
// the fill, and the budget is what ends it: a randn fill's text reaches
// limits.JSONAhead at 6.1 Mi elements; an index fill's 8 Mi fit.
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

// fillProgress is how far the fill of a run's inputs got (inputFill.run):
// the elements of a tensor below its mark are written and final. The
// marks are made before the fill starts and only read after.
type fillProgress struct {
	marks map[*emu.Tensor]*atomic.Int64
	wake  chan struct{} // a nudge after each chunk; room for one
}

func newFillProgress(fills inputFill) *fillProgress {
	p := &fillProgress{marks: map[*emu.Tensor]*atomic.Int64{}, wake: make(chan struct{}, 1)}
	for _, x := range fills {
		p.marks[x.t] = new(atomic.Int64)
	}
	return p
}

// filled says the elements of t below hi are written.
func (p *fillProgress) filled(t *emu.Tensor, hi int) {
	if p == nil {
		return
	}
	p.marks[t].Store(int64(hi))
	select {
	case p.wake <- struct{}{}:
	default: // a nudge is pending: the reader will look again
	}
}

// wait blocks until the elements of t below hi are written, or quit is
// closed (false). A tensor the fill does not write is ready.
func (p *fillProgress) wait(t *emu.Tensor, hi int, quit <-chan struct{}) bool {
	if p == nil || p.marks[t] == nil {
		return true
	}
	for p.marks[t].Load() < int64(hi) {
		select {
		case <-p.wake:
		case <-quit:
			return false
		}
	}
	return true
}

// startAhead formats the inputs' text of res on another goroutine, into
// at most limit bytes, following the fill's progress p (nil: the inputs
// are all made), until stop is called; stop waits for it to end (within
// one chunk, under a millisecond) and sets res.ahead. Nothing is started
// on a single core, where it would only take turns with the run. The
// inputs are only read: the run shares their bytes and never writes them
// (cloneInputs).
func startAhead(res *RunResult, limit int64, p *fillProgress) (stop func()) {
	if limit <= 0 || runtime.GOMAXPROCS(0) < 2 || len(res.InputOrder) == 0 {
		return func() {}
	}
	names := tensorNames(res.InputOrder, res.In)
	ts := make([]*emu.Tensor, len(names))
	for i, k := range names {
		ts[i] = res.In[k]
	}
	quit := make(chan struct{})
	done := make(chan *aheadText, 1)
	go func() { done <- formatAhead(names, ts, limit, p, quit) }()
	return func() {
		close(quit)
		res.ahead = <-done
	}
}

// aheadCap is the buffer formatAhead allocates for the tensors ts: limit,
// or less when their text is sure to be shorter.
func aheadCap(names []string, ts []*emu.Tensor, limit int64) int {
	need := int64(1)
	for i, k := range names {
		need += int64(len(k)) + 64 // key, dtype, shape, brackets
		if t := ts[i]; t != nil {
			need += int64(16+len(t.Shape)*20) + int64(t.Len())*int64(newFormatter(t, 0).maxElemBytes())
		}
		if need >= limit {
			return int(limit)
		}
	}
	return int(need)
}

// aheadSlack is the room formatAhead's buffer has past its text's
// bound: at least what floats.AppendFloat32s (640 bytes, a batch's) and
// floats.AppendElems (64) want free past what they write.
const aheadSlack = 1 << 10

// formatAhead formats the tensors ts, named names, as writeTensors does,
// a chunk at a time once the fill p has written it, until the next chunk
// might not fit in limit bytes or quit is closed. The buffer is
// allocated once, with aheadSlack bytes past the text's bound, so that
// the formatters' scratch space past the text (floats.AppendFloat32s
// wants room for a batch) never makes append move it: its pages are
// only touched as the text fills them.
func formatAhead(names []string, ts []*emu.Tensor, limit int64, p *fillProgress, quit <-chan struct{}) *aheadText {
	room := aheadCap(names, ts, limit)
	a := &aheadText{names: names, buf: make([]byte, 0, room+aheadSlack)}
	a.buf = append(a.buf, '{')
	for i, k := range names {
		t := ts[i]
		b, err := tensorHead(a.buf, i == 0, k, t)
		if err != nil || len(b) > room || stopped(quit) {
			return a // the head is dropped: a.buf's length is unchanged
		}
		a.buf, a.tensor, a.elem, a.open = b, i, 0, t != nil
		if t == nil {
			a.tensor++
			continue
		}
		f := newFormatter(t, chunk)
		for lo := 0; lo < t.Len(); lo += chunk {
			hi := min(lo+chunk, t.Len())
			if len(a.buf)+(hi-lo)*f.maxElemBytes() > room || !p.wait(t, hi, quit) || stopped(quit) {
				return a
			}
			a.buf = f.appendChunk(a.buf, lo)
			a.elem = hi
		}
		if len(a.buf)+len(tensorTail) > room {
			return a
		}
		a.buf = append(a.buf, tensorTail...)
		a.tensor, a.elem, a.open = i+1, 0, false
	}
	return a
}

func stopped(quit <-chan struct{}) bool {
	select {
	case <-quit:
		return true
	default:
		return false
	}
}
