package emu

import "slices"

// Edits of a shadow's segment list: cutting a segment for an access
// inside it (carve, carveAt, split), recording an access in a segment
// (update, spillWith), covering a range with segments (cover) and
// joining neighbours that say the same (merge, same). shadow.go finds
// the segments an access meets; the list itself is a gap buffer
// (shadowgap.go) of packed segments (shadowseg.go).

// carve is access for a fresh access inside one larger segment with its
// entries in place, which it races with none of: the segment's first
// access since a write of more than these bytes (a ring's chunk, the
// round after its owner wrote the whole window). The segment becomes two
// or three, the middle one [lo, hi) with cur recorded, made in one move
// of the gap rather than a split per cut. It reports whether it recorded
// cur; if not, nothing changed but the hint.
func (s *shadow) carve(lo, hi int, cur cellAcc, h *hbThread) bool {
	if !packable(cur) {
		return false
	}
	i := s.first(lo)
	if i >= s.nsegs() {
		return false
	}
	return s.carveAt(i, lo, hi, cur, h)
}

// carveAt is carve for segment i, which cur is packable for; it is the
// first segment that ends after lo (as first finds it), or carveAt
// reports that it did not record.
func (s *shadow) carveAt(i, lo, hi int, cur cellAcc, h *hbThread) bool {
	seg := s.at(i)
	if int(seg.lo) > lo || int(seg.hi) < hi || int(seg.lo) == lo && int(seg.hi) == hi || seg.spillIndex() != 0 {
		return false
	}
	mid := *seg
	mid.lo, mid.hi = int32(lo), int32(hi)
	if k := ownWriteFirst(&mid, cur); k != 0 && cur.kind() == accRead {
		mid.acc[k] = segAcc{uint16(cur.tid), uint16(cur.sk), cur.clk}
	} else if !recordInPlace(&mid, cur, h) {
		return false
	}
	right := *seg
	right.lo = int32(hi)
	// The pieces, in order: seg cut to [int(seg.lo), lo) if that is not empty,
	// mid, then right if not empty; they replace seg at index i.
	cuts := 0
	if int(seg.lo) < lo {
		cuts++
	}
	if hi < int(seg.hi) {
		cuts++
	}
	if int(seg.lo) < lo {
		seg.hi = int32(lo)
		if g, gl := int(s.gap), int(s.gapLen); cuts == 1 && gl > 0 && g == i+2 {
			// reserve(i+1, 1) and put(mid) in the case of moveGap's
			// shortcut, the hole one segment over: a ring's carves,
			// each the end of what is left of its window's first store
			// (its chunks go down), move the segment carved last across
			// the hole. Without reserve's and moveGap's calls, ring
			// P = 256 with 16-byte chunks took 3.4 M instructions fewer
			// under cachegrind, some 50 a carve.
			s.segs[i+1+gl] = s.segs[i+1]
			s.segs[i+1] = mid
			s.gapLen--
			s.nseg++
		} else {
			s.reserve(i+1, cuts)
			s.put(mid)
			if cuts == 2 {
				s.put(right)
			}
		}
		s.hint = int32(i + 1)
	} else {
		*seg = mid
		s.reserve(i+1, cuts)
		s.put(right)
		s.hint = int32(i)
	}
	return true
}

// update records cur in seg (updateEntries).
func (s *shadow) update(seg *segment, cur cellAcc) {
	if sp := seg.spillIndex(); sp != 0 {
		i := sp - 1
		l := updateEntries(s.spill.lists[i], cur)
		s.spill.lists[i] = l
		if fitsInline(l) {
			var buf [segInline]cellAcc
			m := copy(buf[:], l)
			s.unspill(seg)
			seg.setInline(buf[:m])
		} else {
			seg.acc[1].clk = uint32(len(l))
		}
		return
	}
	if !packable(cur) {
		s.setEntries(seg, updateEntries(s.entries(seg), cur))
		return
	}
	if cur.kind() == accWrite {
		seg.acc = [segInline]segAcc{pack(cur)}
		return
	}
	// In place, the usual case: the entries cur keeps, then cur.
	k := 0
	n0 := seg.count()
	for _, pe := range seg.acc[:n0] {
		if e := pe.cell(); e.tid == cur.tid && covers(cur.kind(), e.kind()) {
			continue
		}
		seg.acc[k] = pe
		k++
	}
	if k < segInline {
		seg.acc[k] = pack(cur)
		for j := k + 1; j < segInline; j++ {
			seg.acc[j] = segAcc{}
		}
		return
	}
	s.spillWith(seg, cur)
}

