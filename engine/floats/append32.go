package floats

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// AppendFloat32s appends the elements of f as AppendElems32 appends their
// float64 values, separated by commas, with a comma first when lead is
// set: the writer of FP32, FP16 and BF16 output, fed straight from
// float32s. The digits of a float32 are fewer than ten, so they are
// written by put32 from one eight-digit block and a leading digit, not
// through the 17-digit layout of a float64 (appendDigits):
// about 20 ns an element of a randn fill where AppendElems32 takes 33,
// against 46 for strconv (BenchmarkAppendElem, randn32).
func AppendFloat32s(b []byte, f []float32, lead bool) []byte {
	const batch = 16
	var ds [batch]uint32
	var es [batch]int
	for len(f) > 0 {
		n := min(len(f), batch)
		for i, x := range f[:n] {
			ds[i] = 0 // not a normal non-integer: AppendElem32 writes it
			if u := math.Float32bits(x); u&(0xff<<23) != 0 && u&(0xff<<23) != 0xff<<23 &&
				!(x < 1<<28 && x > -1<<28 && x == float32(int32(x)) && intDigits32(u, int32(x))) {
				d, e := shortest32(u &^ (1 << 31))
				ds[i], es[i] = uint32(d), e
			}
		}
		for i, x := range f[:n] {
			if ds[i] == 0 {
				if lead || i > 0 {
					b = append(b, ',')
				}
				b = AppendElem32(b, float64(x))
				continue
			}
			if exp32(x) {
				if lead || i > 0 {
					b = append(b, ',')
				}
				b = appendDigits(b, uint64(math.Float32bits(x)>>31), true, uint64(ds[i]), es[i])
				continue
			}
			if cap(b)-len(b) < 48 {
				b = room(b) // 64 bytes or more: a comma and put32's 40
			}
			k := len(b)
			o := b[k : k+48]
			o[0] = ','
			w := int(b2u(lead || i > 0))
			b = b[:k+w+put32(o[w:], x, ds[i], es[i])]
		}
		f, lead = f[n:], true
	}
	return b
}

// put32 writes x, a normal float32 whose shortest decimal is d·10^e
// (0 < d < 10^9) and which is not in the exponent form (1e-6 ≤ |x| <
// 1e21), at the start of o (at least 40 bytes), as appendDigits writes
// it, and returns its length. The number is its digits with a point among
// them, or "0." and up to six zeros before them, or the digits and zeros
// after them: each layout is the digits stored as two words at an offset,
// the point and the zeros written around them.
func put32(o []byte, x float32, d uint32, e int) int {
	_ = o[39]
	const ascii0 = 0x3030303030303030
	hi := d / 1e8 // at most 9
	lo := eight(d - hi*1e8)
	// The nine digits of d, zero-padded, in bytes 0..8 of (p0, p1).
	p0, p1 := uint64('0'+hi)|lo<<8, lo>>56
	nd0 := ndigits(uint64(d))
	tz := 8 // the trailing zeros: d's last digit is lo's top byte
	if z := lo ^ ascii0; z != 0 {
		tz = bits.LeadingZeros64(z) / 8
	}
	nd := nd0 - tz
	// d's own digits from the first, in (s0, s1): up to nine bytes.
	r := uint(9-nd0) * 8
	s0, s1 := p0>>r|p1<<(64-r), p1>>r
	o[0] = '-' // kept for a negative x, overwritten for a positive one
	w := int(math.Float32bits(x) >> 31)
	dp := nd0 + e // x = 0.d1d2… · 10^dp
	switch {
	case dp >= nd:
		// An integer: the digits, then zeros (dp ≤ 21).
		binary.LittleEndian.PutUint64(o[w:], s0)
		binary.LittleEndian.PutUint64(o[w+8:], s1)
		copy24(o[w+nd:], zeros24)
		return w + dp
	case dp > 0:
		// The digits before the point (at most eight), the point, the rest.
		binary.LittleEndian.PutUint64(o[w:], s0)
		o[w+dp] = '.'
		q := uint(dp) * 8
		binary.LittleEndian.PutUint64(o[w+dp+1:], s0>>q|s1<<(64-q))
		binary.LittleEndian.PutUint64(o[w+dp+9:], s1>>q)
		return w + nd + 1
	}
	// "0.", then -dp zeros (at most six: |x| ≥ float32(1e-6)), the digits.
	binary.LittleEndian.PutUint64(o[w:], '0'|'.'<<8|ascii0&^0xffff)
	binary.LittleEndian.PutUint64(o[w+2-dp:], s0)
	binary.LittleEndian.PutUint64(o[w+10-dp:], s1)
	return w + 2 - dp + nd
}
