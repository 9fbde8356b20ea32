package server

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"hash/maphash"
	"sync"

	"pldworkbench/engine/limits"
)

// codeTexts remembers the program texts runs came with, each under its
// JSON spelling (the bytes between the quotes of a request's "code"),
// with the SHA-256 of the text and the hash state after it. A page sends
// the same cell again and again (another seed, another schedule, a rank
// count), and a class sends the same step's kernel: unquoting the text
// (cutCode) took 9–15 µs for step 8's 5 KB, a string of its size
// allocated per run, and hashing it for the run id and the code's key
// another pass. A spelling seen before is found with one maphash and one
// comparison of its bytes; the request then carries its entry
// (runRequest.text), and the run id (runIDSum) hashes only the settings
// after the text's saved state. Only texts of requests that decoded and
// are within limits.MaxCode are kept, at most limits.CodeTexts bytes of
// them counting each entry's own cost (codeTextCost), the oldest dropped
// first.
type codeTexts struct {
	mu    sync.Mutex
	seed  maphash.Seed
	byRaw map[uint64]*codeText
	order []*codeText // oldest first
	bytes int
	max   int
}

// codeText is one program text and what is known of it.
type codeText struct {
	raw      []byte // its JSON spelling, without the quotes (a copy)
	code     string
	rawKey   uint64
	sum      [sha256.Size]byte // sha256.Sum256 of code
	afterSum hash.Hash         // SHA-256 with code written: cloned, never written to
}

// codeTextCost is what an entry takes beyond its spelling and text: the
// struct, the hash state, its map slot and its place in order.
const codeTextCost = 256

// cost is what e counts against the budget.
func (e *codeText) cost() int { return len(e.raw) + len(e.code) + codeTextCost }

func newCodeTexts(max int) *codeTexts {
	return &codeTexts{seed: maphash.MakeSeed(), byRaw: map[uint64]*codeText{}, max: max}
}

// spelled returns the entry of the text spelled raw when it is known (nil
// t: none is).
func (t *codeTexts) spelled(raw []byte) *codeText {
	if t == nil {
		return nil
	}
	k := maphash.Bytes(t.seed, raw)
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byRaw[k]; e != nil && bytes.Equal(e.raw, raw) {
		return e
	}
	return nil
}

// add remembers code, spelled raw in a request that decoded (raw is
// copied), and returns its entry; nil when t is nil or the text is not
// kept: over limits.MaxCode (the request will be refused) or over the
// whole budget.
func (t *codeTexts) add(raw []byte, code string) *codeText {
	if t == nil || len(code) > limits.MaxCode || len(raw)+len(code)+codeTextCost > t.max {
		return nil
	}
	h := sha256.New()
	h.Write([]byte(code))
	e := &codeText{raw: bytes.Clone(raw), code: code, rawKey: maphash.Bytes(t.seed, raw), afterSum: h}
	h.Sum(e.sum[:0]) // Sum appends; h is left as it was
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.byRaw[e.rawKey]; old != nil && bytes.Equal(old.raw, e.raw) {
		return old // added meanwhile by another request
	}
	t.byRaw[e.rawKey] = e
	t.order = append(t.order, e)
	t.bytes += e.cost()
	for t.bytes > t.max {
		old := t.order[0]
		t.order[0] = nil
		t.order = t.order[1:]
		t.bytes -= old.cost()
		if t.byRaw[old.rawKey] == old {
			delete(t.byRaw, old.rawKey)
		}
	}
	return e
}
