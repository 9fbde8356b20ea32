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
// straight into a buffered writer, as encoding/json formats a float64.
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

// writeFloats writes t's elements as Floats.MarshalJSON does. Formatting
// a float64 the shortest way is about 60 ns here, the whole cost of a
// large output, so a long tensor is formatted in chunks by one goroutine
// per core, a round at a time, and written in order: the same bytes,
// sooner. Each chunk is decoded from the tensor's own dtype bytes into
// its worker's buffer (FloatsAt): a float64 copy of a 16 Mi-element
// output would be 128 MiB kept for nothing.
func writeFloats(w *bufio.Writer, t *emu.Tensor) {
	const chunk = 1 << 15
	n := t.Len()
	w.WriteByte('[')
	workers := runtime.GOMAXPROCS(0)
	if n <= chunk || workers < 2 {
		workers = 1
	}
	type work struct {
		f []float64
		b []byte
	}
	ws := make([]work, workers)
	for k := range ws {
		ws[k].f = make([]float64, min(n, chunk))
	}
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += workers * chunk {
		for k := range ws {
			a := lo + k*chunk
			ws[k].b = ws[k].b[:0]
			if a >= n {
				continue
			}
			f := ws[k].f[:t.FloatsAt(ws[k].f, a)]
			if workers == 1 {
				ws[k].b = formatFloats(ws[k].b, f, a > 0)
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ws[k].b = formatFloats(ws[k].b, f, a > 0)
			}()
		}
		wg.Wait()
		for k := range ws {
			w.Write(ws[k].b)
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
		b = floats.AppendElem(b, v)
	}
	return b
}
