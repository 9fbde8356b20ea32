package floats

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// The shortest decimal that reads back as a float64, by Schubfach
// (Raffaello Giulietti, "The Schubfach way to render doubles", 2020,
// figures 7 and 9), written here from the paper. strconv finds the same
// digits, but its shortest formatting of the FP32 elements of a randn
// fill (16 or 17 digits each, as a float64) takes about 65 ns an element
// on this project's 2-core machine, the whole cost of a large
// `run --json`; this takes about 30 (BenchmarkAppendElem), a third of it
// finding the digits and the rest writing them. The paper proves that
// for a normal float64 the result is the shortest decimal that rounds
// back to v and, among those, the closest to v, an even last digit on a
// tie: the decimal strconv's shortest form picks. TestShortest* check it
// against strconv (every float32 with PLD_SHORTEST_ALL=1). Subnormal
// float64s, which no FP32/FP16/BF16 element is, go to strconv: there the
// paper's digit count rule (at least two) is not strconv's.
//
// For v = c·2^q with q's exponent k = floor(log10 2^q), the scaled
// bounds 4v/10^k and 4(v ± half an ulp)/10^k are computed with a 126-bit
// approximation g of 10^-k, rounded to odd, which makes comparisons
// against them exact (section 9 of the paper); the result is one digit
// shorter than those (a multiple of ten) when one such lies in the
// rounding interval, else s or s+1 for s = floor(v/10^k).

const (
	gKMin = -324 // floor(log10 2^q) over normal q: -1074..971
	gKMax = 292
)

// gEntry is g = hi·2^63 + lo (lo < 2^63), 2^125 ≤ g < 2^126, with
// g = floor(10^-k · 2^(125-f)) + 1, f = floor(log2 10^-k).
type gEntry struct {
	hi, lo uint64
	f      int
}

var (
	gOnce  sync.Once
	gTable *[gKMax - gKMin + 1]gEntry
)

// buildG computes the table exactly with math/big on first use (under a
// millisecond), so there is no literal table to trust.
func buildG() {
	t := new([gKMax - gKMin + 1]gEntry)
	ten := big.NewInt(10)
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 63), big.NewInt(1))
	for k := gKMin; k <= gKMax; k++ {
		e := -k
		p := new(big.Int).Exp(ten, big.NewInt(int64(abs(e))), nil)
		var f int
		num, den := new(big.Int), new(big.Int)
		if e >= 0 {
			f = p.BitLen() - 1
			num.Set(p)
			den.SetInt64(1)
		} else {
			f = -p.BitLen() // 10^|e| is no power of two
			num.SetInt64(1)
			den.Set(p)
		}
		if s := 125 - f; s >= 0 {
			num.Lsh(num, uint(s))
		} else {
			den.Lsh(den, uint(-s))
		}
		g := num.Quo(num, den)
		g.Add(g, big.NewInt(1))
		t[k-gKMin] = gEntry{
			hi: new(big.Int).Rsh(g, 63).Uint64(),
			lo: new(big.Int).And(g, mask).Uint64(),
			f:  f,
		}
	}
	gTable = t
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// flog10pow2 is floor(q·log10 2), and flog10threeQuartersPow2
// floor(log10(3/4·2^q)), for |q| ≤ 1100 (the paper's section 10
// constants; TestFloorLogs checks every q against math/big).
func flog10pow2(q int) int { return (q * 661_971_961_083) >> 41 }

func flog10threeQuartersPow2(q int) int {
	return (q*661_971_961_083 - 274_743_187_321) >> 41
}

// rop is g·cp / 2^127 rounded to odd.
func rop(g1, g0, cp uint64) uint64 {
	x1, _ := bits.Mul64(g0, cp)
	y1, y0 := bits.Mul64(g1, cp)
	z := (y0 >> 1) + x1
	vbp := y1 + (z >> 63)
	const mask63 = 1<<63 - 1
	return vbp | ((z&mask63)+mask63)>>63
}

