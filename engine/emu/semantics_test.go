package emu_test

import (
	"context"
	"math"
	"reflect"
	"sort"
	"sync"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
)

// The semantics tests run the DSL programs of testdata/ and compare with
// answers computed here, in plain Go, from the spec's rules.

// TestScalarArithmetic checks device integer semantics: truncating % and //
// (ruling 7), INT32 wrap-around, run-time loop bounds and steps, branches.
func TestScalarArithmetic(t *testing.T) {
	for _, P := range []int{2, 3, 5} {
		prog := compileFile(t, "testdata/arith.py", "scalar_host", P)
		seed := emu.Zeros(ir.INT32, P, 1, 8)
		for r := 0; r < P; r++ {
			seed.Set(math.MaxInt32, r, 0, 0)
			seed.Set(math.MinInt32, r, 0, 1)
		}
		res := run(t, prog, map[string]*emu.Tensor{"seed": seed})
		mustOK(t, "arith", res)
		out := res.Outputs["out"]
		for r := 0; r < P; r++ {
			me, n := int64(r), int64(P)
			below := me - 3
			var acc int64
			for i := me; i < 3*n; i += 2 {
				acc += i
			}
			var down int64
			for j := n; j > me; j-- {
				down = down*2 + j
			}
			pick := int64(5)
			if me == n-1 {
				pick = 50
			}
			var flat int64
			for a := int64(0); a < n; a++ {
				for b := int64(0); b < a; b++ {
					if b != me {
						flat++
					}
				}
			}
			want := []int64{
				below % n, below / 2,
				int64(int32(math.MaxInt32 + me)),
				acc, down, pick,
				int64(int32(math.MinInt32 - me)),
				int64(int32(math.MaxInt32 * n)),
				-below, (below * 7) % 4, (below * 7) / -4, flat,
			}
			for k, w := range want {
				if got := out.At(r, 0, k); got != float64(w) {
					t.Errorf("P=%d rank %d slot %d: got %v, want %d", P, r, k, got, w)
				}
			}
		}
		// The truncation rule is visible: rank 0 at P=2 gets -1, not 1.
		if got := out.At(0, 0, 0); P == 2 && got != -1 {
			t.Errorf("(0 - 3) %% 2 = %v on the device, want -1", got)
		}
	}
}

// halfValues lists every finite IEEE half value, ascending, decoded
// with the textbook formula (independent of the emulator's converter).
var halfValues = sync.OnceValue(func() []float64 {
	var vs []float64
	for e := 0; e < 31; e++ {
		for m := 0; m < 1024; m++ {
			var v float64
			if e == 0 {
				v = float64(m) * math.Pow(2, -24)
			} else {
				v = (1 + float64(m)/1024) * math.Pow(2, float64(e-15))
			}
			vs = append(vs, v, -v)
		}
	}
	sort.Float64s(vs)
	return vs
})

// nearestEven rounds x to the nearest of the sorted candidates, ties to
// the candidate whose last mantissa bit (given by even) is 0.
func nearestEven(x float64, cands []float64, even func(float64) bool) float64 {
	i := sort.SearchFloat64s(cands, x)
	if i < len(cands) && cands[i] == x {
		return x
	}
	if i == 0 || i == len(cands) {
		return math.Inf(int(math.Copysign(1, x)))
	}
	lo, hi := cands[i-1], cands[i]
	switch {
	case x-lo < hi-x:
		return lo
	case hi-x < x-lo:
		return hi
	case even(lo):
		return lo
	}
	return hi
}

func refHalf(x float64) float64 {
	x = float64(float32(x))
	vs := halfValues()
	if math.Abs(x) >= 65520 { // 65504 + half an ulp rounds to infinity
		return math.Inf(int(math.Copysign(1, x)))
	}
	return nearestEven(x, vs, func(v float64) bool {
		// The mantissa's last bit of a half: v / ulp(v) is even.
		a := math.Abs(v)
		ulp := math.Pow(2, -24)
		if a >= math.Pow(2, -14) {
			ulp = math.Pow(2, math.Floor(math.Log2(a))-10)
		}
		return math.Mod(a/ulp, 2) == 0
	})
}

func refBF16(x float64) float64 {
	f := float32(x)
	bits := math.Float32bits(f)
	lo := float64(math.Float32frombits(bits &^ 0xffff))
	hi := float64(math.Float32frombits((bits &^ 0xffff) + 0x10000))
	if float64(f) == lo {
		return lo
	}
	if f < 0 {
		lo, hi = hi, lo
	}
	return nearestEven(float64(f), []float64{lo, hi}, func(v float64) bool {
		return math.Float32bits(float32(v))&0x10000 == 0
	})
}

