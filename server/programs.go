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
// nothing. It is bounded by limits.ProgramCache bytes, each program
// counted by its Footprint (its text, IR and emulator form: about 66 KiB
// for step 8's kernel, 9 MiB for a program at MaxCode) plus entryCost; a
// program larger than the whole bound is not kept.
type programCache struct {
	mu   sync.Mutex
	max  int64 // bytes
	used int64
	ll   *list.List // of *programEntry, most recent first
	by   map[programKey]*list.Element
}

type programEntry struct {
	key  programKey
	prog *engine.Program
	size int64 // what the entry counts against max
}

// entryCost is what an entry costs besides its program: its key, list
// element and map slot.
const entryCost = 256

func newProgramCache(max int64) *programCache {
	return &programCache{max: max, ll: list.New(), by: map[programKey]*list.Element{}}
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

// put keeps p under k, counted as size bytes (its Footprint), dropping
// the least recently used programs until the cache is within its bound.
func (c *programCache) put(k programKey, p *engine.Program, size int64) {
	size += entryCost
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.by[k]; ok {
		c.remove(e)
	}
	if size > c.max {
		return
	}
	c.by[k] = c.ll.PushFront(&programEntry{key: k, prog: p, size: size})
	c.used += size
	for c.used > c.max {
		c.remove(c.ll.Back())
	}
}

// remove drops entry e (c.mu held).
func (c *programCache) remove(e *list.Element) {
	pe := c.ll.Remove(e).(*programEntry)
	delete(c.by, pe.key)
	c.used -= pe.size
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
		s.programs.put(k, p, p.Footprint())
	}
	return p
}
