package emu

import (
	"fmt"
	"strconv"
	"strings"

	"pldworkbench/engine/ir"
)

// Memory: host tensors and window buffers are raw little-endian bytes; a
// tref is a typed, shaped view of either; a tile is an on-chip buffer with
// its own bytes and a valid region.

// windowAlign is the padding of every window buffer (pld-spec §5.3,
// ruling 10: packed, 32-byte aligned, no 4 KiB floor).
const windowAlign = 32

// hostTensor is a host tensor parameter of the entry.
type hostTensor struct {
	name  string
	dt    ir.DType
	shape []int
	data  []byte
	// shared is set while data is the caller's input tensor's own bytes:
	// the first write copies them (own).
	shared bool
}

// own makes h's bytes its own before a write.
func (h *hostTensor) own() {
	if h.shared {
		h.data, h.shared = append([]byte(nil), h.data...), false
	}
}

// tensor hands the host tensor back at the API boundary: its bytes as
// they are, in the byte form (nothing copied or converted).
func (h *hostTensor) tensor() *Tensor {
	return &Tensor{DType: h.dt, Shape: append([]int(nil), h.shape...), raw: h.data}
}

// bufDesc is one window buffer: the same byte range of every rank's window.
type bufDesc struct {
	name string
	off  int // byte offset in each rank's window
	size int // bytes requested (the padding after it is not part of it)
	// domain lists the ranks of its communication domain, nil for the
	// world (domain.go).
	domain []int
	// The pages of the bookkeeping of the signal cells of every rank's
	// copy, made when first touched (see lookupCell): a page holds
	// 1<<rbits ranks' copies (a block) of 256>>rbits elements, flat[
	// block*npages + page] for a buffer of a few pages per block, else
	// cells[block][page].
	flat   []*cellPage
	npages int
	cells  [][]*cellPage
	rbits  uint8
	// shadows[rank] is the race detector's shadow of each rank's copy,
	// race what it keeps of all of them at once (bufRace, next to
	// shadows: an access and a signal op read both).
	shadows []*shadow
	race    bufRace
	// sig is what the detector's words of its signal cells leave out
	// (cellword.go).
	sig sigRefs
	// view is the last view pld.window made of it (window).
	view *tref
}

// tref is a view of global memory: a host tensor (or a slice of one), or a
// window buffer, whose bytes differ per rank.
type tref struct {
	name  string
	dt    ir.DType
	shape []int
	host  *hostTensor
	off   int // byte offset into host.data
	buf   *bufDesc
}

func (t *tref) numel() int  { return numElems(t.shape) }
func (t *tref) nbytes() int { return t.numel() * t.dt.Bytes() }

// kind names the view for messages.
func (t *tref) what() string {
	if t.buf != nil {
		return fmt.Sprintf("window %s %v %s", t.name, dims(t.shape), t.dt)
	}
	return fmt.Sprintf("%s %v %s", t.name, dims(t.shape), t.dt)
}

// bytesOf returns the bytes of t as rank sees them (its own copy of a
// window), to read.
func (s *sim) bytesOf(t *tref, rank int) []byte {
	if t.host != nil {
		return t.host.data[t.off : t.off+t.nbytes()]
	}
	return s.windows[rank][t.buf.off : t.buf.off+t.nbytes()]
}

// bytesFor is bytesOf to write: a host tensor still sharing its caller's
// input bytes gets its own first.
func (s *sim) bytesFor(t *tref, rank int) []byte {
	if t.host != nil {
		t.host.own()
	}
	return s.bytesOf(t, rank)
}

// tile is an on-chip buffer: row-major bytes of shape, of which the
// leading valid region holds data.
type tile struct {
	dt    ir.DType
	shape []int
	valid []int
	data  []byte
	// pinned tiles are never recycled (one passed to a call).
	pinned bool
	// charged is the bytes the tile holds against the memory budget, owner
	// the frame that made it (budget.go).
	charged int
	owner   *frame
}

