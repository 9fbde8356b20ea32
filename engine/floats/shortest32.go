package floats

import (
	"math"
	"math/bits"

	"pldworkbench/engine/ir"
)

// FP32, FP16 and BF16 elements are written with the shortest digits that
// read back as the same float32 (encoding/json's form of a Go float32:
// 0.8107042), not those of the value widened to a float64
// (0.8107041716575623): the learner sees their tensor's
// value, and the text is about half as long. Every FP16 and BF16 value
// is a float32, so one formatter serves all three.

// Digits32 reports whether elements of d are written as float32s.
func Digits32(d ir.DType) bool { return d == ir.FP32 || d == ir.FP16 || d == ir.BF16 }

// digits32Name is Digits32 of a dtype by its wire name.
func digits32Name(name string) bool { return name == "FP32" || name == "FP16" || name == "BF16" }

// AppendData appends f as a JSON array of the elements of a tensor of
// dtype (its wire name): AppendElems32's form for FP32, FP16 and BF16,
// AppendElems's for the rest.
func AppendData(b []byte, dtype string, f []float64) []byte {
	b = append(b, '[')
	if digits32Name(dtype) {
		b = AppendElems32(b, f, false)
	} else {
		b = AppendElems(b, f, false)
	}
	return append(b, ']')
}

// AppendElem32 appends float32(v) as AppendElem appends a float64, but
// with the digits encoding/json writes for a float32: a number, or
// "NaN", "Infinity", "-Infinity" as strings.
func AppendElem32(b []byte, v float64) []byte {
	x := float32(v)
	u := math.Float32bits(x)
	switch {
	case u&(0xff<<23) == 0xff<<23: // NaN or an infinity (v may overflow float32)
		return appendNonFinite(b, float64(x))
	case x < 1<<28 && x > -1<<28 && x == float32(int32(x)) && u != 1<<31 && intDigits32(u, int32(x)):
		return appendInt(b, int64(x))
	case u&(0xff<<23) == 0:
		return appendFloat32(b, x) // subnormal or zero
	}
	d, e := shortest32(u &^ (1 << 31))
	return appendDigits(b, uint64(u>>31), exp32(x), d, e)
}

// AppendElems32 appends the elements of f as AppendElem32 does, separated
// by commas, with a comma first when lead is set: the digits of a batch
// first, then the text, as AppendElems does.
func AppendElems32(b []byte, f []float64, lead bool) []byte { return appendElems(b, f, lead, true) }

// intDigits32 reports whether the float32 with bits u, the integer i
// (|i| < 2^28, not -0), is written as i's own digits, which appendInt
// writes for a fraction of shortest32's cost (the sums of an index
// fill pass 2^24). Below 2^24 it always is. Above, the ulp is 2^e and
// a shorter decimal would be a multiple of 10 within h = 2^(e-1) of i
// (the rounding interval; no power of ten within h of a float32 here
// but 10^8 itself): there is none when i's last digit r is 0 (the next
// multiples are 10 away, h ≤ 8) or more than h from 0 and 10. Else
// shortest32 decides (TestInt32FastPath, TestShortest32AllFloat32).
func intDigits32(u uint32, i int32) bool {
	e := int(u>>23&0xff) - 150
	if e <= 0 {
		return true
	}
	h := int32(1) << (e - 1)
	if i < 0 {
		i = -i
	}
	r := i % 10
	return r == 0 || (r > h && r < 10-h)
}

// exp32 is encoding/json's choice of the exponent form for a float32: the
// cutoffs compared as float32s (float32(1e-6) is a little below 1e-6).
func exp32(x float32) bool {
	a := float32(math.Abs(float64(x)))
	return a < 1e-6 || a >= 1e21
}

// appendFloat32 formats x the way encoding/json formats a float32.
func appendFloat32(b []byte, x float32) []byte {
	return appendStrconv(b, float64(x), x != 0 && exp32(x), 32)
}

// rop32 is g·cp / 2^95 rounded to odd: the paper's float rop, with g the
// upper 63 bits of the 126-bit table entry plus one (64 bits suffice for
// a float32's 24-bit significand).
func rop32(g, cp uint64) uint64 {
	x1, _ := bits.Mul64(g, cp)
	const mask32 = 1<<32 - 1
	return x1>>31 | ((x1&mask32)+mask32)>>32
}

// shortest32 is shortest for a positive normal float32 given by its bits
// (the same steps with the paper's float constants); d < 10^9.
func shortest32(b uint32) (d uint64, e int) {
	const cMin = 1 << 23
	gOnce.Do(buildG)
	bq := int(b >> 23 & 0xff)
	c := uint64(cMin | b&(cMin-1))
	q := bq - 150
	cb, cbl, cbr, k := bounds(c, cMin, bq, q)
	g := &gTable[k-gKMin]
	h := uint(q + g.f + 33)
	g1 := g.hi + 1
	vb := rop32(g1, cb<<h)
	vbl := rop32(g1, cbl<<h)
	vbr := rop32(g1, cbr<<h)
	// A power of two exactly halfway between s and s+1: strconv's float32
	// path (Go's Dragonbox) rounds such a tie up, not to even (its tie
	// test checks the float64 exponent), and encoding/json's digits are
	// strconv's (2^-12 is 0.00024414063).
	d = nearest(vb, vbl, vbr, c&1, b2u(c == cMin))
	if short, ok := shorter(vb>>2, vbl, vbr, c&1); ok {
		d = short
	}
	return d, k
}
