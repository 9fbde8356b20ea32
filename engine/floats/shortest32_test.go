package floats

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// wantElem32 is AppendElem32's bytes by strconv alone, as encoding/json
// formats a float32 (appendFloat32), NaN and the infinities as strings.
func wantElem32(b []byte, x float32) []byte {
	switch {
	case x != x:
		return append(b, `"NaN"`...)
	case math.IsInf(float64(x), 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(float64(x), -1):
		return append(b, `"-Infinity"`...)
	}
	return appendFloat32(b, x)
}

// checker32 compares AppendElem32, the shortest32 path without its
// integer shortcut through appendDigits, and AppendFloat32s (its fast
// path where x takes it) with strconv on one float32.
type checker32 struct{ got, num, want []byte }

func (c *checker32) ok(x float32) bool {
	c.got = AppendElem32(c.got[:0], float64(x))
	c.want = wantElem32(c.want[:0], x)
	if !bytes.Equal(c.got, c.want) {
		return false
	}
	if u := math.Float32bits(x); u&(0xff<<23) != 0 && u&(0xff<<23) != 0xff<<23 {
		d, e := shortest32(u &^ (1 << 31))
		c.num = appendDigits(c.num[:0], uint64(u>>31), exp32(x), d, e)
		if !bytes.Equal(c.num, c.want) {
			return false
		}
	}
	c.num = appendOne32(c.num[:0], x)
	return bytes.Equal(c.num, c.want)
}

func (c *checker32) check(t *testing.T, x float32) {
	t.Helper()
	if !c.ok(x) {
		var n []byte
		if u := math.Float32bits(x); u&(0xff<<23) != 0 && u&(0xff<<23) != 0xff<<23 {
			d, e := shortest32(u &^ (1 << 31))
			n = appendDigits(nil, uint64(u>>31), exp32(x), d, e)
		}
		n = append(append(n, " / "...), appendOne32(nil, x)...)
		t.Fatalf("%v (bits %#08x): AppendElem32 %s, shortest32 %s, strconv %s",
			x, math.Float32bits(x), AppendElem32(nil, float64(x)), n, wantElem32(nil, x))
	}
}

// TestAppendElem32MatchesMarshal: the rule wantElem32 follows is
// encoding/json's own for a float32 value, on values that reach each of
// its branches (the 'e' cutoffs as float32s, the e-09 cleanup, -0).
func TestAppendElem32MatchesMarshal(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.1, 1.0 / 3, 0.81070417, 1e-6, 9.99999997e-7,
		math.Nextafter32(1e-6, 0), math.Nextafter32(1e-6, 1), 1e-7, 1.5e-9, 1e21, math.Nextafter32(1e21, 0),
		1e20, 3e20, 123456789, 16777216, 16777217, 16777218, 33554436, 1 << 30, math.MaxFloat32,
		math.SmallestNonzeroFloat32, 0x1p-126, math.Nextafter32(0x1p-126, 0), 65504, 0x1p-24, -2.5e-38}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		x := math.Float32frombits(rng.Uint32())
		if !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) {
			vals = append(vals, x, float32(rng.NormFloat64()))
		}
	}
	for _, x := range vals {
		js, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := wantElem32(nil, x), js; !bytes.Equal(got, want) {
			t.Fatalf("float32 %v: appendFloat32 %s, json.Marshal %s", x, got, want)
		}
		if got := AppendElem32(nil, float64(x)); !bytes.Equal(got, js) {
			t.Fatalf("float32 %v: AppendElem32 %s, json.Marshal %s", x, got, js)
		}
	}
}

// TestShortest32Special: zeros, NaN and the infinities, every power of
// two and of ten a float32 holds, the subnormal and normal boundaries and
// the largest finite value, the 'e' form's edges, the integers around
// 2^24 where the integer shortcut stops, every FP16 and BF16 bit pattern,
// each with its float32 neighbours and both signs.
func TestShortest32Special(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, math.SmallestNonzeroFloat32, 0x1p-126, 1e-6, 1e21, 1e-7, 1e20, 1e22, 65504, 0x1p-24, 0x1p-14,
		1 << 24, 1<<24 + 2, 1 << 25, 1<<25 + 4, 1e16, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3}
	for e := -149; e <= 127; e++ {
		vals = append(vals, float32(math.Ldexp(1, e)))
	}
	for e := -46; e <= 39; e++ {
		p, _ := new(big.Float).SetPrec(200).SetString("1e" + itoa(e))
		f32, _ := p.Float32()
		vals = append(vals, f32)
	}
	for h := range 1 << 16 {
		vals = append(vals, float32(fp16(uint16(h))), math.Float32frombits(uint32(h)<<16))
	}
	var c checker32
	for _, v := range vals {
		for _, w := range []float32{v, math.Nextafter32(v, float32(math.Inf(1))), math.Nextafter32(v, float32(math.Inf(-1)))} {
			c.check(t, w)
			c.check(t, -w)
		}
	}
}

