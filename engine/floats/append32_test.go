package floats

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
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
	TestAppendFloat32sRuns(t)
	TestShortest32Random(t)
}

// wantFloat32s is AppendFloat32s' bytes by strconv, element by element.
func wantFloat32s(b []byte, f []float32, lead bool) []byte {
	for i, x := range f {
		if lead || i > 0 {
			b = append(b, ',')
		}
		b = wantElem32(b, x)
	}
	return b
}

// TestAppendFloat32sRuns: long runs of fast-path elements, which fast32
// takes eight at a time (randn normals, integers of an index fill and
// its sums, any bits of the fast path's exponents, both signs), and
// such runs broken by an element off it
// (an integer, a power of two, a tiny or a huge value) at every place
// within a group of eight and a batch.
func TestAppendFloat32sRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	fast := func() float32 {
		switch rng.IntN(5) {
		case 0, 1:
			return float32(rng.NormFloat64())
		case 2:
			return float32(rng.IntN(1<<25) - 1<<24) // an index fill
		case 3:
			return float32(rng.IntN(1<<27) - 1<<26) // its sums
		}
		bq := uint32(fastBqMin + rng.IntN(fastBqMax+1-fastBqMin))
		return math.Float32frombits(rng.Uint32()&(1<<31|1<<23-1) | bq<<23)
	}
	off := []float32{0, 3, -7, 1 << 20, 0.5, -0.25, 1e-7, 3e9, float32(math.Inf(1)), 1 << 24}
	check := func(f []float32, lead bool) {
		t.Helper()
		want := wantFloat32s([]byte("x"), f, lead)
		if got := AppendFloat32s([]byte("x"), f, lead); !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("%d elements, lead=%v: differ at byte %d: AppendFloat32s …%.60s, strconv …%.60s", len(f), lead, i, got[max(i-20, 0):], want[max(i-20, 0):])
		}
	}
	long := make([]float32, 1<<20)
	for i := range long {
		long[i] = fast()
	}
	check(long, false)
	check(long, true)
	for n := 1; n <= 40; n++ {
		for at := 0; at < n; at++ {
			f := make([]float32, n)
			for i := range f {
				f[i] = fast()
			}
			f[at] = off[rng.IntN(len(off))]
			check(f, at%2 == 0)
			check(f[:at], at%2 == 1)
		}
	}
}

// TestFastPathAllFloat32 compares every float32 with a fast-path
// exponent (from 2^-19 to 2^26, both signs: 752 Mi of them, integers
// and powers of two among them) with strconv's form, written by
// AppendFloat32s in runs of 4096 consecutive bit patterns, as run --json
// writes a tensor, with fast32's lanes and without: minutes on two
// cores, so only when PLD_SHORTEST_ALL=1 is set.
func TestFastPathAllFloat32(t *testing.T) {
	if os.Getenv("PLD_SHORTEST_ALL") != "1" {
		t.Skip("set PLD_SHORTEST_ALL=1 to check every fast-path float32")
	}
	if avx512 != 0 {
		// fast32's scalar loops too, then its lanes.
		avx512 = 0
		t.Run("NoAVX", checkFastPathAll)
		avx512 = 1
	}
	checkFastPathAll(t)
}

func checkFastPathAll(t *testing.T) {
	const run = 4096
	lo, hi := uint64(fastBqMin)<<23, uint64(fastBqMax+1)<<23
	var next atomic.Uint64
	var bad atomic.Uint64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := make([]float32, run)
			var got, want []byte
			for {
				u := lo + next.Add(run) - run
				if u >= hi || bad.Load() != 0 {
					return
				}
				for _, sign := range []uint64{0, 1 << 31} {
					for i := range f {
						f[i] = math.Float32frombits(uint32(u + uint64(i) | sign))
					}
					got = AppendFloat32s(got[:0], f, true)
					want = wantFloat32s(want[:0], f, true)
					if !bytes.Equal(got, want) {
						bad.CompareAndSwap(0, u|sign|1<<32)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if u := bad.Load(); u != 0 {
		u &= 1<<32 - 1
		f := make([]float32, run)
		for i := range f {
			f[i] = math.Float32frombits(uint32(u) + uint32(i))
		}
		for i, x := range f {
			if g, w := string(AppendFloat32s(nil, f[i:i+1], false)), string(wantElem32(nil, x)); g != w {
				t.Fatalf("%v (bits %#08x): AppendFloat32s %s, strconv %s", x, math.Float32bits(x), g, w)
			}
		}
		t.Fatalf("the run of %d from bits %#08x differs, though each element alone is right", run, u)
	}
}
