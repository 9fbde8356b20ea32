package emu

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pldworkbench/engine/ir"
)

// TestReadyQueueOrder checks the ready queue's three parts (first, the
// ascending run, the heap) hand machines out in exactly the (key, rank,
// block) order of a sorted reference, over random mixes of pushes and
// pops: pushes of the latest entry (the run's case), of the earliest
// (first's), and anywhere (the heap's), under the fair and adversarial
// key shapes.
func TestReadyQueueOrder(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		var h readyHeap
		h.setSchedule(schedFair, 0)
		var ref []readyEntry
		var popped int64
		ms := make([]*machine, 64)
		for i := range ms {
			ms[i] = &machine{rank: i % 16, block: i / 16}
		}
		queued := map[*machine]bool{}
		for step := 0; step < 2000; step++ {
			if len(ref) > 0 && rng.IntN(3) == 0 {
				slices.SortFunc(ref, func(a, b readyEntry) int {
					if a.before(&b) {
						return -1
					}
					return 1
				})
				want := ref[0].m
				ref = ref[1:]
				if got := h.pop(); got != want {
					t.Fatalf("seed %d step %d: popped rank %d block %d, want rank %d block %d", seed, step, got.rank, got.block, want.rank, want.block)
				}
				popped = want.clock
				delete(queued, want)
				continue
			}
			m := ms[rng.IntN(len(ms))]
			if queued[m] {
				continue
			}
			switch rng.IntN(5) {
			case 0: // the latest: a rank that ran one operation
				m.clock = popped + int64(rng.IntN(1000)) + 1000
			case 1: // ties on the clock, ordered by rank and block
				m.clock = popped
			case 2: // an adversarial key: the access class above the clock
				m.clock = popped%(1<<classShift) + int64(rng.IntN(3))<<classShift
			default:
				m.clock = popped + int64(rng.IntN(2000))
			}
			queued[m] = true
			h.push(m)
			ref = append(ref, entryOf(m))
			if h.len() != len(ref) {
				t.Fatalf("seed %d: len %d, want %d", seed, h.len(), len(ref))
			}
		}
	}
}

// TestNewTensorFuncBytes: a tensor filled in its dtype's bytes holds the
// bytes a run would make of the same values given as float64s (NewTensor,
// converted at the run's boundary), for every dtype, values out of range
// and fractions for the integer ones included.
func TestNewTensorFuncBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]float64, 4099)
	for i := range data {
		data[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-4))
	}
	data[0], data[1], data[2] = math.Inf(1), -0.0, 1e300
	for _, dt := range []ir.DType{ir.FP32, ir.FP16, ir.BF16, ir.INT8, ir.INT16, ir.INT32, ir.INT64} {
		want, _ := NewTensor(dt, []int{len(data)}, data).bytes()
		got := NewTensorFunc(dt, []int{len(data)}, func(i int) float64 { return data[i] })
		if !got.IsBytes() || !bytes.Equal(got.raw, want) {
			t.Errorf("%s: NewTensorFunc's bytes differ from NewTensor's at the run boundary", dt)
		}
	}
}

// TestMaxInto: the unrolled join loop is the plain one at every length
// around its step of four, in place (dst = a) or not.
func TestMaxInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 13; n++ {
		a, b := make([]uint32, n), make([]uint32, n)
		for i := range a {
			a[i], b[i] = rng.Uint32N(8), rng.Uint32N(8)
		}
		want := make([]uint32, n)
		for i := range want {
			want[i] = max(a[i], b[i])
		}
		got := make([]uint32, n)
		maxInto(got, a, b)
		maxInto(a, a, b)
		if !slices.Equal(got, want) || !slices.Equal(a, want) {
			t.Errorf("n=%d: maxInto gives %v and %v in place, want %v", n, got, a, want)
		}
	}
}
