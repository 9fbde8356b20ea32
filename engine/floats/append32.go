package floats

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sync"
)

// exp32Entry is what AppendFloat32s needs of a float32's biased exponent
// bq: mask, the significand bits that are not all zero exactly when the
// element takes its fast path (0 for an exponent it never takes), and
// shortest32's constants for bq, hoisted out of the element loop: g1
// (the table entry's upper 63 bits plus one), the shift sh = h+2 that
// scales c to 4c·2^h, k = flog10pow2(bq-150), and (dhi, dlo) =
// g1·2^(h+1), the 128-bit distance from the scaled value's product to
// either bound's (the bounds are 4c ∓ 2).
type exp32Entry struct {
	g1, dhi, dlo uint64
	mask         uint32
	sh           uint8
	k            int8
}

var (
	exp32Once sync.Once
	exp32Tab  *[256]exp32Entry
)

// The biased exponents of AppendFloat32s' fast path: float32s from 2^-19
// (above float32(1e-6), the exponent form's cutoff, which lies in the
// binade below) to 2^26. From intBq (2^23) on every float32 is an
// integer, and one below 2^26 has at most eight digits.
const fastBqMin, intBq, fastBqMax = 108, 150, 152

func buildExp32() {
	gOnce.Do(buildG)
	t := new([256]exp32Entry)
	for bq := fastBqMin; bq <= fastBqMax; bq++ {
		q := bq - 150
		k := flog10pow2(q)
		g := &gTable[k-gKMin]
		h := q + g.f + 33
		if h < 0 || h > 38 || bq >= intBq && k != 0 { // 4c < 2^26 shifted by h must fit 64 bits; AppendFloat32s writes an integer's d as is
			panic("floats: float32 constants out of range")
		}
		g1 := g.hi + 1
		frac := min(-q, 23) // significand bits below the binary point
		if q >= 0 {
			frac = 23
		}
		t[bq] = exp32Entry{
			g1: g1, dhi: g1 >> (63 - h), dlo: g1 << (h + 1),
			// Below 1 every element is a non-integer; above, the bits
			// under the binary point must not all be zero; from 2^23 on,
			// all but a power of two, which shortest32 treats apart.
			mask: 1<<frac - 1,
			sh:   uint8(h + 2), k: int8(k),
		}
	}
	exp32Tab = t
}

// AppendFloat32s appends the elements of f as AppendElem32 appends their
// float64 values, separated by commas, with a comma first when lead is
// set: the writer of FP32, FP16 and BF16 output, fed straight from
// float32s.
//
// A normal non-integer from 2^-19 to 2^23 (nearly every element of a
// randn fill and of sums of them) takes a path without a branch that
// depends on its value (which side of 1 a randn element falls, or
// whether it has a digit fewer, is a coin toss the branch predictor
// loses): shortest32's steps with its exponent's constants from a table
// and one 128-bit product instead of three (the bounds' products are
// the value's plus and minus a constant), the bounds compared with the
// candidates unrounded (find32), then its digits laid out by put32.
// An integer below 2^26 (an index fill and its sums) is found in the
// first loop too, as its own digits or, from 2^24 on, when fewer digits
// read back as it, shortest32's, and written by putInt32. Every other
// element is AppendElem32's. As in appendElems, the digits of a batch
// are found first, then written: the first loop (find32) makes no call,
// so its values stay in registers, and independent elements' multiplies
// overlap (BenchmarkAppendElem: about 13.5 ns an element of a randn
// fill, 9.3 of an index fill's sums; 14.7 and 10.0 with the first loop
// inside this function and the bounds rounded to odd before the
// comparisons; 17 and 13 with a 64-bit choice and the integers tested
// again in the second loop). Tried and slower: put32 written out inside
// the second loop (14.3 ns: more of the loop's values spill); a third
// loop between the two laying out each element's words, so that the
// storing loop only adds lengths; eight by multiplies within one word's
// lanes instead of its table of pairs (the index fill's 2.2 ns an
// element became 4.0).
//
// On amd64 a run of fast-path elements is written by fast32 in
// assembly: the same two loops and steps with every value in a register
// (the Go loops spill and reload a dozen a element), eight's digits by
// lane arithmetic in one word instead of its table: 179 instructions an
// element of a randn fill where the Go loops take 305 (cachegrind on
// BenchmarkAppendElem). Where the CPU has AVX-512 (avx512), both loops'
// arithmetic runs for eight elements at a time in vector lanes (find8,
// its table entries gathered, the 128-bit product from 32-bit
// multiplies; put8x8) and the second loop itself only stores: about 7.8
// ns an element where the scalar loops take 12.4 and the Go loops some
// 20, interleaved runs on a loaded machine. The lanes take the integers
// below 2^26 too (an index fill and its sums: their own digits, or from
// 2^24 the integer d the fraction's steps find, as find32 has it), but
// for the powers of two from 2^24. Elsewhere, and for the elements off
// the fast path, the Go loops (appendBatch32).
func AppendFloat32s(b []byte, f []float32, lead bool) []byte {
	exp32Once.Do(buildExp32)
	tab := exp32Tab
	comma := int(b2u(lead))
	for len(f) > 0 {
		if haveFast32 {
			// The fast path's run of elements in assembly, in the
			// room there is (24 bytes an element and 24 more; at
			// least 24 elements' worth), at most fastRun at a time.
			b = room32(b)
			room := b[len(b):cap(b)]
			n := min(len(f), (len(room)-24)/24, fastRun)
			w, r := fast32(&room[0], &f[0], n, tab, comma, avx512)
			b, f = b[:len(b)+w], f[r:]
			if r > 0 {
				comma = 1
			}
			if r == n {
				continue
			}
			if r == 0 {
				// Data off the fast path (integers: an index fill
				// and its sums) takes the Go loops a few batches at
				// a time, not a call that finds nothing before each.
				for range slowRun - 1 {
					if len(f) <= batch32 {
						break
					}
					b = appendBatch32(b, tab, f[:batch32], comma)
					f, comma = f[batch32:], 1
				}
			}
		}
		n := min(len(f), batch32)
		b = appendBatch32(b, tab, f[:n], comma)
		f, comma = f[n:], 1
	}
	return b
}

