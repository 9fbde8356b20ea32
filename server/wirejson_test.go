package server

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/tutorials/check"
)

// wireRecord is a record with the outputs the hand-written encoders must
// get right: whole and capped tensors, NaN and the infinities, integers,
// an empty tensor, output checks on some outputs only, and a name json
// escapes.
func wireRecord() *record {
	nan, inf := math.NaN(), math.Inf(1)
	outs := map[string]*floats.TensorJSON{
		"y":     {DType: "FP32", Shape: []int{2, 3}, Data: []float64{1, -2.5, float64(float32(1e-7)), float64(float32(3e21)), nan, -inf}},
		"y64":   {DType: "FP64", Shape: []int{3}, Data: []float64{0.1, float64(float32(0.1)), 1e-7}},
		"big":   {DType: "FP32", Shape: []int{2, 400}, Data: make([]float64, 800)},
		"flat":  {DType: "INT32", Shape: []int{500}, Data: make([]float64, 500)},
		"empty": {DType: "FP16", Shape: []int{0}, Data: []float64{}},
		"a<&>b": {DType: "FP32", Shape: []int{1}, Data: []float64{nan}},
	}
	for i := range outs["big"].Data {
		outs["big"].Data[i] = float64(float32(float64(i) / 7))
	}
	order := []string{"y", "y64", "empty", "a<&>b", "big", "flat"}
	return &record{ID: "abc", Settings: Settings{Step: 8, Ranks: 2, Args: map[string]float64{"races": 1, "outputs": 2}},
		Status: "ok", Ranks: 2, Entry: "main",
		Outputs:     capOutputs(order, outs, 700, 16),
		OutputOrder: order,
		OutputChecks: map[string]check.OutputCheck{
			"y":     {Pass: false, Ranks: []check.RankCheck{{Rank: 1, FirstBad: 2}, {Rank: 0, Pass: true, MaxAbsDiff: floats.Float(inf), FirstBad: -1}, {Rank: 2, MaxAbsDiff: 3.5e-7}}, Want: floats.Floats{1, nan, 2, 0.1, -1.2345678901234567e-300, 1e21, 5e-324, 123456.789, -0.5, 3.4e38, 1e-7, 2.5, 17, 1e16, 99.99, -7.25, 1.0 / 3, inf, -inf, 4.165827}},
			"big":   {Pass: true, Reason: "reshaped <x>"},
			"empty": {Pass: true, Ranks: []check.RankCheck{}, Want: floats.Floats{}},
		},
		Races: []emu.Race{}, Diagnostics: nil, Events: 12, Created: "now"}
}

// TestWireJSON: the hand-written encoders make json.Marshal's bytes: a
// tensor against json.Marshal of its fields (its FP32 data as Go
// float32s, FP64 as float64s), an output message against
// json.Marshal of outputMsg, a record against json.Marshal of it, with
// and without output checks and outputs.
func TestWireJSON(t *testing.T) {
	rec := wireRecord()
	truncated := 0
	if n := reflect.TypeOf(outTensor{}).NumField(); n != 5 {
		t.Fatalf("outTensor has %d fields; the tensor below is written with 5 (TensorJSON, FullShape, Truncated, Stats, raw)", n)
	}
	for name, o := range rec.Outputs {
		// Its fields by encoding/json, the data as the Go float32s of an
		// FP32, FP16 or BF16 tensor, float64s otherwise, NaN and the
		// infinities as Floats' strings.
		data := []byte{'['}
		for i, v := range o.Data {
			if i > 0 {
				data = append(data, ',')
			}
			var js []byte
			switch {
			case math.IsNaN(v):
				js = []byte(`"NaN"`)
			case math.IsInf(v, 1):
				js = []byte(`"Infinity"`)
			case math.IsInf(v, -1):
				js = []byte(`"-Infinity"`)
			case o.DType == "FP32" || o.DType == "FP16" || o.DType == "BF16":
				js, _ = json.Marshal(float32(v))
			default:
				js, _ = json.Marshal(v)
			}
			data = append(data, js...)
		}
		want, err := json.Marshal(struct {
			DType     string          `json:"dtype"`
			Shape     []int           `json:"shape"`
			Data      json.RawMessage `json:"data"`
			FullShape []int           `json:"full_shape,omitempty"`
			Truncated bool            `json:"truncated,omitempty"`
			Stats     tensorStats     `json:"stats"`
		}{o.DType, o.Shape, append(data, ']'), o.FullShape, o.Truncated, o.Stats})
		if err != nil {
			t.Fatal(err)
		}
		if got := appendTensor(nil, o); !bytes.Equal(got, want) {
			t.Errorf("tensor %s:\n got %s\nwant %s", name, got, want)
		}
		if o.Truncated {
			truncated++
		}
	}
	if truncated == 0 {
		t.Fatal("no output was capped: the test covers less than it says")
	}
	for _, name := range rec.OutputOrder {
		m := outputMsg{Type: "output", Name: name, Tensor: rec.Outputs[name]}
		if c, ok := rec.OutputChecks[name]; ok {
			m.Check = &c
		}
		if got, want := outputMessage(rec, name), mustJSON(m); !bytes.Equal(got, want) {
			t.Errorf("output message %s:\n got %s\nwant %s", name, got, want)
		}
	}
	// The first output messages encode the tensors and checks in place;
	// later ones, and the record, take those bytes.
	fresh := wireRecord()
	for _, name := range fresh.OutputOrder {
		first := outputMessage(fresh, name)
		if again := outputMessage(fresh, name); !bytes.Equal(first, again) {
			t.Errorf("output message %s again:\n got %s\nwant %s", name, again, first)
		}
	}
	if got, err := recordJSON(fresh); err != nil || !bytes.Equal(got, mustJSON(wireRecord())) {
		t.Errorf("record after its output messages: %v\n got %s\nwant %s", err, got, mustJSON(wireRecord()))
	}
	for _, tc := range []struct {
		name string
		edit func(*record)
	}{
		{"full", func(*record) {}},
		{"no checks", func(r *record) { r.OutputChecks = nil }},
		{"no outputs", func(r *record) { r.Outputs, r.OutputOrder, r.OutputChecks = map[string]*outTensor{}, []string{}, nil }},
		{"nil outputs", func(r *record) { r.Outputs, r.OutputChecks = nil, nil }},
	} {
		r := wireRecord()
		tc.edit(r)
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := recordJSON(r)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("record, %s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

// TestAppendFloat: appendFloat writes what Float.MarshalJSON does, at
// the edges of json's two forms, for non-finite values and for random
// ones.
func TestAppendFloat(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.999999e-7, 1e-7, 1e20, 1e21, 123456789012345678, 5e-324,
		math.MaxFloat64, -math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1), 1.0 / 3, 2.5e-10}
	rng := rand.New(rand.NewPCG(15, 8))
	for range 20000 {
		vals = append(vals, math.Float64frombits(rng.Uint64()), rng.NormFloat64(), float64(float32(rng.NormFloat64())))
	}
	for _, v := range vals {
		want, _ := floats.Float(v).MarshalJSON()
		if got := appendFloat(nil, floats.Float(v)); !bytes.Equal(got, want) {
			t.Fatalf("%v (%#x): %s, MarshalJSON %s", v, math.Float64bits(v), got, want)
		}
	}
}
