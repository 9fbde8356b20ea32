package emu

import "slices"

// Segments and regions of a shadow (shadow.go): how a segment keeps its
// entries, in place or in its shadow's spill table, how an access is
// recorded among those in place (recordInPlace), and how a memory larger
// than one region is shadowed a region at a time.

// segment is a byte range [lo, hi) of its shadow's region whose bytes
// share their accesses: each a thread, epoch, kind and an interned site,
// as cellAcc has them unpacked. Up to segInline
// entries live in the segment itself, packed (segAcc), so a segment is
// 32 bytes without a pointer, two to a cache line: cutting one in two is
// a copy, not an allocation, and the garbage collector never scans a
// shadow's segments (a ring at P = 1024 carves a million of them, each
// of which was a heap slice). A segment with more entries — a window
// read by many concurrent peers — or with one that does not pack keeps
// them all in its shadow's spill table; acc[0] then says where
// (spillIndex) and acc[1] how many (count). In place, an entry's epoch
// is never 0 (a thread's first is 1), so the entries are those before
// the first empty one.
type segment struct {
	lo, hi int32
	acc    [segInline]segAcc
}

// segAcc is a cellAcc packed into 8 bytes, for the threads (ranks and
// the host) below spillMark and the interned sites below 2¹⁴.
type segAcc struct {
	tid uint16
	sk  uint16
	clk uint32
}

// spillMark as acc[0].tid marks a segment whose entries are spilled.
const spillMark = 0xFFFF

// packable reports whether a fits a segAcc.
func packable(a cellAcc) bool {
	return uint32(a.tid) < spillMark && a.sk <= 0xFFFF && a.clk != 0
}

// pack returns a as a segAcc; a is packable.
func pack(a cellAcc) segAcc {
	if !packable(a) {
		panic("emu: a wide entry in place")
	}
	return segAcc{uint16(a.tid), uint16(a.sk), a.clk}
}

// fitsInline reports whether entries acc can all live in a segment.
func fitsInline(acc []cellAcc) bool {
	if len(acc) > segInline {
		return false
	}
	for _, e := range acc {
		if !packable(e) {
			return false
		}
	}
	return true
}

// cell returns e unpacked.
func (e segAcc) cell() cellAcc { return cellAcc{tid: int32(e.tid), clk: e.clk, sk: uint32(e.sk)} }

// spillIndex returns 1 + the index of seg's entries in the spill table,
// or 0 if they are in place.
func (seg *segment) spillIndex() int32 {
	if seg.acc[0].tid == spillMark {
		return int32(seg.acc[0].clk)
	}
	return 0
}

// count returns the number of seg's entries.
func (seg *segment) count() int {
	if seg.acc[0].tid == spillMark {
		return int(seg.acc[1].clk)
	}
	n := 0
	for n < segInline && seg.acc[n].clk != 0 {
		n++
	}
	return n
}

// setInline makes acc, which fit in place, seg's entries.
func (seg *segment) setInline(acc []cellAcc) {
	seg.acc = [segInline]segAcc{}
	for i, e := range acc {
		seg.acc[i] = pack(e)
	}
}

// recordInPlace records cur, which is packable, in seg if seg's entries
// are in place, stay so with cur, and cur races with none of them: one
// pass over the packed entries, unpacking none. It reports whether it
// did; if not, seg is unchanged. The plain kinds, every access of a
// ring or a mesh, have a loop each with conflicts and covers worked out
// (a plain write conflicts with every other thread's entry and keeps
// none; a plain read conflicts with the others' writes and replaces its
// own thread's reads), and a read whose kept entries come first, as
// they do but for a read of a segment its thread read first, appends
// itself without moving them: the general loop, with a copy of the
// entries to keep, cost an access more instructions than the rest of
// its path.
func recordInPlace(seg *segment, cur cellAcc, h *hbThread) bool {
	acc := &seg.acc
	if acc[0].tid == spillMark {
		return false
	}
	me := uint16(cur.tid)
	switch cur.kind() {
	case accWrite:
		if pe := acc[1]; acc[0].tid == me && acc[2].clk == 0 && (pe.clk == 0 || pe.tid == me || h.knows(pe) || pe.clk <= h.at(int32(pe.tid))) {
			// The thread's own entry, then its own or one it is ordered
			// after (a ring's store over its load, or over a chunk its
			// right neighbour read).
			*acc = [segInline]segAcc{{me, uint16(cur.sk), cur.clk}}
			return true
		}
		for _, pe := range acc {
			if pe.clk == 0 {
				break
			}
			if pe.tid != me && !h.knows(pe) && pe.clk > h.at(int32(pe.tid)) {
				return false // access reports it
			}
		}
		*acc = [segInline]segAcc{{me, uint16(cur.sk), cur.clk}}
		return true
	case accRead:
		if acc[2].clk == 0 && acc[0].clk != 0 && h.keptByRead(acc[0], me) && (acc[1].clk == 0 || h.keptByRead(acc[1], me)) {
			// One or two entries, both kept without a look at h's clock
			// (see keptByRead), and room for cur after them.
			j := 1
			if acc[1].clk != 0 {
				j = 2
			}
			acc[j] = segAcc{me, uint16(cur.sk), cur.clk}
			return true
		}
		kept, k, n := 0, 0, 0 // kept has bit j for each acc[j] kept, k of n
		for ; n < segInline; n++ {
			pe := acc[n]
			if pe.clk == 0 {
				break
			}
			ek := accessKind(pe.sk & 3)
			if pe.tid != me {
				if ek.writes() && !h.knows(pe) && pe.clk > h.at(int32(pe.tid)) {
					return false
				}
			} else if ek == accRead || ek == accAtomicRead {
				continue
			}
			kept |= 1 << n
			k++
		}
		if k == segInline {
			return false // access spills them
		}
		if kept != 1<<k-1 {
			return recordAnyInPlace(seg, cur, h)
		}
		acc[k] = segAcc{me, uint16(cur.sk), cur.clk}
		for j := k + 1; j < n; j++ {
			acc[j] = segAcc{}
		}
		return true
	}
	return recordAnyInPlace(seg, cur, h)
}

