package emu

import (
	"testing"
	"unsafe"
)

// TestRecordInPlaceKinds checks recordInPlace, whose plain read and write
// have loops of their own (and a read whose kept entries come first
// appends itself where they end), against recordAnyInPlace, the one loop
// for every kind, on every segment of up to segInline entries drawn from
// a small set (three threads, each kind, an epoch the recording thread is
// ordered after or not) and every access kind of thread 0: both must
// agree on whether they record and on the entries they leave.
func TestRecordInPlaceKinds(t *testing.T) {
	var pool []segAcc
	for tid := uint16(0); tid < 3; tid++ {
		for k := uint16(0); k < 4; k++ {
			for _, clk := range []uint32{1, 3} {
				pool = append(pool, segAcc{tid: tid, sk: 1<<2 | k, clk: clk})
			}
		}
	}
	// Thread 0 at epoch 4, ordered after epoch 2 of threads 1 and 2: the
	// entries at epoch 1 are ordered before it, those at 3 are not.
	h := &hbThread{tid: 0, own: 4, base: &vclock{v: []uint32{0, 2, 2}, refs: 1}}
	var segs [][]segAcc
	var grow func(acc []segAcc)
	grow = func(acc []segAcc) {
		segs = append(segs, acc)
		if len(acc) == segInline {
			return
		}
		for _, e := range pool {
			grow(append(acc[:len(acc):len(acc)], e))
		}
	}
	grow(nil)
	checked, recorded := 0, 0
	for _, acc := range segs {
		var seg segment
		copy(seg.acc[:], acc)
		seg.lo, seg.hi = 8, 24
		for k := uint32(0); k < 4; k++ {
			cur := cellAcc{tid: 0, clk: 4, sk: 2<<2 | k}
			fast, slow := seg, seg
			okF := recordInPlace(&fast, cur, h)
			okS := recordAnyInPlace(&slow, cur, h)
			if okF != okS || fast != slow {
				t.Fatalf("entries %v, kind %d: recordInPlace %v %v, recordAnyInPlace %v %v", acc, k, okF, fast.acc, okS, slow.acc)
			}
			if !okF && fast != seg {
				t.Fatalf("entries %v, kind %d: not recorded but changed to %v", acc, k, fast.acc)
			}
			checked++
			if okF {
				recorded++
			}
		}
	}
	if recorded == 0 || recorded == checked {
		t.Fatalf("%d of %d recorded: the cases do not cover both outcomes", recorded, checked)
	}
	// A spilled segment is never recorded in place.
	var sp segment
	sp.acc[0] = segAcc{tid: spillMark, clk: 1}
	sp.acc[1].clk = 4
	for k := uint32(0); k < 4; k++ {
		if c := sp; recordInPlace(&c, cellAcc{tid: 0, clk: 4, sk: 2<<2 | k}, h) || c != sp {
			t.Fatalf("kind %d: a spilled segment recorded in place", k)
		}
	}
}

// TestPlainMemoLines checks what plainMemo's padding is for: the bytes a
// memo's check reads (its first 24) in one cache line, for every memo of
// a machine on the heap. A machine's size class is a multiple of 64
// bytes and the allocator puts an 8-byte header before it, so the memos,
// 32 bytes apart, all start at the same offset from a line's start. If a
// field added to machine or hbThread moves them across a line's end, pad
// before plain.
func TestPlainMemoLines(t *testing.T) {
	if s := unsafe.Sizeof(plainMemo{}); s != 32 {
		t.Fatalf("plainMemo is %d bytes, not 32", s)
	}
	for range 4 {
		machineSink = &machine{} // on the heap, as the sim's machines are
		for i := range machineSink.hb.plain {
			pm := &machineSink.hb.plain[i]
			first := uintptr(unsafe.Pointer(pm))
			last := uintptr(unsafe.Pointer(&pm.clk)) + unsafe.Sizeof(pm.clk) - 1
			if first/64 != last/64 {
				t.Fatalf("memo %d at %#x: its bytes to %#x cross a cache line", i, first, last)
			}
		}
	}
}

var machineSink *machine
