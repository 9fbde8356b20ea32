package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
)

// TestFormatAheadResumes: whatever point formatAhead stops at — before
// the first tensor, after a tensor's head, inside a tensor at a chunk
// seam, between tensors, after the last — WriteJSON writes its text and
// resumes there, and the document is json.Marshal's, byte for byte; the
// text never passes its limit, and its buffer is never moved.
func TestFormatAheadResumes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	randn := func(dt ir.DType, n int) *emu.Tensor {
		d := make([]float64, n)
		for i := range d {
			d[i] = rng.NormFloat64() * 100
		}
		d[0], d[n/2], d[n-1] = math.NaN(), math.Inf(1), math.Inf(-1)
		return emu.NewTensorFunc(dt, []int{n}, func(i int) float64 { return d[i] })
	}
	res := &RunResult{Status: emu.StatusOK, Ranks: 2, Entry: "e",
		In: map[string]*emu.Tensor{
			"x": randn(ir.FP32, 3*chunk+5), // three chunk seams, a short last chunk
			"h": randn(ir.FP16, 7),
			"w": emu.NewTensorFunc(ir.INT32, []int{chunk + 1}, func(i int) float64 { return float64(i * 7919) }), // float64 digits
			// No elements at all, and first (the keys are written in
			// order): the bound on an element's text (maxElemBytes) is
			// wide enough that a tensor with elements fits its last
			// chunk only when the next head fits too, so only one with
			// none can end just before a head that does not.
			"a": emu.Zeros(ir.FP32, 0),
		},
		InputOrder: []string{"x", "w", "h", "a"},
		Out:        map[string]*emu.Tensor{"y": randn(ir.FP32, 9)}, OutputOrder: []string{"y"},
	}
	res.init()
	want, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	names := tensorNames(res.InputOrder, res.In)
	seen := map[string]bool{}
	var limitsTried []int64
	for l := int64(1); l < 1<<22; l = l*5/4 + 1 {
		limitsTried = append(limitsTried, l)
	}
	for _, limit := range append(limitsTried, 1<<30) {
		for _, quit := range []bool{false, true} {
			q := make(chan struct{})
			if quit {
				close(q)
			}
			ts := make([]*emu.Tensor, len(names))
			for i, k := range names {
				ts[i] = res.In[k]
			}
			a := formatAhead(names, ts, limit, nil, q)
			if int64(len(a.buf)) > max(limit, 1) {
				t.Errorf("limit %d: %d bytes of text", limit, len(a.buf))
			}
			if c := aheadCap(names, ts, limit) + aheadSlack; cap(a.buf) != c {
				t.Errorf("limit %d: the buffer moved (cap %d, allocated %d)", limit, cap(a.buf), c)
			}
			switch {
			case a.tensor == len(names):
				seen["all"] = true
			case a.open && a.elem > 0:
				seen["inside"] = true
			case a.open:
				seen["head"] = true
			case a.tensor > 0:
				seen["between"] = true
			default:
				seen["none"] = true
			}
			res.ahead = a
			var got bytes.Buffer
			if err := res.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("limit %d quit %v (stopped at tensor %d element %d, open %v): the document differs from json.Marshal's", limit, quit, a.tensor, a.elem, a.open)
			}
		}
	}
	for _, s := range []string{"none", "head", "inside", "between", "all"} {
		if !seen[s] {
			t.Errorf("no limit stopped formatAhead %s; seen %v", s, seen)
		}
	}
	// Text for other tensors than the document's is not used.
	res.ahead = &aheadText{names: []string{"other"}, buf: []byte(`{"other":null`), tensor: 1}
	var got bytes.Buffer
	if err := res.WriteJSON(&got); err != nil || !bytes.Equal(got.Bytes(), want) {
		t.Errorf("a foreign ahead text was written (err %v)", err)
	}
}

