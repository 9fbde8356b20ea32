package emu

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMaxIntoVector: maxInto, with its vector code (maxIntoVec, where
// the processor has it) and with its Go loop, is the plain loop at
// lengths past a few of its 32-entry passes, in place and not, for
// entries over the whole uint32 range (VPMAXUD compares them unsigned,
// as max does).
func TestMaxIntoVector(t *testing.T) {
	had := haveMaxVec
	defer func() { haveMaxVec = had }()
	for _, vec := range []bool{had, false} {
		haveMaxVec = vec
		testMaxInto(t)
	}
}

func testMaxInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for n := 0; n < 140; n++ {
		a, b := make([]uint32, n), make([]uint32, n)
		for i := range a {
			a[i], b[i] = rng.Uint32(), rng.Uint32()
			if i%3 == 0 {
				a[i] &= 15
			}
			if i%5 == 0 {
				b[i] = a[i]
			}
		}
		want := make([]uint32, n)
		for i := range want {
			want[i] = max(a[i], b[i])
		}
		got := make([]uint32, n)
		maxInto(got, a, b)
		inB := slices.Clone(b)
		maxInto(inB, a, inB)
		maxInto(a, a, b)
		if !slices.Equal(got, want) || !slices.Equal(a, want) || !slices.Equal(inB, want) {
			t.Fatalf("vector code %v, n=%d: maxInto gives %v, %v in place of a and %v in place of b, want %v", haveMaxVec, n, got, a, inB, want)
		}
	}
}
