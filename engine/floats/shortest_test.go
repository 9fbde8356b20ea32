package floats

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// wantElem is AppendElem's bytes by strconv alone: what every element
// was written as before appendNumber.
func wantElem(b []byte, v float64) []byte {
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

// checker compares AppendElem, and appendNumber without AppendElem's
// integer shortcut, with strconv on one value, reusing its buffers.
type checker struct{ got, num, want []byte }

func (c *checker) ok(v float64) bool {
	c.got = AppendElem(c.got[:0], v)
	c.want = wantElem(c.want[:0], v)
	if !bytes.Equal(c.got, c.want) {
		return false
	}
	if v != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
		c.num = appendNumber(c.num[:0], v)
		return bytes.Equal(c.num, c.want)
	}
	return true
}

func (c *checker) check(t *testing.T, v float64) {
	t.Helper()
	if !c.ok(v) {
		t.Fatalf("%v (bits %#016x): AppendElem %s, appendNumber %s, strconv %s",
			v, math.Float64bits(v), AppendElem(nil, v), appendNumber(nil, v), wantElem(nil, v))
	}
}

// floorLog10 is floor(log10(num/den)) exactly.
func floorLog10(num, den *big.Int) int {
	k := len(num.String()) - len(den.String())
	le := func(k int) bool { // 10^k <= num/den
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil)
		if k >= 0 {
			return new(big.Int).Mul(p, den).Cmp(num) <= 0
		}
		return den.Cmp(new(big.Int).Mul(num, p)) <= 0
	}
	for !le(k) {
		k--
	}
	for le(k + 1) {
		k++
	}
	return k
}

// TestFloorLogs: the multiply-and-shift logarithms are exact over every
// exponent a float64 has.
func TestFloorLogs(t *testing.T) {
	one := big.NewInt(1)
	for q := -1100; q <= 1100; q++ {
		num, den := new(big.Int).Set(one), new(big.Int).Set(one)
		if q >= 0 {
			num.Lsh(num, uint(q))
		} else {
			den.Lsh(den, uint(-q))
		}
		if got, want := flog10pow2(q), floorLog10(num, den); got != want {
			t.Fatalf("flog10pow2(%d) = %d, want %d", q, got, want)
		}
		num.Mul(num, big.NewInt(3))
		den.Lsh(den, 2)
		if got, want := flog10threeQuartersPow2(q), floorLog10(num, den); got != want {
			t.Fatalf("flog10threeQuartersPow2(%d) = %d, want %d", q, got, want)
		}
	}
}

// TestGTable: every g is 126 bits and above 10^-k·2^(125-f) by less
// than one, f being floor(log2 10^-k).
func TestGTable(t *testing.T) {
	gOnce.Do(buildG)
	for k := gKMin; k <= gKMax; k++ {
		e := gTable[k-gKMin]
		if e.lo >= 1<<63 || e.hi < 1<<62 || e.hi >= 1<<63 {
			t.Fatalf("k=%d: g = %#x·2^63 + %#x is not in [2^125, 2^126)", k, e.hi, e.lo)
		}
		g := new(big.Int).Lsh(new(big.Int).SetUint64(e.hi), 63)
		g.Add(g, new(big.Int).SetUint64(e.lo))
		// g-1 <= 10^-k·2^(125-f) < g, as rationals.
		x := new(big.Rat).SetFrac(big.NewInt(1), big.NewInt(1))
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil))
		if k > 0 {
			x.Quo(x, p)
		} else {
			x.Mul(x, p)
		}
		// f is floor(log2 10^-k): 2^f <= 10^-k < 2^(f+1).
		two := func(n int) *big.Rat {
			r := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(abs(n))))
			if n < 0 {
				r.Inv(r)
			}
			return r
		}
		if x.Cmp(two(e.f)) < 0 || x.Cmp(two(e.f+1)) >= 0 {
			t.Fatalf("k=%d: f = %d is not floor(log2 10^%d)", k, e.f, -k)
		}
		x.Mul(x, two(125-e.f))
		gr := new(big.Rat).SetInt(g)
		if x.Cmp(gr) >= 0 || x.Cmp(gr.Sub(gr, big.NewRat(1, 1))) < 0 {
			t.Fatalf("k=%d: g is not floor(10^-k·2^(125-f)) + 1", k)
		}
	}
}

// fp16 is the float64 value of an IEEE half-precision bit pattern.
func fp16(h uint16) float64 {
	sign := 1.0
	if h>>15 != 0 {
		sign = -1
	}
	exp, man := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(man, -24)
	case 31:
		if man != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+man, exp-25)
}

