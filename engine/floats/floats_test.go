package floats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine/ir"
)

// TestFloatsJSON: finite elements are written exactly as encoding/json
// writes a float64, NaN and the infinities as strings, and the result
// reads back to the same values.
func TestFloatsJSON(t *testing.T) {
	finite := []float64{0, -0.5, 1, 3.25e-7, 1e21, -1.5e-9, 123456.789, math.MaxFloat64, math.SmallestNonzeroFloat64}
	got, err := json.Marshal(Floats(finite))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(finite)
	if string(got) != string(want) {
		t.Errorf("finite: got %s, want %s (encoding/json)", got, want)
	}

	all := Floats{1.5, math.NaN(), math.Inf(1), math.Inf(-1), -2e-7}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `[1.5,"NaN","Infinity","-Infinity",-2e-7]` {
		t.Errorf("got %s", b)
	}
	var back Floats
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 5 || back[0] != 1.5 || !math.IsNaN(back[1]) || !math.IsInf(back[2], 1) || !math.IsInf(back[3], -1) || back[4] != -2e-7 {
		t.Errorf("read back %v", back)
	}
	if err := json.Unmarshal([]byte(`["nope"]`), &back); err == nil {
		t.Error(`["nope"] read without an error`)
	}
}

// TestFloatJSON: a finite Float is written as encoding/json writes a
// float64, NaN and the infinities as null, and null reads back as NaN.
func TestFloatJSON(t *testing.T) {
	for _, v := range []float64{0, 2.5e-7, 1e21, -3} {
		got, _ := json.Marshal(Float(v))
		want, _ := json.Marshal(v)
		if string(got) != string(want) {
			t.Errorf("Float(%v) = %s, want %s", v, got, want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, _ := json.Marshal(Float(v)); string(got) != "null" {
			t.Errorf("Float(%v) = %s, want null", v, got)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte("null"), &f); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf("null read as %v, %v", f, err)
	}
}

// TestIntegerFastPath: AppendElem's integer shortcut writes exactly the
// bytes of strconv's shortest form (encoding/json's), at the edges of its
// range and on random integers, FP32-rounded ones among them.
func TestIntegerFastPath(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 9, 10, 99, 100, 1e6, -1e6, 1e15, 1e16,
		1<<53 - 1, -(1<<53 - 1), 1 << 53, 1e20, 1e21, 0.5, -0.5, 1.5, 3.0000001}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		v := math.Trunc(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(17))))
		vals = append(vals, v, float64(float32(v)))
	}
	for _, v := range vals {
		got, want := string(AppendElem(nil, v)), string(appendFloat(nil, v))
		if got != want {
			t.Fatalf("AppendElem(%v) = %s, want %s", v, got, want)
		}
		if js, _ := json.Marshal(v); string(js) != want {
			t.Fatalf("json.Marshal(%v) = %s, appendFloat %s", v, js, want)
		}
	}
}