// slowRun is how many batches AppendFloat32s writes by its Go loops
// when fast32 takes no element.
const slowRun = 4

// fastRun bounds one fast32 call (some 40 µs), which cannot be
// preempted.
const fastRun = 1 << 12

// room32 is b with room for a batch past its length, checked once: an
// element takes at most 23 bytes (a comma and -100000000000000000000)
// and the fast path needs 40 to lay out in, so 40 a batch element
// leaves enough for the last.
func room32(b []byte) []byte {
	if cap(b)-len(b) < batch32*40 {
		b = append(b[:cap(b)], make([]byte, batch32*40)...)[:len(b)]
	}
	return b
}

// appendBatch32 is AppendFloat32s' Go loops for at most a batch of
// elements: their digits found first (find32), then written.
func appendBatch32(b []byte, tab *[256]exp32Entry, f []float32, comma int) []byte {
	var ds [batch32]uint32
	find32(tab, f, &ds)
	b = room32(b)
	for i, x := range f {
		u := math.Float32bits(x)
		k := len(b)
		o := (*[40]byte)(b[k : k+40])
		o[0] = ','
		o[comma] = '-' // kept for a negative x, overwritten for a positive one
		w := comma + int(u>>31)
		switch v, bq := ds[i], u>>23&0xff; {
		case v != 0 && v < intFlag && bq < intBq:
			b = b[:k+w+put32((*[32]byte)(o[w&3:][:32]), uint64(v), int(tab[bq].k))]
		case v != 0:
			// An integer: its own digits, or from 2^24 to 2^26 with
			// fewer digits than its own (some sums of an index
			// fill), shortest32's d with k = 0, the integer it is
			// written as, its digits and zeros.
			b = b[:k+w+putInt32((*[8]byte)(o[w&3:][:8]), v&^intFlag)]
		default:
			if comma != 0 {
				b = append(b, ',')
			}
			b = AppendElem32(b, float64(x))
		}
		comma = 1
	}
	return b
}

// batch32 is how many elements AppendFloat32s finds the digits of
// before it writes them.
const batch32 = 16