// TestShortestSpecial: the values at the edges: zeros, NaN and the
// infinities, every power of two and of ten a float64 and a float32 hold,
// the subnormal and normal boundaries of float64 and float32 and their
// neighbours, the edges of the 'e' form (1e-6, 1e21), and every FP16 and
// BF16 bit pattern.
func TestShortestSpecial(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
		math.MaxFloat64, math.SmallestNonzeroFloat64, 0x1p-1022, math.Nextafter(0x1p-1022, 0),
		math.MaxFloat32, math.SmallestNonzeroFloat32, 0x1p-126, float64(math.Nextafter32(0x1p-126, 0)),
		1e-6, 1e21, 1e-7, 1e20, 1e22, 9.999999999999999e20, 65504, 0x1p-24, 0x1p-14,
		1 << 53, 1<<53 + 2, 1 << 54, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 5e-324, 1.7976931348623157e308}
	for e := -1074; e <= 1023; e++ {
		vals = append(vals, math.Ldexp(1, e))
	}
	for e := -149; e <= 127; e++ {
		vals = append(vals, float64(float32(math.Ldexp(1, e))))
	}
	for e := -325; e <= 309; e++ {
		p, _ := new(big.Float).SetPrec(200).SetString("1e" + itoa(e))
		f, _ := p.Float64()
		f32, _ := p.Float32()
		vals = append(vals, f, float64(f32))
	}
	for h := range 1 << 16 {
		vals = append(vals, fp16(uint16(h)), float64(math.Float32frombits(uint32(h)<<16)))
	}
	var c checker
	for _, v := range vals {
		for _, w := range []float64{v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)),
			float64(math.Nextafter32(float32(v), float32(math.Inf(1)))), float64(math.Nextafter32(float32(v), float32(math.Inf(-1))))} {
			c.check(t, w)
			c.check(t, -w)
		}
	}
}

func itoa(i int) string { return string(AppendElem(nil, float64(i))) }

// TestShortestRandom: 12 million random bit patterns, half float32 (the
// FP32 elements) and half float64, each with both signs of exponent
// well covered by drawing the bits uniformly.
func TestShortestRandom(t *testing.T) {
	const n = 6_000_000
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var bad atomic.Uint64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 16))
			var c checker
			for range n / workers {
				f32 := float64(math.Float32frombits(rng.Uint32()))
				f64 := math.Float64frombits(rng.Uint64())
				for _, v := range []float64{f32, f64} {
					if !c.ok(v) {
						bad.CompareAndSwap(0, math.Float64bits(v))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if u := bad.Load(); u != 0 {
		var c checker
		c.check(t, math.Float64frombits(u))
	}
}

// TestShortestAllFloat32 compares every one of the 2^32 float32 bit
// patterns with strconv: minutes on two cores, so only when
// PLD_SHORTEST_ALL=1 is set (go test ./engine/floats -run AllFloat32
// -timeout 60m).
func TestShortestAllFloat32(t *testing.T) {
	if os.Getenv("PLD_SHORTEST_ALL") != "1" {
		t.Skip("set PLD_SHORTEST_ALL=1 to check every float32")
	}
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var next atomic.Uint64
	var bad atomic.Uint64
	const block = 1 << 20
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c checker
			for {
				lo := next.Add(block) - block
				if lo >= 1<<32 || bad.Load() != 0 {
					return
				}
				for u := lo; u < lo+block; u++ {
					v := float64(math.Float32frombits(uint32(u)))
					if !c.ok(v) {
						bad.CompareAndSwap(0, math.Float64bits(v))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if u := bad.Load(); u != 0 {
		var c checker
		c.check(t, math.Float64frombits(u))
	}
	t.Logf("all %d float32 bit patterns written as strconv writes them", uint64(1)<<32)
}

// TestEight: every 8-digit block, against the digits by division.
func TestEight(t *testing.T) {
	step := uint32(7)
	if os.Getenv("PLD_SHORTEST_ALL") == "1" {
		step = 1
	}
	for x := uint32(0); x < 1e8; x += step {
		want, r := uint64(0), x
		for i := 7; i >= 0; i-- {
			want |= uint64('0'+r%10) << (8 * i)
			r /= 10
		}
		if got := eight(x); got != want {
			t.Fatalf("eight(%d) = %#x, want %#x", x, got, want)
		}
	}
}

// TestAppendIntBlock: every integer below 10^8 that appendInt writes from
// one block (every seventh; all, and their negatives, with
// PLD_SHORTEST_ALL=1), against strconv.AppendInt.
func TestAppendIntBlock(t *testing.T) {
	step := int64(7)
	if os.Getenv("PLD_SHORTEST_ALL") == "1" {
		step = 1
	}
	var got, want []byte
	for i := int64(0); i < 1e8; i += step {
		for _, v := range []int64{i, -i} {
			got, want = appendInt(got[:0], v), strconv.AppendInt(want[:0], v, 10)
			if !bytes.Equal(got, want) {
				t.Fatalf("appendInt(%d) = %s, want %s", v, got, want)
			}
		}
	}
}

// TestAppendElems: a batch written at once is the elements as
// AppendElem writes them, comma-separated, at lengths around the batch
// size, with every kind of element mixed in.
func TestAppendElems(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	kinds := []func() float64{
		func() float64 { return float64(float32(rng.NormFloat64())) },
		func() float64 { return math.Float64frombits(rng.Uint64()) },
		func() float64 { return float64(rng.IntN(1e9) - 5e8) },
		func() float64 {
			return []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, 1e20, 1e-7, 2e16}[rng.IntN(9)]
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
				want = AppendElem(want, v)
			}
			if got := AppendElems([]byte("x"), f, lead); string(got[1:]) != string(want) || got[0] != 'x' {
				t.Fatalf("n=%d lead=%v: AppendElems %.120s, AppendElem %.120s", n, lead, got, want)
			}
		}
	}
}