// Tiles are recycled. A kernel that loops over chunks makes a new tile per
// load and per operation, and a 4 MiB tile costs about 1 ms to allocate and
// zero, more than the copy that fills it; so when a tile's last slot is
// overwritten, or the frame that made it returns, its bytes go to a pool
// of the run, and the next tile of that size on any rank reuses them (a
// mesh all-reduce at P=8 in 4 MiB tiles made 115 MB of tiles a run with a
// pool per rank, none now). Tiles never leave the frame that made them
// (kernels are not called with tiles), so "last slot" is a scan of one
// environment.

// The small values every op makes come from slabs: the lists of offsets
// and shapes it reads (one or two ints each) and its result tile. A ring
// all-reduce at P=1024 with 1 K per rank makes about 8 M such lists and
// 3 M tiles in a run, each its own allocation before (mallocgc under
// ints and makeTile: 0.3 s of its 5.3 s); carved from a slab each costs
// a few ns. Each is its own memory, as a fresh allocation is; a slab is
// freed when nothing carved from it is live, so a long-lived tile keeps
// at most one slab (64 tiles, about 7 KB) alive.
const slabInts, slabTiles = 512, 64

// newInts returns a zeroed list of n ints, capacity n: an append to it
// moves it, never into the next list of the slab.
func (s *sim) newInts(n int) []int {
	if n > len(s.intSlab) {
		if n > slabInts/8 {
			return make([]int, n)
		}
		s.intSlab = make([]int, slabInts)
	}
	out := s.intSlab[:n:n]
	s.intSlab = s.intSlab[n:]
	return out
}

// newTile returns a zero tile.
func (s *sim) newTile() *tile {
	if len(s.tileSlab) == 0 {
		s.tileSlab = make([]tile, slabTiles)
	}
	t := &s.tileSlab[0]
	s.tileSlab = s.tileSlab[1:]
	return t
}

// tilePoolDepth bounds the buffers kept per size: a kernel holds a few
// tiles at once (an accumulator, a loaded piece, a result).
const tilePoolDepth = 8

// makeTile returns a tile from the pool or a new one, made at n. Its bytes
// are zero only when zero is set; callers that overwrite every byte pass
// false. A new tile is charged to the memory budget first; pooled bytes
// were charged when they were made and stay charged while pooled.
func (m *machine) makeTile(n *node, dt ir.DType, shape, valid []int, zero bool) *tile {
	size := numElems(shape) * dt.Bytes()
	owner := m.fr // the top frame, nil when there is none
	if bufs := m.s.pool[size]; len(bufs) > 0 {
		b := bufs[len(bufs)-1]
		m.s.pool[size] = bufs[:len(bufs)-1]
		if zero {
			clear(b)
		}
		t := m.s.newTile()
		*t = tile{dt: dt, shape: shape, valid: valid, data: b, charged: size, owner: owner}
		return t
	}
	m.reserveTile(n, size)
	t := m.s.newTile()
	*t = tile{dt: dt, shape: shape, valid: valid, data: make([]byte, size), charged: size, owner: owner}
	return t
}

// dropTile gives the bytes of a tile nothing holds any more to the pool,
// or back to the budget when the pool has enough of that size.
func (m *machine) dropTile(old *tile) {
	n := len(old.data)
	if m.s.pool == nil {
		m.s.pool = map[int][][]byte{}
	}
	if len(m.s.pool[n]) < tilePoolDepth && old.charged == n && n > 0 {
		m.s.pool[n] = append(m.s.pool[n], old.data)
		old.charged = 0 // the pool holds the charge now
	} else {
		m.releaseTile(old)
	}
	old.data = nil
}

// setSlot puts v in slot of the current frame, recycling the tile it
// replaces when no other slot holds that tile.
func (m *machine) setSlot(slot int, v val) {
	fr := m.top()
	old, ok := fr.env[slot].o.(*tile)
	fr.env[slot] = v
	if !ok || old.pinned || v.o == any(old) || m.holds(fr, old) {
		return
	}
	m.dropTile(old)
}

