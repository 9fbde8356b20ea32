package emu

import (
	"testing"
	"unsafe"
)

var frameSink *frame

// TestFrameLines checks where a frame's fields are on the heap: the frame
// starts a cache line, its cursors and env headers (with fn and syms) are
// in that first line, and every cursor of cbuf fills a line of its own;
// a small env (an even number of slots, up to 16) starts a line too.
func TestFrameLines(t *testing.T) {
	line := func(p unsafe.Pointer) uintptr { return uintptr(p) / 64 }
	if s := unsafe.Sizeof(frame{}); s != 320 {
		t.Fatalf("a frame is %d bytes, want 320 (a size class of whole lines)", s)
	}
	if s := unsafe.Sizeof(cursor{}); s != 64 {
		t.Fatalf("a cursor is %d bytes, want 64", s)
	}
	m := &machine{}
	for i := range 8 {
		m.pushFrame(&cfunc{nslots: 1 + i%16}, nil, nil, -1)
		fr := m.fr
		frameSink = fr
		if uintptr(unsafe.Pointer(fr))%64 != 0 {
			t.Fatalf("frame at %p does not start a line", fr)
		}
		l := line(unsafe.Pointer(fr))
		for _, p := range []unsafe.Pointer{unsafe.Pointer(&fr.cursors), unsafe.Pointer(&fr.env), unsafe.Pointer(&fr.fn), unsafe.Pointer(&fr.syms)} {
			if line(p) != l || line(unsafe.Add(p, 7)) != l {
				t.Fatalf("frame at %p: a field at %p is not in its first line", fr, p)
			}
		}
		for k := range fr.cbuf {
			c := unsafe.Pointer(&fr.cbuf[k])
			if uintptr(c)%64 != 0 {
				t.Fatalf("frame at %p: cbuf[%d] at %p does not start a line", fr, k, c)
			}
		}
		if cap(fr.env)%2 != 0 || uintptr(unsafe.Pointer(&fr.env[0]))%64 != 0 {
			t.Fatalf("env of %d slots (cap %d) at %p does not start a line", len(fr.env), cap(fr.env), &fr.env[0])
		}
	}
}