// TestTileOps checks element-wise compute, broadcasting, valid regions, an
// accumulating store, FP16/BF16 rounding and float-to-int cast modes.
func TestTileOps(t *testing.T) {
	const P, N, valid = 2, 32, 10
	prog := compileFile(t, "testdata/tiles.py", "tile_host", P)
	a, b := emu.Zeros(ir.FP32, P, 4, N), emu.Zeros(ir.FP32, P, 1, N)
	// Values that exercise rounding: halves, ties at FP16 and BF16
	// precision, numbers beyond FP16's range, negatives.
	specials := []float64{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1 + 1.0/2048, 1 + 3.0/2048, 1 + 1.0/256, 1 + 3.0/256,
		65504, 65520, 70000, -70000, 1e-8, 6e-8, 3.0e-5, 2049, 2051, 1.00390625, 1.01171875, 123.456, -7.75}
	for r := 0; r < P; r++ {
		for i := 0; i < 4*N; i++ {
			v := float64(i%13)*0.37 - 2.1 + float64(r)
			if i < len(specials) {
				v = specials[i]
			}
			a.Set(v, r, i/N, i%N)
		}
		for j := 0; j < N; j++ {
			b.Set(float64(j)*0.25-3+float64(r), r, 0, j)
		}
	}
	res := run(t, prog, map[string]*emu.Tensor{"a": a, "b": b})
	mustOK(t, "tiles", res)
	out, half, brain, whole := res.Outputs["out"], res.Outputs["half"], res.Outputs["brain"], res.Outputs["whole"]
	for r := 0; r < P; r++ {
		A := func(i, j int) float32 { return float32(a.At(r, i, j)) }
		B := func(j int) float32 { return float32(b.At(r, 0, j)) }
		for j := 0; j < N; j++ {
			for i := 0; i < 4; i++ {
				check(t, "a + b", out.At(r, i, j), float64(A(i, j)+B(j)))
			}
			check(t, "maximum", out.At(r, 4, j), float64(max(A(0, j), B(j))))
			check(t, "minimum with 0.5", out.At(r, 5, j), float64(min(A(1, j), 0.5)))
			check(t, "(a - b) * 3", out.At(r, 6, j), float64((A(2, j)-B(j))*3))
			part := 0.0
			if j < valid {
				part = float64(A(3, j) + A(3, j))
			}
			check(t, "valid_shape load + atomic store", out.At(r, 7, j), part)
			tail := 0.0
			if j < 4 {
				tail = float64(A(3, N-4+j))
			}
			check(t, "clamped load", out.At(r, 8, j), tail)
			for i := 0; i < 4; i++ {
				x := float64(A(i, j))
				check(t, "FP16 cast", half.At(r, i, j), refHalf(x))
				check(t, "BF16 cast", brain.At(r, i, j), refBF16(x))
			}
			check(t, "INT32 cast, round", whole.At(r, 0, j), math.Round(float64(A(0, j))))
			// Rows 1 and 2 store the first row of the cast tile (shapes [1, N]).
			check(t, "INT32 cast, rint", whole.At(r, 1, j), math.RoundToEven(float64(A(0, j))))
			check(t, "INT32 cast, floor", whole.At(r, 2, j), math.Floor(float64(A(0, j))))
			if j >= 2 {
				check(t, "INT32 cast, round (row 3)", whole.At(r, 3, j), math.Round(float64(A(3, j))))
			}
		}
		check(t, "pl.read of a tile", whole.At(r, 3, 0), 2*math.Round(float64(A(3, N-1))))
		check(t, "pl.read by flat index", whole.At(r, 3, 1), math.Floor(float64(A(0, 1))))
	}
}