// holds reports whether a slot of fr holds t.
func (m *machine) holds(fr *frame, t *tile) bool {
	for i := range fr.env {
		if x, ok := fr.env[i].o.(*tile); ok && x == t {
			return true
		}
	}
	return false
}

// soleHolder reports whether slot is the only slot of fr that holds t.
func (m *machine) soleHolder(fr *frame, slot int, t *tile) bool {
	for i := range fr.env {
		if x, ok := fr.env[i].o.(*tile); ok && x == t && i != slot {
			return false
		}
	}
	return true
}

func zeros(n int) []int { return make([]int, n) }

// dims renders a shape or index list the way the DSL writes it: [1, 64].
type dims []int

func (d dims) String() string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// regionText renders offsets and extents as [a:b, c:d].
func regionText(off, ext []int) string {
	parts := make([]string, len(off))
	for i := range off {
		parts[i] = fmt.Sprintf("%d:%d", off[i], off[i]+ext[i])
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// inBounds reports whether the block at off of extent ext lies inside shape.
func inBounds(shape, off, ext []int) bool {
	if len(off) != len(shape) || len(ext) != len(shape) {
		return false
	}
	for i := range shape {
		if off[i] < 0 || ext[i] < 0 || off[i]+ext[i] > shape[i] {
			return false
		}
	}
	return true
}

// accFunc accumulates src into dst element-wise (atomic=Add).
type accFunc func(dst, src []byte)

// accumulator returns the element-wise add of dtype dt.
func accumulator(dt ir.DType) accFunc {
	esz := dt.Bytes()
	if dt == ir.FP32 {
		return func(dst, src []byte) {
			addF32(dst, dst, src)
		}
	}
	return func(dst, src []byte) {
		for i := 0; i+esz <= len(dst); i += esz {
			if dt.IsFloat() {
				putFloat(dst[i:], dt, float64(float32(getFloat(dst[i:], dt))+float32(getFloat(src[i:], dt))))
			} else {
				putInt(dst[i:], dt, getInt(dst[i:], dt)+getInt(src[i:], dt))
			}
		}
	}
}

// copyBlock copies the block of extent ext at soff of the row-major array
// src (shape sshape) to doff of dst (shape dshape); all four share one
// rank. Rows of the innermost dimension move with Go's copy; acc, when not
// nil, accumulates instead.
func copyBlock(dst []byte, dshape, doff []int, src []byte, sshape, soff []int, ext []int, esz int, acc accFunc) {
	n := len(ext)
	for _, e := range ext {
		if e <= 0 {
			return
		}
	}
	dstr, sstr := strides(dshape), strides(sshape)
	row := ext[n-1] * esz
	idx := make([]int, n)
	for {
		d, s := 0, 0
		for k := 0; k < n; k++ {
			d += (doff[k] + idx[k]) * dstr[k]
			s += (soff[k] + idx[k]) * sstr[k]
		}
		d, s = d*esz, s*esz
		if acc != nil {
			acc(dst[d:d+row], src[s:s+row])
		} else {
			copy(dst[d:d+row], src[s:s+row])
		}
		if !nextIndex(idx[:n-1], ext) {
			return
		}
	}
}

// nextIndex steps idx, an index into a block of extent ext (at least as
// long), to the next one in row-major order and reports whether there is
// one: the walk of copyBlock's rows and the race detector's runs (it is
// inlined, so the walks cost what the loops written out did).
func nextIndex(idx, ext []int) bool {
	for k := len(idx) - 1; k >= 0; k-- {
		idx[k]++
		if idx[k] < ext[k] {
			return true
		}
		idx[k] = 0
	}
	return false
}

// strides returns the row-major element strides of shape.
func strides(shape []int) []int {
	st := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}

// flatIndex returns the row-major flat index of idx in shape, or -1 when
// it is out of range.
func flatIndex(shape, idx []int) int {
	if len(idx) != len(shape) {
		return -1
	}
	off := 0
	for i, x := range idx {
		if x < 0 || x >= shape[i] {
			return -1
		}
		off = off*shape[i] + x
	}
	return off
}
