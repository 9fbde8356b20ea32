package emu

import (
	"unsafe"

	"pldworkbench/engine/limits"
)

// The vclocks of ended runs, kept for the next run (as the cell pages
// are, cells.go): a barrier's P ranks each copy the dispatch's shared
// fork clock at their first wait, P vclocks of P+1 entries (260 KiB at
// P = 256, 4 MiB at P = 1024) that a run allocated afresh and the
// garbage collector then had to catch up with; a repeated run (a
// server's, a benchmark's) takes them from here. At most
// limits.VclockPool bytes of entries are kept.
var vclockPool = sparePool[vclock]{limit: limits.VclockPool, size: vclockBytes}

// takeVclock returns a spare vclock of an ended run, or a new one.
func takeVclock() *vclock {
	if v := vclockPool.take(); v != nil {
		return v
	}
	return &vclock{}
}

// giveVclocks hands the vclocks a run made back, as far as the pool has
// room; nothing may use them afterwards.
func giveVclocks(vs []*vclock) {
	for _, v := range vs {
		*v = vclock{v: v.v[:0]}
	}
	vclockPool.give(vs)
}

func vclockBytes(v *vclock) int64 {
	return int64(unsafe.Sizeof(*v)) + int64(cap(v.v))*4
}