// TestShortest32Random: 8 million random float32 bit patterns (both signs
// of exponent well covered by drawing the bits uniformly) and 2 million
// float32 normals, as a randn fill makes them.
func TestShortest32Random(t *testing.T) {
	const n = 8_000_000
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var bad atomic.Uint32
	var found atomic.Bool
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 32))
			var c checker32
			for i := range n / workers {
				x := math.Float32frombits(rng.Uint32())
				if i%4 == 0 {
					x = float32(rng.NormFloat64())
				}
				if !c.ok(x) {
					if found.CompareAndSwap(false, true) {
						bad.Store(math.Float32bits(x))
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	if found.Load() {
		var c checker32
		c.check(t, math.Float32frombits(bad.Load()))
	}
}

// TestShortest32AllFloat32 compares every one of the 2^32 float32 bit
// patterns with strconv's float32 form: minutes on two cores, so only
// when PLD_SHORTEST_ALL=1 is set (go test ./engine/floats -run
// Shortest32AllFloat32 -timeout 60m).
func TestShortest32AllFloat32(t *testing.T) {
	if os.Getenv("PLD_SHORTEST_ALL") != "1" {
		t.Skip("set PLD_SHORTEST_ALL=1 to check every float32")
	}
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var next atomic.Uint64
	var bad atomic.Uint32
	var found atomic.Bool
	const block = 1 << 20
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c checker32
			for {
				lo := next.Add(block) - block
				if lo >= 1<<32 || found.Load() {
					return
				}
				for u := lo; u < lo+block; u++ {
					if x := math.Float32frombits(uint32(u)); !c.ok(x) {
						if found.CompareAndSwap(false, true) {
							bad.Store(uint32(u))
						}
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if found.Load() {
		var c checker32
		c.check(t, math.Float32frombits(bad.Load()))
	}
	t.Logf("all %d float32 bit patterns written as encoding/json writes a float32", uint64(1)<<32)
}

// TestAppendElems32: a batch is the elements as AppendElem32 writes them,
// comma-separated, at lengths around the batch size, every kind mixed in.
func TestAppendElems32(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	kinds := []func() float64{
		func() float64 { return float64(float32(rng.NormFloat64())) },
		func() float64 { return float64(math.Float32frombits(rng.Uint32())) },
		func() float64 { return float64(rng.IntN(1e9) - 5e8) },
		func() float64 { return rng.NormFloat64() }, // not a float32: written as float32(v)
		func() float64 {
			return []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e-45, 1e20, 1e-7, 1 << 24, 1e39}[rng.IntN(10)]
		},
	}
	for _, n := range []int{0, 1, 15, 16, 17, 33, 1000} {
		for _, lead := range []bool{false, true} {
			f := make([]float64, n)
			for i := range f {
				f[i] = kinds[rng.IntN(len(kinds))]()
			}
			var want []byte
			for i, v := range f {
				if lead || i > 0 {
					want = append(want, ',')
				}
				want = AppendElem32(want, v)
			}
			if got := AppendElems32([]byte("x"), f, lead); string(got[1:]) != string(want) || got[0] != 'x' {
				t.Fatalf("n=%d lead=%v: AppendElems32 %.120s, AppendElem32 %.120s", n, lead, got, want)
			}
		}
	}
}

// TestAppendData: FP32, FP16 and BF16 data are written with float32
// digits, FP64 and integer data as before, each as json.Marshal writes
// the Go type of its element.
func TestAppendData(t *testing.T) {
	f := []float64{float64(float32(0.1)), 0.5, 3, float64(float32(-2.5e-7)), 1 << 30}
	f32 := make([]float32, len(f))
	for i, v := range f {
		f32[i] = float32(v)
	}
	want32, _ := json.Marshal(f32)
	want64, _ := json.Marshal(f)
	for _, c := range []struct{ dtype, want string }{{"FP32", string(want32)}, {"FP16", string(want32)}, {"BF16", string(want32)},
		{"FP64", string(want64)}, {"INT32", string(want64)}} {
		if got := string(AppendData(nil, c.dtype, f)); got != c.want {
			t.Errorf("%s: %s, want %s", c.dtype, got, c.want)
		}
	}
	if want32[1] != '0' || string(want32[:12]) != "[0.1,0.5,3,-" {
		t.Errorf("float32 0.1 marshals as %s", want32)
	}
}

// TestInt32FastPath: every seventh float32 from 2^23 to 2^28 and its
// negative, where AppendElem32 writes some integers by appendInt and
// leaves the rest to shortest32 (intDigits32), as encoding/json writes a
// float32 (all of them with PLD_SHORTEST_ALL=1, through
// TestShortest32AllFloat32).
func TestInt32FastPath(t *testing.T) {
	var c checker32
	fast := 0
	for u := math.Float32bits(1 << 23); u < math.Float32bits(1<<28); u += 7 {
		x := math.Float32frombits(u)
		c.check(t, x)
		c.check(t, -x)
		if x >= 1<<24 && intDigits32(u, int32(x)) {
			fast++
		}
	}
	if fast == 0 {
		t.Fatal("no integer past 2^24 took the fast path: the test covers less than it says")
	}
}
