package emu

// The segments of a shadow (shadow.go) are kept in a gap buffer: a slice with a
// hole at the logical index gap, gapLen long. Inserting or deleting at
// the hole costs nothing, moving the hole costs the distance moved, and
// accesses move through a window a tile at a time, so a ring that carves
// a window into P chunk segments one round at a time pays O(1) per carve
// instead of a copy of every segment after it (P³ bytes over a run: 21 GB
// at P = 1024 with a plain sorted slice).

// nsegs returns the number of segments in s's own list.
func (s *shadow) nsegs() int { return int(s.nseg) }

// n returns the number of segments of the memory s shadows, in all its
// regions (see far).
func (s *shadow) n() int {
	n := int(s.nseg)
	if s.far != nil {
		for _, f := range s.far.regions {
			if f != nil {
				n += f.nsegs()
			}
		}
	}
	return n
}

// at returns segment i.
func (s *shadow) at(i int) *segment {
	if i >= int(s.gap) {
		i += int(s.gapLen)
	}
	return &s.segs[i]
}

// moveGap puts the hole at logical index i.
func (s *shadow) moveGap(i int) {
	gap, gapLen := int(s.gap), int(s.gapLen)
	switch {
	case i == gap-1 && gapLen > 0:
		// One segment over, as a ring's carves move it: without the
		// calls copy and clear make.
		s.segs[i+gapLen] = s.segs[i]
		s.segs[i] = segment{}
	case i < gap:
		copy(s.segs[i+gapLen:gap+gapLen], s.segs[i:gap])
		clear(s.segs[i:min(gap, i+gapLen)])
	case i > gap:
		copy(s.segs[gap:i], s.segs[gap+gapLen:i+gapLen])
		clear(s.segs[max(gap+gapLen, i) : i+gapLen])
	}
	s.gap = int32(i)
}

// insert makes seg segment i.
func (s *shadow) insert(i int, seg segment) {
	if s.gapLen == 0 {
		n := s.nsegs()
		grown := s.grow(max(2*n, 8))
		copy(grown, s.segs[:i])
		gl := len(grown) - n
		copy(grown[i+gl:], s.segs[i:])
		s.segs, s.gap, s.gapLen = grown, int32(i), int32(gl)
	} else {
		s.moveGap(i)
	}
	s.segs[s.gap] = seg
	s.gap++
	s.gapLen--
	s.nseg++
}

// grow returns room for n segments, charged first (the old room's
// charge carries over).
func (s *shadow) grow(n int) []segment {
	s.d.spendSlice(len(s.segs), n, segmentBytes)
	return make([]segment, n)
}

// remove deletes segments [i, j).
func (s *shadow) remove(i, j int) {
	if i >= j {
		return
	}
	s.moveGap(j)
	clear(s.segs[i:j])
	s.gap = int32(i)
	s.gapLen += int32(j - i)
	s.nseg -= int32(j - i)
}

// reserve moves the gap to logical index i with room for k segments.
func (s *shadow) reserve(i, k int) {
	s.moveGap(i)
	if int(s.gapLen) >= k {
		return
	}
	n := s.nsegs()
	grown := s.grow(max(2*n, 8, n+k))
	gl := len(grown) - n
	copy(grown, s.segs[:i])
	copy(grown[i+gl:], s.segs[i+int(s.gapLen):])
	s.segs, s.gap, s.gapLen = grown, int32(i), int32(gl)
}

// reserveCarve is reserve for a carve of a piece of size bytes out of a
// segment, which leaves k pieces of it (the room reserve is asked for)
// holding left bytes: when the list must grow, it grows by the segments
// those bytes make when carved into pieces of that size (at most
// carveRoom(n) of them) if that is more than doubling would give. A ring
// carves each rank's window into its chunks one round at a time, so
// doubling grew every rank's list about log2(P) times, each a new array,
// a copy and garbage, all ranks in the same few rounds: at P = 256 six
// arrays (8 to 256 segments, 16 KiB a rank, 4 MiB in all) where this
// makes two (8, 256), the last one exactly the chunks.
func (s *shadow) reserveCarve(i, k, left, size int) {
	if int(s.gapLen) >= k || size <= 0 {
		s.reserve(i, k)
		return
	}
	more := 0
	if p := left / size; p > k {
		more = min(p-k, carveRoom(s.nsegs()))
	}
	s.reserve(i, k+more)
}

// carveRoom is how many segments past the n it has a shadow's list grows
// by at most for the carves it expects (reserveCarve): a bound on what a
// wrong guess costs, 32 times the list and 1 K segments (32 KiB) at
// most. A ring's list grows 8, 256 at P = 256 and 8, 297, 1024 at
// P = 1024 (with 8n+8 and 4 K it grew 8, 81, 256 and 8, 81, 738, 1024:
// ring P = 256 under cachegrind with GOGC=off, 51 K LL misses more).
// Its peak RSS at P = 1024 is 296 MiB with either, 291 with doubling.
func carveRoom(n int) int {
	return min(32*n+32, 1<<10)
}

// put appends seg at the gap (reserve made room).
func (s *shadow) put(seg segment) {
	s.segs[s.gap] = seg
	s.gap++
	s.gapLen--
	s.nseg++
}