// spillWith moves seg's entries, full in place, and cur to a spill list
// (out of update, whose every call would clear the buffer otherwise).
//
//go:noinline
func (s *shadow) spillWith(seg *segment, cur cellAcc) {
	var buf [segInline + 1]cellAcc
	for i, pe := range seg.acc {
		buf[i] = pe.cell()
	}
	buf[segInline] = cur
	s.setEntries(seg, buf[:])
}

// updateEntries records cur in the entries acc of a byte range and
// returns them: a plain write replaces everything (whatever comes later
// and is ordered after it is ordered after what it overwrote, or a race
// was reported); other accesses replace only the entries of their own
// thread that they cover.
func updateEntries(acc []cellAcc, cur cellAcc) []cellAcc {
	if cur.kind() == accWrite {
		return append(acc[:0], cur)
	}
	kept := acc[:0]
	for _, e := range acc {
		if e.tid == cur.tid && covers(cur.kind(), e.kind()) {
			continue
		}
		kept = append(kept, e)
	}
	return append(kept, cur)
}

// cover makes the segments from index first to last (exclusive) cover
// exactly [lo, hi): it splits the segments that cross lo or hi and fills
// the gaps with empty ones.
func (s *shadow) cover(lo, hi int) (first, last int) {
	i := s.first(lo)
	if i < s.nsegs() && int(s.at(i).lo) < lo {
		s.split(i, lo)
		i++
	}
	first = i
	for pos := lo; pos < hi; i++ {
		if i < s.nsegs() && int(s.at(i).lo) == pos {
			if int(s.at(i).hi) > hi {
				s.split(i, hi)
			}
			pos = int(s.at(i).hi)
			continue
		}
		end := hi
		if i < s.nsegs() && int(s.at(i).lo) < end {
			end = int(s.at(i).lo)
		}
		s.insert(i, segment{lo: int32(pos), hi: int32(end)})
		pos = end
	}
	return first, i
}

// split cuts segment i at byte at; both halves keep its entries.
func (s *shadow) split(i, at int) {
	seg := s.at(i)
	right := *seg
	right.lo, seg.hi = int32(at), int32(at)
	if right.spillIndex() != 0 {
		right.acc = [segInline]segAcc{}
		var buf [segInline]cellAcc
		s.setEntries(&right, s.entriesIn(seg, &buf))
	}
	s.insert(i+1, right)
}

// merge joins adjacent segments with equal entries among segments
// [from, to) (clipped to those there are).
func (s *shadow) merge(from, to int) {
	from, to = max(from, 0), min(to, s.nsegs())
	if to-from < 2 {
		return
	}
	w := from
	for r := from + 1; r < to; r++ {
		sw, sr := s.at(w), s.at(r)
		if int(sw.hi) == int(sr.lo) && s.same(sw, sr) {
			sw.hi = sr.hi
			s.unspill(sr)
			continue
		}
		w++
		if w != r {
			*s.at(w) = *sr
		}
	}
	s.remove(w+1, to)
}

// same reports whether segments a and b have the same entries.
func (s *shadow) same(a, b *segment) bool {
	if a.acc[0].tid != spillMark && b.acc[0].tid != spillMark {
		return a.acc == b.acc // in place, the slots after the last entry are empty
	}
	if a.count() != b.count() {
		return false
	}
	var ba, bb [segInline]cellAcc
	return slices.Equal(s.entriesIn(a, &ba), s.entriesIn(b, &bb))
}
