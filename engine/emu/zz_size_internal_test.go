package emu

import (
	"testing"
	"unsafe"
)

func TestZZSize(t *testing.T) {
	var m machine
	t.Logf("machine %d hb at %d hbThread %d", unsafe.Sizeof(m), unsafe.Offsetof(m.hb), unsafe.Sizeof(m.hb))
}