// shortest returns d and e with d·10^e the shortest decimal of v, a
// positive normal float64 given by its bits; d < 10^17 may end in zeros
// (appendNumber drops them from its digits).
func shortest(b uint64) (d uint64, e int) {
	const cMin = 1 << 52
	gOnce.Do(buildG)
	bq := int(b >> 52 & 0x7ff)
	c := cMin | b&(cMin-1)
	q := bq - 1075
	cb, cbl, cbr, k := bounds(c, cMin, bq, q)
	g := &gTable[k-gKMin]
	h := uint(q + g.f + 2)
	vb := rop(g.hi, g.lo, cb<<h)
	vbl := rop(g.hi, g.lo, cbl<<h)
	vbr := rop(g.hi, g.lo, cbr<<h)
	// The cases are chosen without branches: which one applies is as
	// good as random from one element to the next, and a mispredicted
	// branch costs more than computing all of them.
	d = nearest(vb, vbl, vbr, c&1, 0)
	if short, ok := shorter(vb>>2, vbl, vbr, c&1); ok {
		d = short
	}
	return d, k
}

// shorter returns the candidate one digit shorter than s = floor(vb/4),
// sp10 or sp10+10 for sp10 = s rounded down to tens, and whether exactly
// one of the two is in the rounding interval: vbl and vbr are its bounds
// scaled as vb is (by 4/10^k, rounded to odd), and out is 1 when the
// bounds themselves are outside it (c odd). s ≥ 100 for a normal float64
// and ≥ 2^23 for a normal float32, so the paper's test always applies.
func shorter(s, vbl, vbr, out uint64) (uint64, bool) {
	sp10 := s / 10 * 10
	upin := b2u(vbl+out <= sp10<<2)
	wpin := b2u((sp10+10)<<2+out <= vbr)
	return sp10 + 10 - 10*upin, upin != wpin
}

// nearest returns s = floor(vb/4) or s+1, whichever is in the interval
// (as in shorter), or when both are the closer to vb, s on a tie when it
// is even and tieUp is 0 (tieUp 1 rounds a tie up, shortest32). The two
// bits of vb below s say which is closer: under 2 s, 2 a tie, over 2
// s+1. The bound tests are borrows (sOut is 1 when vbl+out > 4s, tOut is
// 1 when 4(s+1)+out > vbr), which keeps nearest inlined with shorter
// (one call holding both cost 7% a float64 element, BenchmarkAppendElem).
func nearest(vb, vbl, vbr, out, tieUp uint64) uint64 {
	s := vb >> 2
	_, sOut := bits.Sub64(s<<2, vbl+out, 0)
	_, tOut := bits.Sub64(vbr, (s+1)<<2+out, 0)
	r := vb & 3 // s+1 when s is out, or t is in and closer or as close and s odd or tieUp
	return s + 1 - (sOut^1)&(tOut|(r>>1^1)|r>>1&(r&1^1)&(s&1^1)&(tieUp^1))
}

