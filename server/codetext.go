package server

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"hash/maphash"
	"sync"
)

// codeTexts remembers the program texts runs came with, each under its
// JSON spelling (the bytes between the quotes of a request's "code") and
// under its text, with the SHA-256 of the text and the hash state after
// it. A page sends the same cell again and again (another seed, another
// schedule, a rank count), and a class sends the same step's kernel:
// unquoting the text (cutCode) took 9–15 µs for step 8's 5 KB, a string
// of its size allocated per run, and hashing it for the run id and the
// code's key another pass. A spelling seen before is found with one
// maphash and one comparison of its bytes, and the run id (runIDSum)
// hashes only the settings after the text's saved state. It holds at most
// limits.CodeTexts bytes of spellings and texts, the oldest dropped first.
type codeTexts struct {
	mu     sync.Mutex
	seed   maphash.Seed
	byRaw  map[uint64]*codeText
	byText map[uint64]*codeText
	order  []*codeText // oldest first
	bytes  int
	max    int
}

// codeText is one program text and what is known of it.
type codeText struct {
	raw      []byte // its JSON spelling, without the quotes (a copy)
	code     string
	rawKey   uint64
	textKey  uint64
	sum      [sha256.Size]byte // sha256.Sum256 of code
	afterSum hash.Hash         // SHA-256 with code written: cloned, never written to
}

func newCodeTexts(max int) *codeTexts {
	return &codeTexts{seed: maphash.MakeSeed(), byRaw: map[uint64]*codeText{}, byText: map[uint64]*codeText{}, max: max}
}

// spelled returns the text spelled raw when it is known (nil t: none is).
func (t *codeTexts) spelled(raw []byte) (string, bool) {
	if t == nil {
		return "", false
	}
	k := maphash.Bytes(t.seed, raw)
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byRaw[k]; e != nil && bytes.Equal(e.raw, raw) {
		return e.code, true
	}
	return "", false
}

// text returns code's entry when it is known (nil t: none is).
func (t *codeTexts) text(code string) *codeText {
	if t == nil {
		return nil
	}
	k := maphash.String(t.seed, code)
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byText[k]; e != nil && e.code == code {
		return e
	}
	return nil
}

// add remembers code, spelled raw in a request (raw is copied); a text
// larger than the whole budget is not kept.
func (t *codeTexts) add(raw []byte, code string) {
	if t == nil || len(raw)+len(code) > t.max {
		return
	}
	h := sha256.New()
	h.Write([]byte(code))
	e := &codeText{raw: bytes.Clone(raw), code: code, rawKey: maphash.Bytes(t.seed, raw), textKey: maphash.String(t.seed, code), afterSum: h}
	h.Sum(e.sum[:0]) // Sum appends; h is left as it was
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.byRaw[e.rawKey]; old != nil && bytes.Equal(old.raw, e.raw) {
		return // added meanwhile by another request
	}
	t.byRaw[e.rawKey] = e
	t.byText[e.textKey] = e
	t.order = append(t.order, e)
	t.bytes += len(e.raw) + len(e.code)
	for t.bytes > t.max {
		old := t.order[0]
		t.order[0] = nil
		t.order = t.order[1:]
		t.bytes -= len(old.raw) + len(old.code)
		if t.byRaw[old.rawKey] == old {
			delete(t.byRaw, old.rawKey)
		}
		if t.byText[old.textKey] == old {
			delete(t.byText, old.textKey)
		}
	}
}