// BenchmarkAppendElem times one element of an index fill (integers), of
// a randn fill (FP32 normals, 16-17 digits as float64s) and of float64
// normals, each beside strconv's shortest form (the baseline, which is
// what encoding/json runs), and integers beside strconv.AppendInt too.
func BenchmarkAppendElem(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	ints, normals, normals64, sums := make([]float64, 4096), make([]float64, 4096), make([]float64, 4096), make([]float64, 4096)
	for i := range ints {
		ints[i], normals[i] = float64(i*37), float64(float32(rng.NormFloat64()))
		normals64[i] = rng.NormFloat64()
		sums[i] = float64(float32(8*(1<<20)*7 + i*8*37)) // an index fill's allreduce: integers past 2^24
	}
	for _, c := range []struct {
		name string
		vals []float64
		f    func([]byte, float64) []byte
	}{{"index/AppendElem", ints, AppendElem}, {"index/strconv", ints, appendFloat},
		{"index/AppendInt", ints, func(b []byte, v float64) []byte { return strconv.AppendInt(b, int64(v), 10) }},
		{"randn/AppendElem", normals, AppendElem}, {"randn/strconv", normals, appendFloat},
		{"randn64/AppendElem", normals64, AppendElem}, {"randn64/strconv", normals64, appendFloat},
		{"randn32/AppendElem32", normals, AppendElem32},
		{"randn32/strconv32", normals, func(b []byte, v float64) []byte { return appendFloat32(b, float32(v)) }},
		{"sums32/AppendElem32", sums, AppendElem32},
		{"sums32/strconv32", sums, func(b []byte, v float64) []byte { return appendFloat32(b, float32(v)) }}} {
		if c.name == "randn32/strconv32" || c.name == "sums32/strconv32" {
			b.Run(strings.Replace(c.name, "strconv32", "AppendElems32", 1), func(b *testing.B) {
				buf := make([]byte, 0, 4096*24)
				for i := 0; i < b.N; i += len(c.vals) {
					buf = AppendElems32(buf[:0], c.vals, false)
				}
			})
			// The float32 writer run --json uses, fed float32s.
			b.Run(strings.Replace(c.name, "strconv32", "AppendFloat32s", 1), func(b *testing.B) {
				f32 := make([]float32, len(c.vals))
				for i, v := range c.vals {
					f32[i] = float32(v)
				}
				buf := make([]byte, 0, 4096*24)
				for i := 0; i < b.N; i += len(f32) {
					buf = AppendFloat32s(buf[:0], f32, false)
				}
			})
		}
		if c.name == "randn/strconv" || c.name == "randn64/strconv" {
			// The batch form, per element: the same calls as run --json
			// makes (a call writes 4096 elements; b.N is rounded up).
			b.Run(strings.Replace(c.name, "strconv", "AppendElems", 1), func(b *testing.B) {
				buf := make([]byte, 0, 4096*24)
				for i := 0; i < b.N; i += len(c.vals) {
					buf = AppendElems(buf[:0], c.vals, false)
				}
			})
		}
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			vals := c.vals[:4096]
			for i := range b.N {
				buf = c.f(buf[:0], vals[i&4095]) // not i%len: a division costs as much as a digit
			}
		})
	}
}

// TestTensorJSON: a tensor's JSON is encoding/json's of the same struct
// with its data as Go float32s for FP32, FP16 and BF16 (an FP16 0.1 is
// 0.099975586, its float32 digits), as float64s for FP64 and integers;
// data read back rounds to float32 as the same elements.
func TestTensorJSON(t *testing.T) {
	f := []float64{float64(float32(0.1)), float64(float32(0.81070417)), 0.099975585937500, -3, 1 << 30, float64(float32(1e-7))}
	for _, dtype := range []string{"FP32", "FP16", "BF16", "FP64", "INT32"} {
		got, err := json.Marshal(&TensorJSON{DType: dtype, Shape: []int{2, 3}, Data: f})
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		if dtype == "FP64" || dtype == "INT32" {
			want, _ = json.Marshal(struct {
				DType string    `json:"dtype"`
				Shape []int     `json:"shape"`
				Data  []float64 `json:"data"`
			}{dtype, []int{2, 3}, f})
		} else {
			f32 := make([]float32, len(f))
			for i, v := range f {
				f32[i] = float32(v)
			}
			want, _ = json.Marshal(struct {
				DType string    `json:"dtype"`
				Shape []int     `json:"shape"`
				Data  []float32 `json:"data"`
			}{dtype, []int{2, 3}, f32})
		}
		if string(got) != string(want) {
			t.Errorf("%s: %s, want %s", dtype, got, want)
		}
		var back TensorJSON
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		for i, v := range back.Data {
			if RoundTo(ir.FP32, v) != RoundTo(ir.FP32, f[i]) {
				t.Errorf("%s: element %d read back as %v, not %v", dtype, i, v, f[i])
			}
		}
	}
	if got, _ := json.Marshal(&TensorJSON{DType: "FP32", Shape: []int{2}, Data: []float64{float64(float32(0.1)), 0.5}}); string(got) != `{"dtype":"FP32","shape":[2],"data":[0.1,0.5]}` {
		t.Errorf("FP32 [0.1, 0.5]: %s", got)
	}
}
