package emu

import "slices"

// Edits of a shadow's segment list: cutting a segment for an access
// inside it (carve, carveAt, split), recording an access in a segment
// (update, spillWith), covering a range with segments (cover) and
// joining neighbours that say the same (merge, same), and access's
// cases of whole segments (accessTiled, exact). shadow.go finds the
// segments an access meets; the list itself is a gap buffer
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
			s.reserveCarve(i+1, cuts, lo-int(seg.lo)+int(right.hi)-hi, hi-lo)
			s.put(mid)
			if cuts == 2 {
				s.put(right)
			}
		}
		s.hint = int32(i + 1)
	} else {
		*seg = mid
		s.reserveCarve(i+1, cuts, int(right.hi)-hi, hi-lo)
		s.put(right)
		s.hint = int32(i)
	}
	return true
}

// accessTiled is access for an access whose bytes are whole segments
// already, from segment i (which starts at lo) on: a window read whole
// after its chunks, as a ring's last load of it. The cover access would
// make is then no change, and its merge none when no two segments it
// would compare end up with the same entries, so it records them in one
// pass and merges only if two do. It reports false, having changed
// nothing, when the bytes are not such segments. Ring P = 256 with
// 16-byte chunks under cachegrind, whose last load finds 256 segments a
// rank: access, cover and merge took 9.4 M instructions of the run,
// accessTiled takes 6.6 M (recordInPlace's apart, the same in both);
// 8.0 M with recordInPlace's plain cases inline, 6.3 M (96 a segment, of
// 65 K) with its loops over segs itself rather than at per segment; 3.9 M
// with the ring's case its own loop (tiledOwn).
// noTiled turns accessTiled off, for the test that checks it against
// the general path.
var noTiled bool

func (s *shadow) accessTiled(i, lo, hi int, cur cellAcc, h *hbThread, fresh bool, race func(e cellAcc, lo, hi int)) bool {
	// Segments i on, up to hi, are at most two runs of segs either side
	// of the hole: loops over each, without at's arithmetic per segment.
	n, g, gl := s.nsegs(), int(s.gap), int(s.gapLen)
	runs := [2][]segment{s.segs[min(i, g):g], s.segs[max(i, g)+gl : n+gl]}
	if packable(cur) && cur.kind() == accRead {
		if done, ok := s.tiledOwn(&runs, i, lo, hi, cur, fresh); done {
			return ok
		}
	}
	pos := lo
	for r, run := range runs {
		for j := range run {
			if pos >= hi {
				runs[r] = run[:j]
				break
			}
			if seg := &run[j]; int(seg.lo) != pos || int(seg.hi) > hi {
				return false
			}
			pos = int(run[j].hi)
		}
	}
	if pos < hi {
		return false
	}
	last := i + len(runs[0]) + len(runs[1])
	var buf [segInline]cellAcc
	inPlace, merge := packable(cur), false
	var prev *segment
	if !fresh && i > 0 && int(s.at(i-1).hi) == lo {
		prev = s.at(i - 1) // access merges with the neighbours too
	}
	read := inPlace && cur.kind() == accRead
	me, c := uint16(cur.tid), segAcc{uint16(cur.tid), uint16(cur.sk), cur.clk}
	for _, run := range runs {
		for j := range run {
			seg := &run[j]
			a := &seg.acc
			switch {
			case read && a[2].clk == 0 && a[0].tid == me && a[0].sk&1 != 0 && (a[1].clk == 0 || a[1].tid != me && a[1].sk&1 == 0):
				// ownWriteFirst's cases, inline.
				if a[1].clk == 0 {
					a[1] = c
				} else {
					a[2] = c
				}
			case inPlace && recordInPlace(seg, cur, h):
			default:
				for _, e := range s.entriesIn(seg, &buf) {
					if e.tid != cur.tid && conflicts(e.kind(), cur.kind()) && e.clk > h.at(e.tid) {
						race(e, int(seg.lo), int(seg.hi))
					}
				}
				s.update(seg, cur)
			}
			if prev != nil && !merge {
				// same, its in-place case inline.
				if prev.acc[0].tid != spillMark && a[0].tid != spillMark {
					merge = prev.acc == *a
				} else {
					merge = s.same(prev, seg)
				}
			}
			prev = seg
		}
	}
	if fresh {
		if merge {
			s.merge(i, last)
		}
		return true
	}
	if merge || last < n && int(s.at(last).lo) == hi && s.same(prev, s.at(last)) {
		s.merge(i-1, last+1)
	}
	return true
}

