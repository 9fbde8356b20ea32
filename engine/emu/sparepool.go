package emu

import "sync"

// sparePool holds what the process's ended runs gave back, for the next
// runs to take, so a repeated run (a server's, a benchmark's) does not
// allocate, fault in and collect it afresh: the signal-cell pages
// (pagePool, cells.go) and the race detector's vclocks (vcpool.go). It
// keeps at most limit bytes, each value counted by size. sync.Pool
// would empty it at every garbage collection.
type sparePool[T any] struct {
	limit int64
	size  func(*T) int64

	mu    sync.Mutex
	free  []*T
	bytes int64
}

// take returns a spare as it was given back, or nil when there is none.
func (p *sparePool[T]) take() *T {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.free)
	if n == 0 {
		return nil
	}
	v := p.free[n-1]
	p.free[n-1] = nil
	p.free = p.free[:n-1]
	p.bytes -= p.size(v)
	return v
}

// give keeps vs as far as the pool has room; nothing may use them
// afterwards.
func (p *sparePool[T]) give(vs []*T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, v := range vs {
		b := p.size(v)
		if p.bytes+b > p.limit {
			break
		}
		p.free = append(p.free, v)
		p.bytes += b
	}
}

// drain empties the pool.
func (p *sparePool[T]) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.free)
	p.free, p.bytes = p.free[:0], 0
}
