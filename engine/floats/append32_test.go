package floats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendFloat32s: float32s are written as encoding/json writes them
// (wantElem32, strconv's digits), comma-separated, at lengths around the
// batch size and one long run, every kind mixed in (normals, any bit
// pattern, integers on both sides of the fast path and past 2^24, the
// powers of two there, zeros, NaN, the infinities, the exponent form's
// edges).
func TestAppendFloat32s(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	kinds := []func() float32{
		func() float32 { return float32(rng.NormFloat64()) },
		func() float32 { return math.Float32frombits(rng.Uint32()) },
		func() float32 { return float32(rng.IntN(1e9) - 5e8) },
		// Integers on the fast path: below 2^24 (an index fill), and
		// from 2^24 to 2^26 (its sums), some written as their own
		// digits and some by shortest32, and the powers of two there.
		func() float32 { return float32(rng.IntN(1<<25) - 1<<24) },
		func() float32 { return float32(rng.IntN(1<<27) - 1<<26) },
		func() float32 { return float32(math.Ldexp(float64(1-2*rng.IntN(2)), 20+rng.IntN(8))) },
		func() float32 { return float32(rng.NormFloat64() * 1e-5) },
		func() float32 {
			return []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
				1e-45, 1e20, 3e20, -9.9999994e20, 1e-7, 9.9999997e-7, 1e-6, 1 << 24, 123456789, 0.1, 1e21}[rng.IntN(16)]
		},
	}
	for _, n := range []int{0, 1, 15, 16, 17, 33, 5000, 1 << 20} {
		for _, lead := range []bool{false, true} {
			f := make([]float32, n)
			for i := range f {
				f[i] = kinds[rng.IntN(len(kinds))]()
			}
			var want []byte
			for i, v := range f {
				if lead || i > 0 {
					want = append(want, ',')
				}
				k := len(want)
				want = wantElem32(want, v)
				if len(want)-k > 22 { // -100000000000000000000
					t.Fatalf("%v takes %d bytes", v, len(want)-k)
				}
			}
			if got := AppendFloat32s([]byte("x"), f, lead); string(got[1:]) != string(want) || got[0] != 'x' {
				t.Fatalf("n=%d lead=%v: AppendFloat32s %.120s, AppendElem32 %.120s", n, lead, got, want)
			}
		}
	}
}

// appendOne32 is AppendFloat32s' text of x alone: its fast path's for
// a normal non-integer from 2^-19 to 2^23, AppendElem32's for the rest.
func appendOne32(b []byte, x float32) []byte {
	return AppendFloat32s(b, []float32{x}, false)
}

// TestAppendFloat32sNoAVX: where fast32 lays the digits out in AVX-512
// lanes, its scalar loop for CPUs without them writes the same bytes
// (TestAppendFloat32s and TestShortest32Random with the lanes off).
func TestAppendFloat32sNoAVX(t *testing.T) {
	if avx512 == 0 {
		t.Skip("fast32 has no AVX-512 path here to turn off")
	}
	avx512 = 0
	defer func() { avx512 = 1 }()
	TestAppendFloat32s(t)
	TestShortest32Random(t)
}