// tiledOwn is accessTiled for a plain read cur (packable) every segment
// of which (runs, from segment i at lo on, up to hi) is ownWriteFirst's
// case: a ring's last load of its window, each chunk last written by its
// rank and read by its right neighbour. cur appends itself to each, after
// its one or two entries, racing with none, and the segments merge only
// if two end up the same. It checks the segments, records and compares
// them in one pass, without the general loop's tests and spills, and
// undoes what it recorded if a segment turns out not to be the case (its
// slot after the entries is then empty again). It reports done when it
// decided, ok as accessTiled's answer; not done, with nothing changed,
// when a segment holds other entries (accessTiled's loop then decides).
// Ring P = 256 with 16-byte chunks under cachegrind: the last load's
// 65 K segments (a rank's 256, not fresh) took accessTiled 6.3 M
// instructions, 96 a segment; 3.9 M (60) with this.
func (s *shadow) tiledOwn(runs *[2][]segment, i, lo, hi int, cur cellAcc, fresh bool) (done, ok bool) {
	me, c := uint16(cur.tid), segAcc{uint16(cur.tid), uint16(cur.sk), cur.clk}
	k0, pos, merge, own := tiledOwnRun(runs[0], lo, hi, me, c)
	k1, merge1, own1 := 0, false, own
	if own && pos < hi && k0 == len(runs[0]) {
		k1, pos, merge1, own1 = tiledOwnRun(runs[1], pos, hi, me, c)
		if k0 > 0 && k1 > 0 && !merge && !merge1 {
			merge = runs[0][k0-1].acc == runs[1][0].acc
		}
	}
	last := i + k0 + k1
	if !own1 || pos != hi {
		s.unrecord(i, last)
		return own1, false // not tiled, or a segment of other entries
	}
	merge = merge || merge1
	if fresh {
		if merge {
			s.merge(i, last)
		}
		return true, true
	}
	// access merges with the neighbours too, compared after the read.
	n := s.nsegs()
	if merge || i > 0 && int(s.at(i-1).hi) == lo && s.same(s.at(i-1), s.at(i)) ||
		last < n && int(s.at(last).lo) == hi && s.same(s.at(last-1), s.at(last)) {
		s.merge(i-1, last+1)
	}
	return true, true
}

// tiledOwnRun is tiledOwn's loop over one run of segs from byte pos on:
// it records c in the run's segments up to hi while each starts where
// the last ended and is the case, and returns how many it recorded, the
// byte they end at, whether two of them ended up the same, and false if
// it stopped at a segment that is not the case (it does not record there).
func tiledOwnRun(run []segment, pos, hi int, me uint16, c segAcc) (k, end int, merge, own bool) {
	for k = range run {
		seg := &run[k]
		if pos >= hi || int(seg.lo) != pos || int(seg.hi) > hi {
			return k, pos, merge, true
		}
		a := &seg.acc
		if a[2].clk != 0 || a[0].tid != me || a[0].sk&1 == 0 || a[1].clk != 0 && (a[1].tid == me || a[1].sk&1 != 0) {
			return k, pos, merge, false
		}
		pos = int(seg.hi)
		if a[1].clk == 0 {
			a[1] = c
		} else {
			a[2] = c
		}
		if k > 0 && run[k-1].acc[0].clk == a[0].clk && !merge {
			merge = run[k-1].acc == *a
		}
	}
	return len(run), pos, merge, true
}

// unrecord takes back tiledOwn's record in segments [i, last): the last
// entry of each, which went to the first empty slot of at most two.
func (s *shadow) unrecord(i, last int) {
	for ; i < last; i++ {
		if a := &s.at(i).acc; a[2].clk != 0 {
			a[2] = segAcc{}
		} else {
			a[1] = segAcc{}
		}
	}
}

// exact is access for its most common case, in one function (the calls
// of the general path cost a small access as much as its work): cur is
// fresh, its bytes are exactly the segment the shadow's hint names or
// one next to it, with its entries in place, and it races with none of
// them. It reports whether it recorded cur; if not, nothing changed but
// the hint, and access does the rest.
func (s *shadow) exact(lo, hi int, cur cellAcc, h *hbThread) bool {
	i, n := int(s.hint), int(s.nseg)
	if uint(i) >= uint(n) || !packable(cur) {
		return false
	}
	seg := s.at(i)
	if int(seg.lo) != lo {
		if lo < int(seg.lo) {
			i--
		} else {
			i++
		}
		if uint(i) >= uint(n) {
			return false
		}
		if seg = s.at(i); int(seg.lo) != lo {
			return false
		}
	}
	if int(seg.hi) != hi {
		return false
	}
	if !recordInPlace(seg, cur, h) {
		return false
	}
	s.hint = int32(i)
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
