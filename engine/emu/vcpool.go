package emu

import (
	"sync"
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
var vclockPool struct {
	mu    sync.Mutex
	free  []*vclock
	bytes int64
}

// takeVclock returns a spare vclock of an ended run, or a new one.
func takeVclock() *vclock {
	p := &vclockPool
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.free)
	if n == 0 {
		return &vclock{}
	}
	v := p.free[n-1]
	p.free[n-1] = nil
	p.free = p.free[:n-1]
	p.bytes -= vclockBytes(v)
	return v
}

// giveVclocks hands the vclocks a run made back, as far as the pool has
// room; nothing may use them afterwards.
func giveVclocks(vs []*vclock) {
	p := &vclockPool
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, v := range vs {
		b := vclockBytes(v)
		if p.bytes+b > limits.VclockPool {
			break
		}
		*v = vclock{v: v.v[:0]}
		p.free = append(p.free, v)
		p.bytes += b
	}
}

func vclockBytes(v *vclock) int64 {
	return int64(unsafe.Sizeof(*v)) + int64(cap(v.v))*4
}
