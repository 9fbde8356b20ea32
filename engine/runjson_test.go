package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
)

// TestWriteJSONMatchesMarshal: the streamed `run --json` output is the
// bytes of json.Marshal and a newline, its elements those encoding/json
// writes for a Go float32 (FP32, FP16, BF16) or float64 (checkDigits), for runs that end ok, in a race, a
// deadlock, a run-time or a compile error, with every fill, and for
// tensors holding NaN and the infinities; with the inputs' text
// formatted during the run (JSONAhead) too.
func TestWriteJSONMatchesMarshal(t *testing.T) {
	files, _ := filepath.Glob("testdata/programs/*.py")
	bugs, _ := filepath.Glob("../kernels/*_bug.py")
	files = append(files, bugs...)
	files = append(files, "testdata/errors/for_missing_colon.py")
	if len(files) < 20 {
		t.Fatalf("only %d programs", len(files))
	}
	statuses := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, fill := range []emu.Fill{emu.FillIndex, emu.FillRandn, "randn ahead"} {
			opts := engine.RunOptions{Fill: fill}
			if fill == "randn ahead" {
				// The inputs' text formatted while the run runs.
				opts = engine.RunOptions{Fill: emu.FillRandn, JSONAhead: limits.JSONAhead}
			}
			res := engine.Load(context.Background(), f, src, opts.Options).Run(context.Background(), opts)
			statuses[string(res.Status)] = true
			if f == files[0] && fill == emu.FillRandn {
				// Elements JSON has no number for.
				for _, o := range res.Out {
					if d := o.Floats(); len(d) >= 3 {
						d[0], d[1], d[2] = math.NaN(), math.Inf(1), math.Inf(-1)
					}
				}
			}
			want, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			var got bytes.Buffer
			if err := res.WriteJSON(&got); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			checkDigits(t, got.Bytes(), res)
			if !bytes.Equal(got.Bytes(), want) {
				i := 0
				for i < len(want) && i < got.Len() && want[i] == got.Bytes()[i] {
					i++
				}
				t.Errorf("%s fill %s: streamed JSON differs at byte %d of %d:\n got %.80q\nwant %.80q", f, fill, i, len(want), got.Bytes()[i:], want[i:])
			}
		}
	}
	for _, s := range []string{"ok", "race", "deadlock", "compile_error"} {
		if !statuses[s] {
			t.Errorf("no run ended %s; statuses %v", s, statuses)
		}
	}
}

// TestWriteJSONLongTensor: a tensor long enough to be formatted in
// parallel chunks comes out as json.Marshal writes it, chunk seams and
// all (a length that is no multiple of the chunk, NaN and the infinities
// among the numbers).
func TestWriteJSONLongTensor(t *testing.T) {
	src, err := os.ReadFile("testdata/programs/01_hello_rank.py")
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), "01_hello_rank.py", src, engine.Options{}).Run(context.Background(), engine.RunOptions{})
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]float64, 13*(1<<15)+17)
	for i := range data {
		data[i] = float64(float32(rng.NormFloat64() * 1e3))
	}
	data[1<<15-1], data[1<<15], data[len(data)-1] = math.NaN(), math.Inf(1), math.Inf(-1)
	if len(res.OutputOrder) == 0 {
		t.Fatalf("status %s, no outputs", res.Status)
	}
	o := res.Out[res.OutputOrder[0]]
	res.Out[res.OutputOrder[0]] = emu.NewTensor(o.DType, []int{len(data)}, data)
	want, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	// One worker, and more workers than this machine's cores: the ring
	// of chunk buffers (two per worker) wraps at least once each time.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		var got bytes.Buffer
		if err := res.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), append(want, '\n')) {
			t.Errorf("GOMAXPROCS=%d: streamed JSON of %d elements differs from json.Marshal's (%d vs %d bytes)", procs, len(data), got.Len(), len(want)+1)
		}
	}
}

// TestWriteJSONStreamsBytes: outputs in their dtype's bytes (as a run hands
// them back) are streamed straight from those bytes — the tensors are
// still in the byte form afterwards, no float64 copy kept — and come out
// as json.Marshal writes them, for every float dtype and an integer one,
// at lengths on both sides of the parallel chunk.
func TestWriteJSONStreamsBytes(t *testing.T) {
	src, err := os.ReadFile("testdata/programs/01_hello_rank.py")
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), "01_hello_rank.py", src, engine.Options{}).Run(context.Background(), engine.RunOptions{})
	if len(res.OutputOrder) == 0 {
		t.Fatalf("status %s, no outputs", res.Status)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []ir.DType{ir.FP32, ir.FP16, ir.BF16, ir.INT32} {
		for _, n := range []int{1, 1<<15 + 3, 3*(1<<15) + 5} {
			raw := make([]byte, n*dt.Bytes())
			for i := range raw {
				raw[i] = byte(rng.Uint32())
			}
			tn := emu.NewTensorBytes(dt, []int{n}, raw)
			res.Out[res.OutputOrder[0]] = tn
			var got bytes.Buffer
			if err := res.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			if !tn.IsBytes() {
				t.Errorf("%s n=%d: WriteJSON converted the tensor to float64s", dt, n)
			}
			checkDigits(t, got.Bytes(), res)
			want, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), append(want, '\n')) {
				t.Errorf("%s n=%d: streamed JSON differs from json.Marshal's (%d vs %d bytes)", dt, n, got.Len(), len(want)+1)
			}
		}
	}
}

// checkDigits holds every tensor in doc, a run's JSON, to encoding/json's
// own digits: each element of an FP32, FP16 or BF16 tensor as
// json.Marshal writes the Go float32 of it, of any other dtype as it
// writes the float64 (NaN and the infinities as Floats' strings).
func checkDigits(t *testing.T, doc []byte, res *engine.RunResult) {
	t.Helper()
	var w struct {
		Inputs, Outputs map[string]struct {
			DType string          `json:"dtype"`
			Data  json.RawMessage `json:"data"`
		}
	}
	if err := json.Unmarshal(doc, &w); err != nil {
		t.Fatal(err)
	}
	for _, side := range []struct {
		wire map[string]struct {
			DType string          `json:"dtype"`
			Data  json.RawMessage `json:"data"`
		}
		ts map[string]*emu.Tensor
	}{{w.Inputs, res.In}, {w.Outputs, res.Out}} {
		for name, wt := range side.wire {
			tn := side.ts[name]
			if tn == nil {
				continue
			}
			want := []byte{'['}
			for i := range tn.Len() {
				if i > 0 {
					want = append(want, ',')
				}
				v := tn.Float(i)
				var js []byte
				switch {
				case math.IsNaN(v):
					js = []byte(`"NaN"`)
				case math.IsInf(v, 0):
					js = []byte(map[bool]string{true: `"Infinity"`, false: `"-Infinity"`}[v > 0])
				case wt.DType == "FP32" || wt.DType == "FP16" || wt.DType == "BF16":
					js, _ = json.Marshal(float32(v))
				default:
					js, _ = json.Marshal(v)
				}
				want = append(want, js...)
			}
			want = append(want, ']')
			if !bytes.Equal(wt.Data, want) {
				t.Fatalf("%s (%s): data %.80s, encoding/json's %.80s", name, wt.DType, wt.Data, want)
			}
		}
	}
}
