package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"sync"
)

// WriteJSON writes res to w as `workbench run --json` prints it: the bytes
// of json.Marshal(res) and a newline, but with the tensors streamed, so
// that no second copy of their elements is made. json.Marshal builds each
// tensor's text, then re-scans and copies it (encoding/json compacts what
// a MarshalJSON method returns), then the whole document again: a run at
// P=8 with 1 Mi FP32 per rank took 5 s and 1.8 GB for its 326 MB of JSON,
// more than ten times the run. Here every element is formatted once,
// straight into a buffered writer, as encoding/json formats a float64.
func (res *RunResult) WriteJSON(w io.Writer) error {
	head := *res
	head.Inputs, head.Outputs = nil, nil
	b, err := json.Marshal(&head)
	if err != nil {
		return err
	}
	// Inputs and outputs follow entry, a string, in which a quote is
	// always escaped: the first match is the fields themselves.
	const hole = `,"inputs":null,"outputs":null,`
	i := bytes.Index(b, []byte(hole))
	if i < 0 {
		return fmt.Errorf("engine: RunResult JSON lacks its inputs and outputs")
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(b[:i])
	bw.WriteString(`,"inputs":`)
	if err := writeTensors(bw, res.Inputs); err != nil {
		return err
	}
	bw.WriteString(`,"outputs":`)
	if err := writeTensors(bw, res.Outputs); err != nil {
		return err
	}
	bw.WriteByte(',')
	bw.Write(b[i+len(hole):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeTensors writes a map of tensors as encoding/json does: keys sorted.
func writeTensors(w *bufio.Writer, m map[string]*TensorJSON) error {
	if m == nil {
		_, err := w.WriteString("null")
		return err
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
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
		if err := writeValue(w, t.DType); err != nil {
			return err
		}
		w.WriteString(`,"shape":`)
		if err := writeValue(w, t.Shape); err != nil {
			return err
		}
		w.WriteString(`,"data":`)
		writeFloats(w, t.Data)
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

// writeFloats writes f as Floats.MarshalJSON does. Formatting a float64
// the shortest way is about 60 ns here, the whole cost of a large output,
// so a long tensor is formatted in chunks by one goroutine per core, a
// round at a time, and written in order: the same bytes, sooner.
func writeFloats(w *bufio.Writer, f []float64) {
	const chunk = 1 << 15
	w.WriteByte('[')
	workers := runtime.GOMAXPROCS(0)
	if len(f) <= chunk || workers < 2 {
		w.Write(formatFloats(make([]byte, 0, 24*min(len(f), chunk)), f, false))
		w.WriteByte(']')
		return
	}
	bufs := make([][]byte, workers)
	var wg sync.WaitGroup
	for lo := 0; lo < len(f); lo += workers * chunk {
		for k := range workers {
			a := lo + k*chunk
			if a >= len(f) {
				bufs[k] = bufs[k][:0]
				continue
			}
			b := min(a+chunk, len(f))
			wg.Add(1)
			go func() {
				defer wg.Done()
				bufs[k] = formatFloats(bufs[k][:0], f[a:b], a > 0)
			}()
		}
		wg.Wait()
		for _, b := range bufs {
			w.Write(b)
		}
	}
	w.WriteByte(']')
}

// formatFloats appends the elements of f, comma-separated, with a comma
// first when lead is set.
func formatFloats(b []byte, f []float64, lead bool) []byte {
	for i, v := range f {
		if i > 0 || lead {
			b = append(b, ',')
		}
		b = appendElem(b, v)
	}
	return b
}

// appendElem appends one tensor element as Floats writes it: a number, or
// "NaN", "Infinity", "-Infinity" as strings.
func appendElem(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	return appendFloat(b, v)
}