// bounds returns, for v = c·2^q (cMin the hidden bit of c, bq the biased
// exponent), 4c and the bounds of its rounding interval scaled alike, cbl
// and cbr, with k = floor(log10) of the gap, the paper's figure 7 for a
// float64 and a float32 alike.
func bounds(c, cMin uint64, bq, q int) (cb, cbl, cbr uint64, k int) {
	cb = c << 2
	if c != cMin || bq == 1 {
		return cb, cb - 2, cb + 2, flog10pow2(q)
	}
	// v is a power of two: the gap below is half the gap above.
	return cb, cb - 1, cb + 2, flog10threeQuartersPow2(q)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

var pow10u64 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// ndigits is the number of decimal digits of d > 0.
func ndigits(d uint64) int {
	n := (bits.Len64(d) * 1233) >> 12 // floor(log10 2^len), at most one short
	if d >= pow10u64[n] {
		n++
	}
	return n
}

// eight is the eight decimal digits of x < 10^8 as ASCII bytes, the
// first in the lowest byte: x/10^6 as a 57-bit binary fraction, its
// integer part the first pair of digits, and each next pair the integer
// part of the fraction times 100 (rounding the reciprocal up leaves an
// error too small to reach the next integer in four steps).
func eight(x uint32) uint64 {
	const sh = 57
	const mask = 1<<sh - 1
	y := uint64(x) * (1<<sh/1_000_000 + 1)
	p0 := y >> sh
	y = (y & mask) * 100
	p1 := y >> sh
	y = (y & mask) * 100
	p2 := y >> sh
	y = (y & mask) * 100
	return pair16[p0] | pair16[p1]<<16 | pair16[p2]<<32 | pair16[y>>sh]<<48
}

// pair16 is the two ASCII digits of 0..99, the first in the low byte.
var pair16 = func() (t [128]uint64) {
	for i := range 100 {
		t[i] = uint64('0'+i/10) | uint64('0'+i%10)<<8
	}
	return
}()

// digitBuf holds six zeros, then a number d < 10^17 as 17 digits,
// zero-padded, at bytes [6:23] of its words, little-endian, then zeros;
// d's own nd digits start at byte 23-nd. It is read by words at any byte
// offset (at), shifted together from aligned words: reading the bytes
// back from where they were stored a few bytes off would stall on every
// element (a load that spans two recent stores is not forwarded).
type digitBuf [8]uint64

// put writes d's digits and returns how many zeros they end with (d > 0),
// counted on the digit words rather than by dividing: the last digit is
// a word's top byte.
func (buf *digitBuf) put(d uint64) (tz int) {
	const ascii0 = 0x3030303030303030
	hi := d / 1e8
	lo := eight(uint32(d - hi*1e8))
	top := uint32(hi) / 1e8
	mid := eight(uint32(hi) - top*1e8)
	buf[0] = ascii0>>16 | uint64('0'+top)<<48 | mid<<56
	buf[1] = mid>>8 | lo<<56
	buf[2] = lo >> 8
	if z := lo ^ ascii0; z != 0 {
		return bits.LeadingZeros64(z) / 8
	}
	if z := mid ^ ascii0; z != 0 {
		return 8 + bits.LeadingZeros64(z)/8
	}
	return 16
}

// at is the 24 bytes of buf from byte a (at most 22) as three words: a
// string of up to 24 digits (store24 puts it down whole; what follows it
// is overwritten next or lies beyond the appended length).
func (buf *digitBuf) at(a int) (x, y, z uint64) {
	i, r := a>>3&3, uint(a&7)*8
	return buf[i]>>r | buf[i+1]<<(64-r), buf[i+1]>>r | buf[i+2]<<(64-r), buf[i+2]>>r | buf[i+3]<<(64-r)
}

func store24(dst []byte, x, y, z uint64) {
	dst = dst[:24]
	binary.LittleEndian.PutUint64(dst, x)
	binary.LittleEndian.PutUint64(dst[8:], y)
	binary.LittleEndian.PutUint64(dst[16:], z)
}

// byteAt is buf's byte a.
func (buf *digitBuf) byteAt(a int) byte { return byte(buf[a>>3] >> (uint(a&7) * 8)) }

// copy24 moves 24 bytes in three words.
func copy24(dst, src []byte) {
	_, _ = dst[23], src[23]
	binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
	binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(src[8:]))
	binary.LittleEndian.PutUint64(dst[16:], binary.LittleEndian.Uint64(src[16:]))
}

var zeros24 = []byte("000000000000000000000000")

// room returns b with at least 64 bytes free after its length.
func room(b []byte) []byte {
	if cap(b)-len(b) < 64 {
		b = append(b[:cap(b)], make([]byte, 64)...)[:len(b)]
	}
	return b
}

