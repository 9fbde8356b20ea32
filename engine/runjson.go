package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
)

// WriteJSON writes res to w as `workbench run --json` prints it: the bytes
// of json.Marshal(res) and a newline, but with the tensors streamed, so
// that no second copy of their elements is made. json.Marshal builds each
// tensor's text, then re-scans and copies it (encoding/json compacts what
// a MarshalJSON method returns), then the whole document again: a run at
// P=8 with 1 Mi FP32 per rank took 5 s and 1.8 GB for its 326 MB of JSON,
// more than ten times the run. Here every element is formatted once,
// straight into a buffered writer, as encoding/json formats a float32 (FP32,
// FP16, BF16) or a float64 (the other dtypes): TensorJSON's bytes.
func (res *RunResult) WriteJSON(w io.Writer) error {
	head := *res
	head.In, head.Out = nil, nil
	b, err := json.Marshal(&head)
	if err != nil {
		return err
	}
	// Inputs and outputs follow entry, a string, in which a quote is
	// always escaped: the first match is the fields themselves.
	const hole = `,"inputs":{},"outputs":{},`
	i := bytes.Index(b, []byte(hole))
	if i < 0 {
		return fmt.Errorf("engine: RunResult JSON lacks its inputs and outputs")
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(b[:i])
	bw.WriteString(`,"inputs":`)
	if err := writeTensors(bw, res.InputOrder, res.In, res.ahead); err != nil {
		return err
	}
	bw.WriteString(`,"outputs":`)
	if err := writeTensors(bw, res.OutputOrder, res.Out, nil); err != nil {
		return err
	}
	bw.WriteByte(',')
	bw.Write(b[i+len(hole):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// tensorNames lists the tensors of order that m holds as MarshalJSON
// writes them (a map: keys sorted, once each).
func tensorNames(order []string, m map[string]*emu.Tensor) []string {
	names := make([]string, 0, len(order))
	for _, k := range order {
		if _, ok := m[k]; ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// tensorHead appends what precedes tensor k's elements in the tensors'
// object: `,` unless k is the first, its key, and `{"dtype":…,"shape":…,
// "data":[`, or `null` for a nil tensor.
func tensorHead(b []byte, first bool, k string, t *emu.Tensor) ([]byte, error) {
	if !first {
		b = append(b, ',')
	}
	var err error
	if b, err = appendValue(b, k); err != nil {
		return b, err
	}
	b = append(b, ':')
	if t == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"dtype":`...)
	if b, err = appendValue(b, t.DType.String()); err != nil {
		return b, err
	}
	shape := t.Shape
	if shape == nil {
		shape = []int{}
	}
	b = append(b, `,"shape":`...)
	if b, err = appendValue(b, shape); err != nil {
		return b, err
	}
	return append(b, `,"data":[`...), nil
}

// tensorTail closes what tensorHead opened for a tensor that is not nil.
const tensorTail = "]}"

// writeTensors writes the tensors named in order as MarshalJSON does (a
// map: keys sorted). ahead, when it holds the start of this very text
// (formatted while the run ran, formatAhead), is written first and the
// rest resumes where it stopped.
func writeTensors(w *bufio.Writer, order []string, m map[string]*emu.Tensor, ahead *aheadText) error {
	names := tensorNames(order, m)
	first, from, open := 0, 0, false
	if ahead.fits(names) {
		w.Write(ahead.buf)
		first, from, open = ahead.tensor, ahead.elem, ahead.open
	} else {
		w.WriteByte('{')
	}
	var head []byte
	for i := first; i < len(names); i++ {
		t := m[names[i]]
		if !open || i > first {
			var err error
			if head, err = tensorHead(head[:0], i == 0, names[i], t); err != nil {
				return err
			}
			w.Write(head)
			if t == nil {
				continue
			}
			from = 0
		}
		writeFloats(w, t, from)
		w.WriteString(tensorTail)
	}
	_, err := w.WriteString("}")
	return err
}

func appendValue(b []byte, v any) ([]byte, error) {
	j, err := json.Marshal(v)
	return append(b, j...), err
}

// chunk is how many elements one formatting step takes: 32 Ki elements
// are under a millisecond of work and some 400 KiB of text.
const chunk = 1 << 15

// formatter formats a tensor's elements as TensorJSON.MarshalJSON does,
// a chunk at a time, decoding each chunk from the tensor's own dtype
// bytes into its scratch space (Float32sAt for FP32, FP16 and BF16,
// FloatsAt for the rest): a float64 copy of a 16 Mi-element output would
// be 128 MiB kept for nothing.
type formatter struct {
	t   *emu.Tensor
	f64 []float64
	f32 []float32
}

func newFormatter(t *emu.Tensor, n int) *formatter {
	if floats.Digits32(t.DType) {
		return &formatter{t: t, f32: make([]float32, n)}
	}
	return &formatter{t: t, f64: make([]float64, n)}
}

// appendChunk appends the elements from lo (at most a scratch space's
// worth), each but the tensor's first after a comma.
func (f *formatter) appendChunk(b []byte, lo int) []byte {
	if f.f64 != nil {
		return floats.AppendElems(b, f.f64[:f.t.FloatsAt(f.f64, lo)], lo > 0)
	}
	return floats.AppendFloat32s(b, f.f32[:f.t.Float32sAt(f.f32, lo)], lo > 0)
}

// maxElemBytes bounds the text of one element and its comma. The widest
// is a negative just below 1e21, written without an exponent as
// encoding/json does there: 21 digits (-100000000000000000000), 22
// characters; a float64 between 1e-6 and 1e-5 with 17 significant digits
// is wider (-0.0000012345678901234567, 25). Past these, the exponent form
// is shorter (-1.1754944e-38).
func (f *formatter) maxElemBytes() int {
	if f.f64 != nil {
		return 26
	}
	return 23
}

// writeFloats writes t's elements from element from on as
// TensorJSON.MarshalJSON does, the first after a comma unless from is 0.
// Formatting the shortest digits is nearly the whole cost of a large
// output (about 15 ns an element of a randn fill by the Go loops, 5 to
// 8 with AVX-512 lanes, floats.BenchmarkAppendElem; BenchmarkRunJSON's
// json1-ns/elem is the whole writer's, one core), so a long
// tensor is formatted in chunks by one goroutine per core while this one
// writes the finished chunks in order: the same bytes, sooner. The chunks
// pass through a ring of two buffers per worker, reused, so memory stays
// a few megabytes whatever the length; a worker waits for its chunk's
// buffer to be written out before refilling it.
func writeFloats(w *bufio.Writer, t *emu.Tensor, from int) {
	n := t.Len() - from
	if n <= 0 {
		return
	}
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers < 2 {
		f := newFormatter(t, min(n, chunk))
		var b []byte
		for lo := from; lo < t.Len(); lo += chunk {
			b = f.appendChunk(b[:0], lo)
			w.Write(b)
		}
		return
	}
	type slot struct {
		b          []byte
		done, free chan struct{}
	}
	ring := make([]slot, 2*workers) // chunk c uses ring[c%len(ring)]
	for i := range ring {
		ring[i].b = make([]byte, 0, chunk*24) // room for 24 bytes an element: no regrowth
		ring[i].done, ring[i].free = make(chan struct{}, 1), make(chan struct{}, 1)
		ring[i].free <- struct{}{}
	}
	// Worker k formats chunks k, k+workers, k+2·workers… in order, into
	// ring slots k and k+workers by turns, so a slot's free token is
	// always for the chunk its one worker takes next. (Chunks handed out
	// from a shared counter let a worker descheduled between taking
	// chunk c and its slot's token find that token taken by chunk
	// c+len(ring), whose text was then written in c's place:
	// TestRunAheadEnds caught outputs that way on a loaded machine.)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newFormatter(t, chunk)
			for c := k; c < chunks; c += workers {
				// The slot's previous chunk, c-len(ring), was this
				// worker's own two turns ago; it is written once the
				// chunks before it are, which are done or in the other
				// workers' hands, so this wait ends.
				sl := &ring[c%len(ring)]
				<-sl.free
				sl.b = f.appendChunk(sl.b[:0], from+c*chunk)
				sl.done <- struct{}{}
			}
		}()
	}
	for c := range chunks {
		s := &ring[c%len(ring)]
		<-s.done
		w.Write(s.b)
		s.free <- struct{}{}
	}
	wg.Wait()
}