// ownWriteFirst returns where a plain read cur (packable) appends itself
// to seg's entries by recordInPlace's first case, in its commonest form,
// or 0 when that is not the case (recordInPlace then decides): seg's
// first entry is a write of cur's thread, the second, if any, another
// thread's read (keptByRead's cases but a write h knows of), and there is
// room after them; the read then races with none of them. Small enough
// to inline in the loops that record reads a segment at a time,
// accessTiled (a ring's last load of its window, each chunk last written
// by its rank and read by its right neighbour) and carveAt (its first
// read of each chunk, carved out of its window's first store), which
// then append cur themselves. Without recordInPlace's call there (and
// with same's common case inline in accessTiled), the ring of P = 256
// with 16-byte chunks took 7.0 M instructions fewer under cachegrind,
// some 50 a segment. (An entry writes when its kind's low bit is set; an
// empty one has none.)
func ownWriteFirst(seg *segment, cur cellAcc) int {
	a, me := &seg.acc, uint16(cur.tid)
	if a[2].clk != 0 || a[0].tid != me || a[0].sk&1 == 0 {
		return 0
	}
	if a[1].clk == 0 {
		return 1
	}
	if a[1].tid != me && a[1].sk&1 == 0 {
		return 2
	}
	return 0
}

// keptByRead reports whether a plain read by h's thread (me) keeps entry
// pe, which it then does not race with, as far as pe alone and h's first
// pend slot tell (if not, recordInPlace's loop decides): the thread's own
// write, another's read, or another's write h knows of. Those are a
// ring's cases: its read of the chunk its left neighbour just wrote, its
// first read of its own chunk, carved out of its window's first store,
// and its last load of its window, each chunk last written by its rank
// and read by its right neighbour.
func (h *hbThread) keptByRead(pe segAcc, me uint16) bool {
	w := accessKind(pe.sk & 3).writes()
	if pe.tid == me {
		return w
	}
	return !w || h.knows(pe)
}

// knows reports whether h's first pend slot orders h after entry pe (if
// not, h's clock still may). Whatever that slot ever held is a join h
// made, pending or written to its base since, and a thread's clock only
// grows, so it stays true; joinCopy leaves there the epoch of the clock
// it took, a ring's left neighbour's just acquired. The ring's read of
// that neighbour's chunk then checks the neighbour's write against the
// slot, in the line of own and released that every access reads, not
// against h's clock, whose vclock and entry are two lines out of the
// cache at every step of a ring.
func (h *hbThread) knows(pe segAcc) bool {
	return int32(pe.tid) == h.pend[0].tid && pe.clk <= h.pend[0].own
}

// recordAnyInPlace is recordInPlace for an access of any kind.
func recordAnyInPlace(seg *segment, cur cellAcc, h *hbThread) bool {
	kind, me := cur.kind(), uint16(cur.tid)
	var keep [segInline]segAcc // those cur keeps, then cur (a write keeps none)
	k := 0
	for j := 0; j < segInline; j++ {
		pe := seg.acc[j]
		if pe.clk == 0 {
			break
		}
		ek := accessKind(pe.sk & 3)
		if pe.tid != me {
			if conflicts(ek, kind) && pe.clk > h.at(int32(pe.tid)) {
				return false // access reports it
			}
		} else if covers(kind, ek) {
			continue
		}
		if kind != accWrite {
			if k == segInline-1 {
				return false // access spills them
			}
			keep[k] = pe
			k++
		}
	}
	keep[k] = segAcc{me, uint16(cur.sk), cur.clk}
	seg.acc = keep
	return true
}