func check(t *testing.T, what string, got, want float64) {
	t.Helper()
	if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// TestRMA checks put and get in both forms, atomic put, remote_store,
// notify Set and negative AtomicAdd, wait Eq, peer == me, a byte-form
// window viewed as FP32, and a second dispatch loop reading the windows.
func TestRMA(t *testing.T) {
	for _, P := range []int{2, 3, 4} {
		prog := compileFile(t, "testdata/rma.py", "rma_host", P)
		for _, how := range []string{"index", "randn"} {
			in := fill(prog, how, 7)
			res := run(t, prog, in)
			mustOK(t, how, res)
			x := in["x"]
			var sum []float64
			acc := make([]float32, x.Shape[2])
			for k := 0; k < P; k++ { // the order the atomic puts land: rank order
				for j, v := range x.Row(k) {
					acc[j] += float32(v)
				}
			}
			for _, v := range acc {
				sum = append(sum, float64(v))
			}
			var all []float64
			for k := 0; k < P; k++ {
				all = append(all, x.Row(k)...)
			}
			twice := make([]float64, len(sum))
			for j, v := range sum {
				twice[j] = f32(v + v)
			}
			expectClose(t, how+" gathered", res.Outputs["gathered"], perRank(P, func(int) []float64 { return all }), 0, 0)
			expectClose(t, how+" summed", res.Outputs["summed"], perRank(P, func(int) []float64 { return sum }), 1e-6, 1e-6)
			expectClose(t, how+" echo", res.Outputs["echo"], perRank(P, func(r int) []float64 { return x.Row(mod(r+1, P)) }), 0, 0)
			expectClose(t, how+" mailed", res.Outputs["mailed"], perRank(P, func(r int) []float64 { return x.Row(mod(r+1, P)) }), 0, 0)
			expectClose(t, how+" total", res.Outputs["total"], perRank(P, func(int) []float64 { return twice }), 1e-6, 1e-6)
			expectClose(t, how+" cells", res.Outputs["cells"], perRank(P, func(r int) []float64 {
				return []float64{float64(mod(r-1, P) + 10), -5, 1, 0}
			}), 0, 0)
			if res.Stats.Notifies != int64(P*(P+2)) || res.Stats.Waits != int64(P*(P+2)) {
				t.Errorf("P=%d: %d notifies and %d waits, want %d of each", P, res.Stats.Notifies, res.Stats.Waits, P*(P+2))
			}
			if res.Stats.RemoteBytes == 0 || res.Stats.LocalBytes == 0 || res.Stats.SimTimeNs <= 0 {
				t.Errorf("P=%d: stats %+v", P, res.Stats)
			}
		}
	}
}

// TestHostScalar passes a host scalar parameter through Options.Scalars.
func TestHostScalar(t *testing.T) {
	const src = `
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def scale(x: pl.Tensor[[1, 8], pl.FP32], y: pl.Out[pl.Tensor[[1, 8], pl.FP32]], k: pl.Scalar[pl.FP32]):
    t = pl.load(x, [0, 0], [1, 8])
    y = pl.store(pl.mul(t, k), [0, 0], y)
    return y


@pl.jit
def scale_dev(x: pl.Tensor[[1, 8], pl.FP32], y: pl.Out[pl.Tensor[[1, 8], pl.FP32]], k: pl.Scalar[pl.FP32]):
    return scale(x, y, k)


@pl.jit.host
def scaled(x: pl.Tensor[[NR, 1, 8], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, 8], pl.FP32]], k: pl.Scalar[pl.FP32]):
    for r in pl.range(pld.world_size()):
        scale_dev(x[r], y[r], k, device=r)
`
	prog := compile(t, "scaled.py", src, "scaled", 3)
	in := fill(prog, "randn", 11)
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Scalars: map[string]float64{"k": 0.1}})
	mustOK(t, "scaled", res)
	want := make([]float64, len(in["x"].Floats()))
	for i, x := range in["x"].Floats() {
		want[i] = float64(float32(x) * float32(0.1))
	}
	expectClose(t, "y", res.Outputs["y"], want, 0, 0)
	res = run(t, prog, in)
	if res.Error == nil || res.Error.Message != "missing scalar argument k (FP32)" {
		t.Errorf("without k: %s %+v", res.Status, res.Error)
	}
}

// TestPlatforms: the cost-model profile changes simulated time only, and
// an unknown platform is an input error.
func TestPlatforms(t *testing.T) {
	prog := compileFile(t, "testdata/bench.py", "build_bench_mesh(4, 65536, 4096).mesh_host", 4)
	in := fill(prog, "index", 0)
	a := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Platform: "910B"})
	b := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Platform: "950"})
	mustOK(t, "910B", a)
	mustOK(t, "950", b)
	if b.Stats.SimTimeNs >= a.Stats.SimTimeNs {
		t.Errorf("950 takes %d ns, 910B %d ns: want the faster links to show", b.Stats.SimTimeNs, a.Stats.SimTimeNs)
	}
	// Each rank reads 3 peers' 256 KiB slices: at 18.6 GB/s per link that
	// is at least 42 µs on 910B, whatever else the model adds.
	if a.Stats.SimTimeNs < 3*65536*4*1000/18600 {
		t.Errorf("910B run takes %d ns, less than its link time", a.Stats.SimTimeNs)
	}
	a.Stats.SimTimeNs, b.Stats.SimTimeNs = 0, 0
	if !reflect.DeepEqual(a.Outputs, b.Outputs) || a.Stats != b.Stats {
		t.Errorf("platforms differ beyond time: %+v vs %+v", a.Stats, b.Stats)
	}
	if res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Platform: "A100"}); res.Error == nil || res.Error.Code != "E0510" {
		t.Errorf("unknown platform: %s %+v", res.Status, res.Error)
	}
}
