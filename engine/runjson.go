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
	"sync/atomic"

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
	if err := writeTensors(bw, res.InputOrder, res.In); err != nil {
		return err
	}
	bw.WriteString(`,"outputs":`)
	if err := writeTensors(bw, res.OutputOrder, res.Out); err != nil {
		return err
	}
	bw.WriteByte(',')
	bw.Write(b[i+len(hole):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeTensors writes the tensors named in order as MarshalJSON does (a
// map: keys sorted).
func writeTensors(w *bufio.Writer, order []string, m map[string]*emu.Tensor) error {
	names := make([]string, 0, len(order))
	for _, k := range order {
		if _, ok := m[k]; ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	names = slices.Compact(names)
	w.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			w.WriteByte(',')
		}
		if err := writeValue(w, k); err != nil {
			return err
		}
		w.WriteByte(':')
		t := m[k]
		if t == nil {
			w.WriteString("null")
			continue
		}
		w.WriteString(`{"dtype":`)
		if err := writeValue(w, t.DType.String()); err != nil {
			return err
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		w.WriteString(`,"shape":`)
		if err := writeValue(w, shape); err != nil {
			return err
		}
		w.WriteString(`,"data":`)
		writeFloats(w, t)
		w.WriteByte('}')
	}
	_, err := w.WriteString("}")
	return err
}

func writeValue(w *bufio.Writer, v any) error {
	b, err := json.Marshal(v)
	if err == nil {
		_, err = w.Write(b)
	}
	return err
}

// writeFloats writes t's elements as TensorJSON.MarshalJSON does. Formatting
// the shortest digits is nearly the whole cost of a large output (about
// 25 ns an element of a randn fill, floats.BenchmarkAppendElem; the CPU
// time of a --json run is several times the plain run's, BenchmarkRunJSON's
// json1-ns/elem), so a long tensor is
// formatted in chunks by one goroutine per core while this one writes
// the finished chunks in order: the same bytes, sooner. The chunks pass
// through a ring of two buffers per worker, reused, so memory stays a
// few megabytes whatever the length; a worker waits for its chunk's
// buffer to be written out before refilling it. Each chunk is decoded
// from the tensor's own dtype bytes into its worker's buffer (Float32sAt
// for FP32, FP16 and BF16, FloatsAt for the rest): a float64 copy of a
// 16 Mi-element output would be 128 MiB kept for nothing.
func writeFloats(w *bufio.Writer, t *emu.Tensor) {
	const chunk = 1 << 15
	// format writes the chunk from element lo into b, decoding it into
	// the worker's scratch space: float32s for the dtypes written with
	// float32 digits, float64s for the rest.
	type scratch struct {
		f64 []float64
		f32 []float32
	}
	format := func(b []byte, s *scratch, lo int) []byte {
		if s.f64 != nil {
			return floats.AppendElems(b, s.f64[:t.FloatsAt(s.f64, lo)], lo > 0)
		}
		return floats.AppendFloat32s(b, s.f32[:t.Float32sAt(s.f32, lo)], lo > 0)
	}
	newScratch := func(n int) *scratch {
		if floats.Digits32(t.DType) {
			return &scratch{f32: make([]float32, n)}
		}
		return &scratch{f64: make([]float64, n)}
	}
	n := t.Len()
	w.WriteByte('[')
	defer w.WriteByte(']')
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers < 2 {
		s := newScratch(min(n, chunk))
		var b []byte
		for lo := 0; lo < n; lo += chunk {
			b = format(b[:0], s, lo)
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
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newScratch(chunk)
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				// The earliest chunk not yet written is always being
				// formatted or done, so this wait ends.
				sl := &ring[c%len(ring)]
				<-sl.free
				sl.b = format(sl.b[:0], s, c*chunk)
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
