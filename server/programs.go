package server

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"

	"pldworkbench/engine"
)

// programKey names a compiled program: its file name, the hash of its
// text and the settings that change what Compile makes of it. The budget
// is the server's own and the same for every request, so it is not part
// of it.
type programKey struct {
	name     string
	src      [sha256.Size]byte // sha256.Sum256 of the text
	entry    string
	ranks    int
	platform string
}

// programCache keeps the most recently used compiled programs (a
// *engine.Program is immutable and safe to run from several goroutines),
// so a run posted again with other inputs or another schedule, a
// comparison's side runs and a page's re-check of the same cell compile
// nothing. It is bounded by limits.ProgramCache entries; a program holds
// its source and IR and, once run, the emulator's compiled form of it:
// tens of KiB for the course's kernels.
type programCache struct {
	mu  sync.Mutex
	max int
	ll  *list.List // of *programEntry, most recent first
	by  map[programKey]*list.Element
}

type programEntry struct {
	key  programKey
	prog *engine.Program
}

func newProgramCache(n int) *programCache {
	return &programCache{max: n, ll: list.New(), by: map[programKey]*list.Element{}}
}

func (c *programCache) get(k programKey) (*engine.Program, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.by[k]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*programEntry).prog, true
}

func (c *programCache) put(k programKey, p *engine.Program) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.by[k]; ok {
		e.Value.(*programEntry).prog = p
		c.ll.MoveToFront(e)
		return
	}
	c.by[k] = c.ll.PushFront(&programEntry{key: k, prog: p})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.by, last.Value.(*programEntry).key)
	}
}

// compile returns src compiled at entry ("" = its default entry),
// ranks and platform under the server's budget: from the cache, or loaded
// and compiled once and kept when the outcome says something about the
// program (not a deadline, a cancellation or an engine bug).
func (s *Server) compile(ctx context.Context, name string, src []byte, entry string, ranks int, platform string) *engine.Program {
	return s.compileSum(ctx, name, src, sha256.Sum256(src), entry, ranks, platform)
}

// compileSum is compile of src whose SHA-256 is sum already (a run's,
// from runIDSum).
func (s *Server) compileSum(ctx context.Context, name string, src []byte, sum [sha256.Size]byte, entry string, ranks int, platform string) *engine.Program {
	k := programKey{name: name, src: sum, entry: entry, ranks: ranks, platform: platform}
	if p, ok := s.programs.get(k); ok {
		return p
	}
	opts := engine.Options{Ranks: ranks, Platform: platform, Budget: s.budget()}
	mod := engine.Load(ctx, name, src, opts)
	p, _ := mod.Compile(ctx, entry, opts)
	if p.Internal == nil && !p.Stopped() {
		s.programs.put(k, p)
	}
	return p
}