// find32 is AppendFloat32s' first loop: the digits of each element of
// f (at most a batch) into ds, flagged by intFlag for an integer
// written as its own digits, 0 for one AppendElem32 writes. It is a
// function of its own so that its values stay in registers: inside
// AppendFloat32s, whose second loop makes calls, they were spilled to
// the stack and reloaded on every element.
func find32(tab *[256]exp32Entry, f []float32, ds *[batch32]uint32) {
	for i, x := range f {
		u := math.Float32bits(x)
		bq := u >> 23 & 0xff
		e := &tab[bq]
		ds[i&(batch32-1)] = 0
		if u&e.mask == 0 || bq >= intBq {
			// Not a fraction: an integer below 2^26 (the mask
			// clears one below 2^23 with bits under the point) is
			// written as its own digits (an index fill and most of
			// its sums), as AppendElem32 writes it, flagged by
			// intFlag; else one past 2^24 with bits under the mask
			// takes shortest32's digits (k is 0), and the rest are
			// AppendElem32's.
			if (bq >= 127 && bq <= fastBqMax || u == 0) && intDigits32(u, int32(x)) {
				j := int32(x)
				ds[i&(batch32-1)] = uint32((j^j>>31)-j>>31) | intFlag
				continue
			}
			if u&e.mask == 0 {
				continue
			}
		}
		// shortest32, with k and the shifts from e: 4c is not the
		// power of two's case (c has bits below the hidden one), so
		// the bounds are 4c-2 and 4c+2, and rop32 of each needs only
		// the upper 64 bits of its product with g1, which are those
		// of g1·4c·2^h ∓ d.
		c := uint64(u&(1<<23-1) | 1<<23)
		phi, plo := bits.Mul64(e.g1, c<<(e.sh&63))
		_, borrow := bits.Sub64(plo, e.dlo, 0)
		lhi, _ := bits.Sub64(phi, e.dhi, borrow)
		_, carry := bits.Add64(plo, e.dlo, 0)
		rhi, _ := bits.Add64(phi, e.dhi, carry)
		// shortest32 compares the bounds rounded to odd, vbl =
		// rop(lhi) and vbr = rop(rhi) (the product over 2^31, its
		// lowest bit set when inexact), with 4s; here the products
		// themselves are compared with 4s·2^31, which is the same
		// test without the rounding: vbl+out ≤ 4s exactly when
		// lhi+out ≤ s·2^33, and 4t+out ≤ vbr when rhi ≥ t·2^33+out.
		out := c & 1
		s := phi >> 33
		sIn := b2u(lhi+out <= s<<33)
		tOut := b2u(rhi < (s+1)<<33+out)
		// s is the nearer unless the bits below it, fr, are past
		// half (vb&3 = 3), or exactly half (2) and s is odd.
		fr := phi & (1<<33 - 1)
		d := s + 1 - sIn&(tOut|b2u(fr+s&1 <= 1<<32))
		// shorter: a multiple of ten in the interval, when exactly
		// one of the two around s is (s < 2^31: the division by 10
		// is a 32-bit one, one multiply).
		sp10 := uint64(uint32(s) / 10 * 10)
		upin := b2u(lhi+out <= sp10<<33)
		wpin := b2u(rhi >= (sp10+10)<<33+out)
		short := sp10 + 10 - 10*upin
		m := -(upin ^ wpin)
		ds[i&(batch32-1)] = uint32(d&^m | short&m)
	}
}

// intFlag marks an element of AppendFloat32s written as its own
// integer digits (below 2^26, so the flag is clear of them).
const intFlag = 1 << 31

// put32 writes d·10^k, the shortest digits of a float32 from 2^-19 to
// 2^23 that is not an integer, at the start of o and returns its length.
func put32(o *[32]byte, d uint64, k int) int {
	// 10^6 ≤ d < 2·10^8 (s < 10·2^24), and d·10^k is not an integer, so
	// at most seven digits precede the point and at most five zeros
	// follow "0.".
	const ascii0 = 0x3030303030303030
	hi := b2u(d >= 1e8)
	dg := eight(uint32(d - hi*1e8))
	nd0 := 7 + int(b2u(d >= 1e7)+hi)
	nd := nd0 - bits.LeadingZeros64(dg^ascii0)/8 // less the trailing zeros (dg is all zeros when d = 10^8)
	// d's own digits, the first in byte 0 of l0: nine of them '1' and
	// dg, eight dg, seven dg less its leading zero. Only the ninth is in
	// l1.
	l0 := dg >> (uint(8-nd0) * 8 & 63)
	if hi != 0 {
		l0 = '1' | dg<<8
	}
	l1 := dg >> 56
	// x = 0.d1d2…·10^dp. From dp = 1 on, the first dp digits, the point
	// and the rest (the digits shifted down dp bytes); else "0.", -dp
	// zeros and the digits. The first word stored is the digits or
	// "0.000000", the point goes after the integer part (where "0."
	// already has one), and the fraction's word goes after it.
	dp := nd0 + k
	a := max(dp, 0) // digits before the point
	fp := 2 - dp    // where the fraction starts
	w0 := uint64('0' | '.'<<8 | ascii0&^0xffff)
	if dp > 0 {
		w0, fp = l0, dp+1
	}
	binary.LittleEndian.PutUint64(o[:8], w0)
	o[max(dp, 1)&7] = '.'
	sh := uint(a) * 8 & 63
	binary.LittleEndian.PutUint64(o[fp&15:][:8], l0>>sh|l1<<1<<(63-sh))
	o[fp&15+8] = byte(l1)
	return fp + nd - a
}

// putInt32 writes v < 10^8 in decimal at the start of o and returns its
// length: eight's digits, less their leading zeros.
func putInt32(o *[8]byte, v uint32) int {
	const ascii0 = 0x3030303030303030
	dg := eight(v)
	nd := max(8-bits.TrailingZeros64(dg^ascii0)/8, 1) // "0" for 0
	binary.LittleEndian.PutUint64(o[:], dg>>(uint(8-nd)*8&63))
	return nd
}