// segInline is the entries a segment holds in place: a chunk a ring
// passes on holds its owner's write, its neighbour's read and its
// owner's read before the next write.
const segInline = 3

// segSpill is a shadow's table of the entry lists that do not fit a
// segment; free lists the indexes not in use, whose slices are kept for
// reuse.
type segSpill struct {
	lists [][]cellAcc
	free  []int32
}

// entries returns a copy of seg's entries.
func (s *shadow) entries(seg *segment) []cellAcc {
	var buf [segInline]cellAcc
	return slices.Clone(s.entriesIn(seg, &buf))
}

// entriesIn returns seg's entries, those in place unpacked into buf;
// they stay valid until the shadow or buf changes.
func (s *shadow) entriesIn(seg *segment, buf *[segInline]cellAcc) []cellAcc {
	if sp := seg.spillIndex(); sp != 0 {
		return s.spill.lists[sp-1]
	}
	n := seg.count()
	for i := range n {
		buf[i] = seg.acc[i].cell()
	}
	return buf[:n]
}

// setEntries makes acc, which is no spill list of seg, seg's entries, in
// place when they fit.
func (s *shadow) setEntries(seg *segment, acc []cellAcc) {
	if fitsInline(acc) {
		s.unspill(seg)
		seg.setInline(acc)
		return
	}
	if seg.spillIndex() == 0 {
		sp := s.spill
		if sp == nil {
			sp = &segSpill{}
			s.spill = sp
		}
		var idx int32
		if k := len(sp.free); k > 0 {
			idx, sp.free = sp.free[k-1]+1, sp.free[:k-1]
		} else {
			sp.lists = append(sp.lists, nil)
			idx = int32(len(sp.lists))
			s.d.spend(24) // the list's header
		}
		seg.acc = [segInline]segAcc{{tid: spillMark, clk: uint32(idx)}}
	}
	l := &s.spill.lists[seg.spillIndex()-1]
	had := cap(*l)
	*l = append((*l)[:0], acc...)
	s.d.spendSlice(had, cap(*l), segAccBytes)
	seg.acc[1].clk = uint32(len(acc))
}

// unspill returns seg's spill list, if it has one, to the free list.
func (s *shadow) unspill(seg *segment) {
	if seg.spillIndex() == 0 {
		return
	}
	i := seg.spillIndex() - 1
	s.spill.lists[i] = s.spill.lists[i][:0]
	s.spill.free = append(s.spill.free, i)
	seg.acc = [segInline]segAcc{}
}

// shadowRegion is the bytes one list of segments spans: a segment keeps
// 32-bit offsets, and a memory larger than this (a host tensor of more
// than 1 GiB, with a large enough budget) has a shadow per region of it,
// the first its own, the others in far, with offsets from their
// region's start. An access across regions is one per region.
const shadowRegion = 1 << 30

// farShadows are the shadows of a memory's regions after its first:
// regions[r-1] is region r's, nil until accessed.
type farShadows struct {
	regions []*shadow
}

// regions calls f with the shadow of each region that bytes [lo, hi)
// of s's memory touch, the region's first byte and the bytes in it, as
// offsets from that byte; create says whether to make the regions not
// accessed before (those have no entries to check).
func (s *shadow) regions(lo, hi int, create bool, f func(r *shadow, base, lo, hi int)) {
	for r := lo / shadowRegion; r*shadowRegion < hi; r++ {
		base := r * shadowRegion
		sh := s
		if r > 0 {
			if s.far == nil {
				if !create {
					return
				}
				s.far = &farShadows{}
			}
			for len(s.far.regions) < r {
				if !create {
					return
				}
				s.far.regions = append(s.far.regions, nil)
				s.d.spend(8)
			}
			sh = s.far.regions[r-1]
			if sh == nil {
				if !create {
					continue
				}
				sh = &shadow{d: s.d}
				s.d.spend(shadowBytes)
				s.far.regions[r-1] = sh
			}
		}
		f(sh, base, max(lo, base)-base, min(hi, base+shadowRegion)-base)
	}
}

// record is touchBytes's access for bytes past the first region: in
// each region they touch, as in the first.
func (s *shadow) record(lo, hi int, cur cellAcc, h *hbThread, fresh bool, race func(e cellAcc, lo, hi int)) {
	s.regions(lo, hi, true, func(r *shadow, base, lo, hi int) {
		if !fresh || !r.exact(lo, hi, cur, h) && !r.carve(lo, hi, cur, h) {
			r.access(lo, hi, cur, h, fresh, func(e cellAcc, a, b int) { race(e, base+a, base+b) })
		}
	})
}