// TestRunAheadEnds: a run with JSONAhead leaves no formatter running when
// it ends ok, by its timeout (cut off while its inputs are being
// formatted) or by cancellation, and its document is json.Marshal's.
func TestRunAheadEnds(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("JSONAhead formats nothing on one core")
	}
	src, err := os.ReadFile("emu/testdata/bench.py")
	if err != nil {
		t.Fatal(err)
	}
	// Tiles of 64 elements: statements enough for the clock to be checked.
	opts := Options{Entry: "build_bench_mesh(8, 65536, 64).mesh_host", Ranks: 8}
	mod := Load(context.Background(), "bench.py", src, opts)
	prog, diags := mod.Compile(context.Background(), opts.Entry, opts)
	if prog.Entry == "" {
		t.Fatalf("compile: %v", diags)
	}
	run := func(ctx context.Context, timeout time.Duration) *RunResult {
		o := RunOptions{Options: opts, Fill: emu.FillRandn, Seed: 1, JSONAhead: limits.JSONAhead}
		o.Budget.Timeout = timeout
		res := prog.Run(ctx, o)
		// Run waits for the formatter, so none may be left the moment it
		// returns.
		stacks := make([]byte, 1<<20)
		stacks = stacks[:runtime.Stack(stacks, true)]
		if bytes.Contains(stacks, []byte("engine.formatAhead")) {
			t.Errorf("status %s: a formatter still runs after the run:\n%s", res.Status, stacks)
		}
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := res.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if g, w := got.Bytes(), append(want, '\n'); !bytes.Equal(g, w) {
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Errorf("status %s: the document differs from json.Marshal's at byte %d of %d (ahead: tensor %d element %d open %v, %d bytes):\n got %.120q\nwant %.120q",
				res.Status, i, len(w), res.ahead.tensor, res.ahead.elem, res.ahead.open, len(res.ahead.buf), g[max(i-40, 0):], w[max(i-40, 0):])
		}
		return res
	}
	run(context.Background(), 0) // the first run faults its pages in
	start := time.Now()
	if res := run(context.Background(), 0); res.Status != emu.StatusOK || res.ahead == nil || res.ahead.buf == nil {
		t.Fatalf("status %s, ahead %v", res.Status, res.ahead != nil)
	}
	whole := time.Since(start)
	cut := 0
	for _, f := range []time.Duration{4, 8, 16, 1000} {
		res := run(context.Background(), whole/f)
		if res.Status == emu.StatusTimeout && res.ahead != nil {
			cut++
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(whole/f, cancel)
		run(ctx, 0)
		cancel()
	}
	if cut == 0 {
		t.Errorf("no timeout cut a run off while its inputs were being formatted (a whole run %v)", whole)
	}
}

// TestMaxElemBytes: maxElemBytes bounds the text of every element with
// its comma, and is met by the widest: the bound formatAhead keeps its
// text within the json-ahead limit by. Beside the widest cases it tries
// a million random float32 and float64 bit patterns.
func TestMaxElemBytes(t *testing.T) {
	f32 := newFormatter(emu.Zeros(ir.FP32, 1), 1).maxElemBytes()
	f64 := newFormatter(emu.Zeros(ir.INT64, 1), 1).maxElemBytes() // the integer dtypes' float64s
	width32 := func(v float32) int { return len(floats.AppendFloat32s(nil, []float32{v}, true)) }
	width64 := func(v float64) int { return len(floats.AppendElems(nil, []float64{v}, true)) }
	widest32 := -math.Nextafter32(1e21, 0) // written without an exponent, 21 digits
	widest64 := -1.2345678901234567e-6     // 17 significant digits after 0.00000
	if w := width32(widest32); w != f32 {
		t.Errorf("float32 %v takes %d bytes with its comma; maxElemBytes says %d", widest32, w, f32)
	}
	if w := width64(widest64); w != f64 {
		t.Errorf("float64 %v takes %d bytes with its comma; maxElemBytes says %d", widest64, w, f64)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		v32 := math.Float32frombits(rng.Uint32())
		if w := width32(v32); w > f32 {
			t.Fatalf("float32 %v takes %d bytes with its comma, more than maxElemBytes' %d", v32, w, f32)
		}
		v64 := math.Float64frombits(rng.Uint64())
		if w := width64(v64); w > f64 {
			t.Fatalf("float64 %v takes %d bytes with its comma, more than maxElemBytes' %d", v64, w, f64)
		}
	}
}