// appendInt appends i, |i| < 10^16, as strconv.AppendInt does.
func appendInt(b []byte, i int64) []byte {
	b = room(b)
	n := len(b)
	o := b[n : n+64]
	w := 0
	u := uint64(i)
	if i < 0 {
		o[0] = '-'
		w = 1
		u = uint64(-i)
	}
	if u == 0 {
		o[w] = '0'
		return b[:n+w+1]
	}
	nd := ndigits(u)
	if u < 1e8 {
		// One block (an index fill's elements, mostly): its digits
		// shifted down past the padding zeros.
		binary.LittleEndian.PutUint64(o[w:], eight(uint32(u))>>(8*uint(8-nd)))
		return b[:n+w+nd]
	}
	var buf digitBuf
	buf.put(u)
	x, y, z := buf.at(23 - nd)
	store24(o[w:], x, y, z)
	return b[:n+w+nd]
}

// appendNumber appends v, finite and nonzero, as appendFloat does
// (encoding/json's form of strconv's shortest digits), without strconv
// where v is a normal float64.
func appendNumber(b []byte, v float64) []byte {
	u := math.Float64bits(v)
	if u&(0x7ff<<52) == 0 {
		return appendFloat(b, v) // subnormal or zero
	}
	d, e := shortest(u &^ (1 << 63))
	return appendDecimal(b, u, d, e)
}

// appendDecimal appends the normal float64 with bits u, whose shortest
// decimal is d·10^e, as appendFloat does.
func appendDecimal(b []byte, u, d uint64, e int) []byte {
	a := math.Abs(math.Float64frombits(u))
	return appendDigits(b, u>>63, a < 1e-6 || a >= 1e21, d, e)
}

// appendDigits appends the number d·10^e, negated when neg is 1, in
// encoding/json's form: d1.d2…e±x when exp is set, else plain digits.
func appendDigits(b []byte, neg uint64, exp bool, d uint64, e int) []byte {
	nd0 := ndigits(d)
	dp := nd0 + e // v = 0.d1d2… · 10^dp
	var buf digitBuf
	nd := nd0 - buf.put(d) // without the trailing zeros
	ds := 23 - nd0         // where the digits start in buf
	b = room(b)
	n := len(b)
	o := b[n : n+64]
	o[0] = '-' // kept for a negative v, overwritten for a positive one
	w := int(neg)
	if exp {
		// d1.d2…e±x, the exponent without padding (7 to 324).
		o[w] = buf.byteAt(ds)
		w++
		if nd > 1 {
			o[w] = '.'
			x, y, z := buf.at(ds + 1)
			store24(o[w+1:], x, y, z)
			w += nd
		}
		x := dp - 1
		o[w], o[w+1] = 'e', '+'
		if x < 0 {
			o[w+1] = '-'
			x = -x
		}
		w += 2
		if x >= 100 {
			o[w] = byte('0' + x/100)
			x %= 100
			w++
		} else if x < 10 {
			o[w] = byte('0' + x)
			return b[:n+w+1]
		}
		o[w], o[w+1] = pairs[x*2], pairs[x*2+1]
		return b[:n+w+2]
	}
	if dp >= nd {
		// An integer (a float64 above 10^16, a float32 above 2^24): the
		// digits, then zeros (dp ≤ 21).
		x, y, z := buf.at(ds)
		store24(o[w:], x, y, z)
		copy24(o[w+nd:], zeros24)
		w += dp
		return b[:n+w]
	}
	// The integer part, the digits before the point or a 0, then the
	// fraction, with up to five zeros before the digits (v ≥ 1e-6): one
	// layout for both, so that no branch picks between them.
	ip, il := max(dp, 0), max(dp, 1)
	x, y, z := buf.at(ds + ip - il)
	store24(o[w:], x, y, z)
	o[w+il] = '.'
	x, y, z = buf.at(ds + dp)
	store24(o[w+il+1:], x, y, z)
	w += il + 1 + nd - dp
	return b[:n+w]
}

const pairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"
