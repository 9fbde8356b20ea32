package emu

import "unsafe"

// Shadow memory of the race detector. Each rank's copy of a window buffer,
// and each host tensor, has a shadow: a sorted list of disjoint byte
// ranges, each holding the accesses since its last plain write that a
// later access must be ordered after — at most one entry per thread and
// kind (FastTrack's epochs, perf-anchors §5). Ranges split where accesses
// start and end and merge again when their entries agree, so a tile is
// one range however large: a 16 KiB store and the remote_loads of it are
// a binary search and a scan of a few entries each, never a loop over
// bytes. A region of a tensor view is first cut into contiguous byte runs
// (one per row of the innermost dimension it does not fully cover).
//
// What an access costs is mostly cache misses, not instructions: a ring
// of P ranks visits each window's shadow once per round, after every
// other rank has run, so a shadow's hot fields share one cache line, a
// segment is half a line with its (usually at most three) entries in place,
// and an access that is its site's first in its thread's epoch does not
// read the neighbouring segments to merge (none of them can hold its
// entry). Measured on a ring of P = 256 with 16-byte chunks, that
// halved the shadow's cost, to about two fifths of what detection adds
// (0.18× of the run without it); the vector-clock joins (race.go) and
// the signal cells (cellrace.go) are the rest.
//
// What was left there was the segments' footprint, not their work.
// Ring, P = 256, 1 K FP32 a rank (CPU-time slowdown, builds run in turn
// on this loaded 2-core machine), with 64-byte segments: 1.34-1.47;
// 1.05-1.18 with touchBytes returning at once, 1.11-1.20 with it
// stopping after the shadow's header and the site memo; 1.42-1.49 with
// each segment padded to 96 bytes and 1.46-1.56 to 128, the padding
// never read. Dropping exact's clock comparisons did not move the
// figure, nor did keeping the gap buffers across runs or prefetching
// the segments beside the one used. So a segment is 32 bytes, two to a
// cache line: 32-bit offsets (a memory past shadowRegion has a shadow
// per region) and three 8-byte entries in place (segAcc), which take
// threads below 2¹⁶ − 1 and sites below 2¹⁴; an entry past those, like a
// fourth one, lives in the spill table. That took the figure to
// 1.25-1.38 against 1.36-1.50 for 64-byte segments in the same seven
// pairs, the runs without detection unchanged (110-130 ms), and the
// ring at P = 1024 from 4.3 s and 350 MiB at its peak to 4.0 s and
// 309 MiB.
//
// Counted rather than timed (valgrind --tool=cachegrind with GOGC=off,
// one run of that ring, the compile subtracted): without detection the
// run executes 1.33 G instructions; detection added 245 M, and recording
// a fresh access in one pass over the packed entries (recordInPlace, for
// exact, carve and each segment of a wider access) took that to 220 M,
// 131 M of them the shadow's, about 400 an access. Its 2 M L1 misses
// (of detection's 3.2 M) are three lines an access, the shadow's header,
// the segment and the thread's plain memo, each still in L2; the others
// of an access are the thread's epoch and two of its clock (race.go).
//
// Later (the same ring, about 327 K accesses, the functions of the
// shadow counted with detection on less off): 75.4 M instructions, 230
// an access, of which touch's call of touchFresh, rowBytes and
// touchFresh's checks were some 170 and the carve of each chunk out of
// its window's first store and the last load's 256 segments 30 and 25.
// touch now records the common cases itself, with what a view's row
// takes worked out once in its viewSite slot (newViewSite), and carves a
// chunk in place: 56.7 M, 173 an access. The lines an access reads are
// the same: the shadow's header and the segment (the thread's memo is
// the line the interpreter reads next anyway). With the last load's case
// a loop of its own (tiledOwn), 54.4 M. Under cachegrind's cache model
// (--cache-sim=yes --LL=2097152,16,64) touch misses the first level about
// three times an access, once each on the thread's line (h.released),
// the shadow's header and the segment: what would take the header's
// miss away is the header's hot fields packed by rank in the buffer, so
// that a ring's neighbours share its lines; not done yet.

// shadowKey names a shadowed memory: one rank's copy of a window buffer,
// or a host tensor.
type shadowKey struct {
	buf  *bufDesc
	rank int
	host *hostTensor
}

// shadow is the access state of one memory. The fields an access reads
// come first, in the first cache line of the struct (a 128-byte object,
// so 128-aligned): the shadow of a ring's peer window is out of the
// cache by the time its next chunk is read, and the first line holds all
// an access needs. A signal op (signalFast) reads them too, but only once
// its buffer has had a plain access this dispatch: the span of the signal
// cells with atomic accesses, and whether there was one, are the
// buffer's, for all its copies (bufRace), since a barrier's notify finds
// the shadow of another rank's window out of the cache at large P.
type shadow struct {
	nseg        int32 // the number of segments (n)
	gap, gapLen int32 // the hole in segs, a gap buffer: see insert
	hint        int32 // the segment first found last
	segs        []segment
	// The memory shadowed, for a rank's copy of a window buffer: the
	// states of its INT32 signal cells live in the buffer's cell pages
	// (cellrace.go); odd holds those of any other cell, by offset.
	buf  *bufDesc
	rank int
	odd  map[int]*cellRace
	// spill holds the entries of segments that do not fit in place.
	spill *segSpill
	// far holds the shadows of the memory's bytes past its first
	// shadowRegion, if any were accessed.
	far *farShadows
	// d is the detector that charges the shadow's growth (nil in tests
	// that make a shadow on its own).
	d *detector
	_ [40]byte // to 128 bytes (see above)
}

// bufRace is what the race detector keeps of a window buffer for all its
// copies at once, in the bufDesc, whose lines every rank's ops read (the
// buffer's shadows, its size): a barrier's and a ring's signal ops find
// their copy's shadow out of the cache, a miss of its own per op, and
// what they read of it was this. Both parts may say more than the copy's
// shadow would, never less: an access to bytes another copy has cells
// in takes the general path, which finds no cell state in its own copy
// there, and a signal op checks its copy's segments whenever plain is
// set. A dispatch join clears it (shadow.reset).
type bufRace struct {
	// [cellLo, cellHi) spans the signal cells with atomic accesses in
	// any copy, in the offsets of the segments (empty when cellHi <=
	// cellLo).
	cellLo, cellHi int
	// plain says an access has gone through touchShadow, the one way a
	// copy's shadow gets segments, so one may have some.
	plain bool
}

// entry is one access as a report needs it: who (thread and epoch),
// what, where in the source, and through which view (detector.entryOf).
type entry struct {
	tid  int32
	clk  uint32
	kind accessKind
	n    *node
	view *tref
}

// touch records m's access at n of kind k to the region at offs of extent
// ext of t — rank's copy when t is a window — and reports the races it
// makes.
//
// Its own body is the commonest case of all, a ring's: part of one row of
// a 2-D window view, at a site its viewSite slot knows and has found the
// fast path's for (viewSite.fk), the access its first there in the epoch,
// on no signal cells, and exactly the segment the shadow's hint names or
// one next to it with a plain in-place record (touchFresh's first case),
// or the end of the segment before that (carveAt's ring case). Anything else goes
// to touchAny, which starts over: nothing changed here but the thread's
// epoch, as epoch would move it.
func (m *machine) touch(n *node, t *tref, rank int, offs, ext []int, k accessKind) {
	d := m.s.race
	if d == nil {
		return
	}
	vs := d.viewSite(n, t)
	if vs.n != n || vs.view != t || vs.fk != k || len(offs) != 2 || len(ext) != 2 || ext[0] != 1 || ext[1] <= 0 {
		m.touchAny(d, n, t, rank, offs, ext, k)
		return
	}
	esz := int(vs.esz)
	lo := offs[0]*int(vs.row) + offs[1]*esz
	hi := lo + ext[1]*esz
	{
		b := t.buf
		if uint(rank) >= uint(len(b.shadows)) {
			goto any
		}
		sh := b.shadows[rank]
		if sh == nil {
			goto any
		}
		blo, bhi := lo+int(vs.off), hi+int(vs.off)
		h := &m.hb
		if h.released {
			h.own++
			h.released = false
		}
		clk := h.own
		pc := &h.plainClk[plainSlot(n)]
		me := uint16(h.tid)
		// (An empty span of signal cells that overlaps [blo, bhi), as
		// [cellLo, cellHi) reads it, only sends the access on.)
		if c := &b.race; *pc == uint16(clk) || uint32(h.tid) >= spillMark || clk == 0 || blo < c.cellHi && bhi > c.cellLo {
			goto any
		}
		i, ns := int(sh.hint), int(sh.nseg)
		if uint(i) >= uint(ns) {
			goto any
		}
		seg := sh.at(i)
		if int(seg.lo) != blo {
			if blo < int(seg.lo) {
				i--
			} else {
				i++
			}
			if uint(i) >= uint(ns) {
				goto any
			}
			if seg = sh.at(i); int(seg.lo) != blo {
				// carveAt's case of a ring's first read of each chunk of
				// its own window (its chunks go down through what is left
				// of its first store), in place: the end [blo, bhi) of
				// segment i, whose entries the read appends itself to by
				// ownWriteFirst's cases, the hole of the gap buffer one
				// segment past the next (carveAt's shortcut there).
				a, gl := &seg.acc, int(sh.gapLen)
				if int(seg.hi) != bhi || int(seg.lo) > blo || k != accRead || int(sh.gap) != i+2 || gl == 0 ||
					a[2].clk != 0 || a[0].tid != me || a[0].sk&1 == 0 || a[1].clk != 0 && (a[1].tid == me || a[1].sk&1 != 0) {
					goto any
				}
				mid := *seg
				mid.lo = int32(blo)
				if a[1].clk == 0 {
					mid.acc[1] = segAcc{me, uint16(vs.sk), clk}
				} else {
					mid.acc[2] = segAcc{me, uint16(vs.sk), clk}
				}
				seg.hi = int32(blo)
				sh.segs[i+1+gl] = sh.segs[i+1]
				sh.segs[i+1] = mid
				sh.gapLen--
				sh.nseg++
				sh.hint = int32(i + 1)
				*pc = uint16(clk)
				return
			}
		}
		if int(seg.hi) != bhi {
			goto any
		}
		acc := &seg.acc
		if k == accWrite {
			// recordInPlace's first case (see touchFresh).
			if pe := acc[1]; acc[0].tid != me || acc[2].clk != 0 || !(pe.clk == 0 || pe.tid == me || h.knows(pe) || pe.clk <= h.at(int32(pe.tid))) {
				goto any
			}
			*acc = [segInline]segAcc{{me, uint16(vs.sk), clk}}
		} else {
			// A read's, one entry kept (see touchFresh); a spilled
			// segment's acc[0].tid is spillMark, never me or another
			// thread h knows (h.pend[0].tid is a thread's).
			if pe := acc[0]; acc[1].clk != 0 || pe.clk == 0 || !(pe.tid != me && h.knows(pe) || pe.tid == me && accessKind(pe.sk&3).writes()) {
				goto any
			}
			acc[1] = segAcc{me, uint16(vs.sk), clk}
		}
		sh.hint = int32(i)
		*pc = uint16(clk)
		return
	}
any:
	m.touchFresh(d, n, t, rank, lo, hi, k) // rowBytes's lo and hi
}

// touchAny is touch for every case: part of one row (rowBytes) is
// touchFresh's, any other region touchRegion's.
func (m *machine) touchAny(d *detector, n *node, t *tref, rank int, offs, ext []int, k accessKind) {
	if lo, hi, ok := rowBytes(t, offs, ext); ok {
		m.touchFresh(d, n, t, rank, lo, hi, k)
		return
	}
	m.touchRegion(n, t, rank, offs, ext, k)
}

// rowBytes returns the bytes [lo, hi) (from the view's first byte) of the
// region at offs of extent ext of t when it is part of one row of a 2-D
// view (a ring's chunk, a mesh's tile of a [1, n] tensor): the runs
// touchRegion would cut come to this one, and their loops cost about as
// much as the shadow's own work on a small access. touchFresh goes on to
// touchShadow itself when it does not record, so nothing in touch lives
// past its call (the arguments were stored around it for touchShadow's
// use).
func rowBytes(t *tref, offs, ext []int) (lo, hi int, ok bool) {
	if len(t.shape) != 2 || len(offs) != 2 || len(ext) != 2 || ext[0] != 1 || ext[1] <= 0 {
		return 0, 0, false
	}
	esz := int(dtBytes[t.dt])
	lo = (offs[0]*t.shape[1] + offs[1]) * esz
	return lo, lo + ext[1]*esz, true
}

// touchRegion is touch for a region other than part of one row: it cuts
// the region into its contiguous byte runs. (A function of its own, so
// that touch's common case, a ring's and a mesh's every access, runs
// without the frame and spills of these loops.)
func (m *machine) touchRegion(n *node, t *tref, rank int, offs, ext []int, k accessKind) {
	shape := t.shape
	nd := len(shape)
	esz := int(dtBytes[t.dt])
	for _, e := range ext {
		if e <= 0 {
			return
		}
	}
	if nd == 0 || len(offs) != nd || len(ext) != nd {
		m.touchBytes(n, t, rank, 0, t.nbytes(), k)
		return
	}
	// Dimensions after k0 are covered whole: a run is ext[k0] rows of
	// stride elements. When each dimension before k0 has one index (a
	// tile of whole rows, a ring's chunk of a row) that is one run.
	k0, stride := nd-1, 1
	for k0 > 0 && offs[k0] == 0 && ext[k0] == shape[k0] {
		stride *= shape[k0]
		k0--
	}
	one := true
	for _, e := range ext[:k0] {
		one = one && e == 1
	}
	if one {
		lo, st := offs[k0]*stride, stride*shape[k0]
		for d := k0 - 1; d >= 0; d-- {
			lo += offs[d] * st
			st *= shape[d]
		}
		m.touchBytes(n, t, rank, lo*esz, (lo+ext[k0]*stride)*esz, k)
		return
	}
	st := strides(shape)
	run := ext[k0] * st[k0] * esz
	var idxBuf [8]int
	idx := idxBuf[:0]
	if k0 > len(idxBuf) {
		idx = make([]int, 0, k0)
	}
	idx = idx[:k0]
	for {
		lo := offs[k0] * st[k0]
		for d := 0; d < k0; d++ {
			lo += (offs[d] + idx[d]) * st[d]
		}
		m.touchBytes(n, t, rank, lo*esz, lo*esz+run, k)
		if !nextIndex(idx, ext) {
			return
		}
	}
}

// touchElems records an access to count elements of t from flat index at.
func (m *machine) touchElems(n *node, t *tref, rank, at, count int, k accessKind) {
	if m.s.race == nil {
		return
	}
	esz := t.dt.Bytes()
	m.touchBytes(n, t, rank, at*esz, (at+count)*esz, k)
}

// touchBytes records an access to bytes [lo, hi) of t (offsets from the
// view's first byte).
func (m *machine) touchBytes(n *node, t *tref, rank, lo, hi int, k accessKind) {
	d := m.s.race
	if d == nil || hi <= lo {
		return
	}
	m.touchFresh(d, n, t, rank, lo, hi, k)
}

// touchFresh is touchBytes for its common cases, and touchShadow (the
// general path) for the others: a window's shadow that exists, a site
// the thread's memo names, the access its first there in the epoch
// (fresh), bytes [lo, hi) (from the view's first byte) that hold no
// signal cells, and cur racing with none of the entries there; the bytes
// are the segment the shadow's hint names or one next to it (exact, here
// in one function, with recordInPlace's plain read and write), or inside
// one larger segment (carve). Nothing changes before it gives up (but
// the thread's epoch, as epoch would move it): touchShadow does every
// other case from the start.
//
// A ring's access is this function's common path and nothing more, the
// shadow found here rather than in touch and recordInPlace's plain cases
// inline: its call, and the arguments touch kept on the stack for
// touchShadow, were some 20 of the 270 instructions detection added to
// an access of a ring of P = 256 with 16-byte chunks under cachegrind
// (touch, touchFresh and recordInPlace went from 88.9 M to 82.7 M).
func (m *machine) touchFresh(d *detector, n *node, t *tref, rank, lo, hi int, k accessKind) {
	b := t.buf
	if t.host != nil || uint(rank) >= uint(len(b.shadows)) {
		goto general
	}
	{
		sh := b.shadows[rank]
		if sh == nil {
			goto general
		}
		h := &m.hb
		if h.released {
			h.own++
			h.released = false
		}
		clk := h.own
		vs, pc := d.viewSite(n, t), &h.plainClk[plainSlot(n)]
		blo, bhi := t.off+lo, t.off+hi
		if c := &b.race; vs.n != n || vs.view != t || *pc == uint16(clk) || accessKind(vs.sk&3) != k ||
			bhi > shadowRegion || c.cellHi > c.cellLo && blo < c.cellHi && bhi > c.cellLo {
			goto general
		}
		cur := cellAcc{tid: h.tid, clk: clk, sk: vs.sk}
		if !packable(cur) {
			goto general
		}
		i, ns := int(sh.hint), int(sh.nseg)
		if uint(i) >= uint(ns) {
			goto general
		}
		seg := sh.at(i)
		if int(seg.lo) != blo {
			if int(seg.lo) < blo && bhi <= int(seg.hi) {
				goto carveAt // the hint's segment holds the bytes
			}
			if blo < int(seg.lo) {
				i--
			} else {
				i++
			}
			if uint(i) >= uint(ns) {
				goto carve
			}
			if seg = sh.at(i); int(seg.lo) != blo {
				if int(seg.lo) < blo && bhi <= int(seg.hi) {
					goto carveAt // a ring's chunk, first read after a wider write
				}
				goto carve
			}
		}
		if int(seg.hi) != bhi {
			if bhi < int(seg.hi) {
				goto carveAt
			}
			goto carve
		}
		// recordInPlace's shortcuts for its two plain cases inline (see
		// there); every other case is its own.
		{
			acc := &seg.acc
			me := uint16(cur.tid)
			switch {
			case acc[0].tid == spillMark:
				goto general
			case k == accWrite:
				if pe := acc[1]; acc[0].tid == me && acc[2].clk == 0 && (pe.clk == 0 || pe.tid == me || h.knows(pe) || pe.clk <= h.at(int32(pe.tid))) {
					// The thread's own entry, then its own or one it is
					// ordered after (a ring's store over its load, or
					// over a chunk its right neighbour read).
					*acc = [segInline]segAcc{{me, uint16(cur.sk), clk}}
					break
				}
				if !recordInPlace(seg, cur, h) {
					goto general
				}
			case k == accRead:
				if pe := acc[0]; acc[1].clk == 0 && pe.clk != 0 && (pe.tid != me && h.knows(pe) || pe.tid == me && accessKind(pe.sk&3).writes()) {
					// One entry, kept: another thread's that h is ordered
					// after (a ring's read of the chunk its left neighbour
					// just wrote) or its own write (recordInPlace).
					acc[1] = segAcc{me, uint16(cur.sk), clk}
					break
				}
				if !recordInPlace(seg, cur, h) {
					goto general
				}
			default:
				if !recordAnyInPlace(seg, cur, h) {
					goto general
				}
			}
		}
		sh.hint = int32(i)
		*pc = uint16(clk)
		return
	carveAt:
		// Segment i holds the bytes and more: carve's case, found already.
		if !sh.carveAt(i, blo, bhi, cur, h) {
			goto general
		}
		*pc = uint16(clk)
		return
	carve:
		if !sh.carve(blo, bhi, cur, h) {
			goto general
		}
		*pc = uint16(clk)
		return
	}
general:
	m.touchShadow(d, n, t, rank, lo, hi, k)
}

// touchShadow is touchBytes for every case (touchFresh is the common
// ones, which it redoes if it comes here).
func (m *machine) touchShadow(d *detector, n *node, t *tref, rank, lo, hi int, k accessKind) {
	var sh *shadow
	if t.host == nil && t.buf.shadows != nil {
		sh = t.buf.shadows[rank]
	}
	if sh == nil {
		sh = d.shadowOf(shadowKeyOf(t, rank))
	}
	if t.host == nil {
		t.buf.race.plain = true
	}
	h := &m.hb
	clk := h.epoch()
	// The detector's memo of (n, t) gives the site's interned id without
	// siteOf, and the thread's slot whether this is its first access in
	// the epoch (plainClk).
	vs, pc := d.viewSite(n, t), &h.plainClk[plainSlot(n)]
	fresh := *pc != uint16(clk)
	*pc = uint16(clk)
	var sk uint32
	if vs.n == n && vs.view == t && accessKind(vs.sk&3) == k {
		sk = vs.sk
	} else {
		sk = d.siteOf(h, n, t, k)<<2 | uint32(k)
		*vs = newViewSite(n, t, sk)
	}
	cur := cellAcc{tid: h.tid, clk: clk, sk: sk}
	lo, hi = t.off+lo, t.off+hi
	if hi > shadowRegion {
		sh.record(lo, hi, cur, h, fresh, func(e cellAcc, lo, hi int) {
			d.report(shadowKeyOf(t, rank), d.entryOf(e), d.entryOf(cur), lo, hi)
		})
	} else if !fresh || !sh.exact(lo, hi, cur, h) && !sh.carve(lo, hi, cur, h) {
		sh.access(lo, hi, cur, h, fresh, func(e cellAcc, lo, hi int) {
			d.report(shadowKeyOf(t, rank), d.entryOf(e), d.entryOf(cur), lo, hi)
		})
	}
	if t.host == nil {
		if c := &t.buf.race; c.cellHi > c.cellLo && lo < c.cellHi && hi > c.cellLo {
			d.plainOnCells(m, shadowKeyOf(t, rank), sh, max(lo, c.cellLo), min(hi, c.cellHi), cur)
		}
	}
}

// shadowKeyOf is the key of the memory t addresses, rank's copy of it
// for a window (touchBytes builds it only when it needs it: a report, a
// new shadow, an access to signal cells).
func shadowKeyOf(t *tref, rank int) shadowKey {
	if t.host != nil {
		return shadowKey{host: t.host}
	}
	return shadowKey{buf: t.buf, rank: rank}
}

// viewSite is a recent plain access at (n, view), by any thread: sk is
// its site and kind as an entry has them. The detector keeps a table of
// them (viewSites), shared by all threads and so in the cache, where a
// memo of each thread's was out of it at each of a ring's accesses.
type viewSite struct {
	n    *node
	view *tref
	sk   uint32
	// What touch's own case needs of view, worked out when the slot is
	// filled (newViewSite): the bytes of one of its rows and of an
	// element, and its first byte in its memory. fk is the kind (sk's)
	// when the view and the kind qualify, a 2-D window view within the
	// shadow's first region, a site that packs and a plain kind; noFast
	// if not.
	row, off uint32
	esz      uint8
	fk       accessKind
	_        [2]byte // to 32 bytes, an index's shift
}

// noFast as viewSite.fk matches no access kind.
const noFast accessKind = 0xFF

// newViewSite returns the viewSite of an access at n to view t with site
// and kind sk.
func newViewSite(n *node, t *tref, sk uint32) viewSite {
	vs := viewSite{n: n, view: t, sk: sk, fk: noFast}
	esz := int(dtBytes[t.dt])
	if k := accessKind(sk & 3); (k == accRead || k == accWrite) && t.host == nil && t.buf != nil && len(t.shape) == 2 && sk <= 0xFFFF && t.off >= 0 && esz > 0 && esz < 256 &&
		t.shape[0] >= 0 && t.shape[1] >= 0 && t.off+t.shape[0]*t.shape[1]*esz <= shadowRegion {
		vs.row, vs.off, vs.esz, vs.fk = uint32(t.shape[1]*esz), uint32(t.off), uint8(esz), k
	}
	return vs
}

// viewSites is the size of the detector's table of viewSite.
const viewSites = 64

// viewSite returns the slot of (n, t) in d's table of viewSite.
func (d *detector) viewSite(n *node, t *tref) *viewSite {
	// n's line (which plainSlot reads too) tells a view's sites apart,
	// the view's address (8-byte aligned, a small object) the views.
	return &d.viewSites[(uint(uintptr(unsafe.Pointer(t))>>3)^uint(n.span.Line))%viewSites]
}

// plainSlot returns the index of n's slot in a thread's plainClk. An
// access whose slot holds another epoch is the first of its site and
// kind in its thread's epoch, so no segment holds its entry (cur) yet;
// see shadow.access. Every plain access writes its slot, so sites that
// share one only make the next access of each count as not the first
// (as do epochs 2¹⁶ apart).
func plainSlot(n *node) uint {
	return uint(n.span.Line) % 4
}

// shadowOf returns the shadow of key, made on first use.
func (d *detector) shadowOf(key shadowKey) *shadow {
	if key.host != nil {
		sh := d.hostShadows[key.host]
		if sh == nil {
			d.spend(shadowBytes + 48) // and its map entry and place in all
			sh = &shadow{d: d}
			d.hostShadows[key.host] = sh
			d.all = append(d.all, sh)
		}
		return sh
	}
	b := key.buf
	if b.shadows == nil {
		d.spend(int64(len(d.who)) * 8)
		b.shadows = make([]*shadow, len(d.who))
	}
	sh := b.shadows[key.rank]
	if sh == nil {
		d.spend(shadowBytes + 8) // and its place in all
		sh = &shadow{buf: b, rank: key.rank, d: d}
		b.shadows[key.rank] = sh
		d.all = append(d.all, sh)
	}
	return sh
}

// check reports the entries of bytes [lo, hi) that cur, by a thread whose
// clock is h, conflicts with and is not ordered after, recording nothing.
func (s *shadow) check(lo, hi int, cur cellAcc, h *hbThread, race func(e cellAcc, lo, hi int)) {
	if hi > shadowRegion {
		s.regions(lo, hi, false, func(r *shadow, base, lo, hi int) {
			r.checkIn(lo, hi, cur, h, func(e cellAcc, a, b int) { race(e, base+a, base+b) })
		})
		return
	}
	s.checkIn(lo, hi, cur, h, race)
}

// checkIn is check for bytes of s's own list.
func (s *shadow) checkIn(lo, hi int, cur cellAcc, h *hbThread, race func(e cellAcc, lo, hi int)) {
	var buf [segInline]cellAcc
	for i := s.first(lo); i < s.nsegs() && int(s.at(i).lo) < hi; i++ {
		seg := s.at(i)
		for _, e := range s.entriesIn(seg, &buf) {
			if e.tid != cur.tid && conflicts(e.kind(), cur.kind()) && e.clk > h.at(e.tid) {
				race(e, max(int(seg.lo), lo), min(int(seg.hi), hi))
			}
		}
	}
}

// reset forgets every access: a dispatch join orders them all before
// whatever comes next.
func (s *shadow) reset() {
	if s.far != nil {
		for _, f := range s.far.regions {
			if f != nil {
				f.reset()
			}
		}
	}
	// The whole list becomes the hole, its segments left as they are:
	// nothing reads the hole (at skips it; moves and copies take only
	// segments), and clearing it wrote every shadow's list, 2 MiB at a
	// ring's join at P = 256, its lines out of the cache by then.
	s.gap, s.gapLen, s.nseg = 0, int32(len(s.segs)), 0
	if s.buf != nil {
		s.buf.race = bufRace{}
	}
	if sp := s.spill; sp != nil {
		sp.free = sp.free[:0]
		for i := range sp.lists {
			sp.lists[i] = sp.lists[i][:0]
			sp.free = append(sp.free, int32(i))
		}
	}
}

// first returns the index of the first segment that ends after lo.
// Accesses move through a window a tile at a time (a ring's rounds step
// one chunk over, its owner and its reader a chunk apart), so the
// segment found last, then the neighbour on lo's side, are tried before
// a binary search, each by whether it holds lo: segments are sorted and
// disjoint, so one that does is the first to end after lo, a test that
// reads only that segment.
func (s *shadow) first(lo int) int {
	n := s.nsegs()
	if i := int(s.hint); i < n {
		if seg := s.at(i); int(seg.lo) > lo {
			if i > 0 {
				if p := s.at(i - 1); int(p.lo) <= lo && lo < int(p.hi) {
					s.hint--
					return i - 1
				}
			}
		} else if lo < int(seg.hi) {
			return i
		} else if i+1 < n {
			if p := s.at(i + 1); int(p.lo) <= lo && lo < int(p.hi) {
				s.hint++
				return i + 1
			}
		}
	}
	a, b := 0, n
	for a < b {
		mid := int(uint(a+b) >> 1)
		if int(s.at(mid).hi) > lo {
			b = mid
		} else {
			a = mid + 1
		}
	}
	s.hint = int32(a)
	return a
}

// access checks cur, an access to bytes [lo, hi) by a thread whose clock
// is h, against the entries of those bytes, calls race for each entry it
// conflicts with that h is not ordered after (with the bytes they share),
// and records it.
//
// fresh says no segment holds cur yet (its thread's first access of its
// site and kind in its epoch). Every segment the access updates ends
// with cur, so one outside [lo, hi) can have the same entries only if
// it holds cur: when fresh, the segments around are not read to merge,
// which for a ring's chunks, never merged, is a cache miss saved on
// each side.
func (s *shadow) access(lo, hi int, cur cellAcc, h *hbThread, fresh bool, race func(e cellAcc, lo, hi int)) {
	var buf [segInline]cellAcc
	if i := s.first(lo); i < s.nsegs() {
		seg := s.at(i)
		if int(seg.lo) == lo && int(seg.hi) < hi && !noTiled && s.accessTiled(i, lo, hi, cur, h, fresh, race) {
			return
		}
		if int(seg.lo) == lo && int(seg.hi) == hi {
			// The bytes are one segment already, as a ring's chunks are
			// after its first round: nothing to split, and a merge only
			// if a neighbour ends up with the same entries.
			for _, e := range s.entriesIn(seg, &buf) {
				if e.tid != cur.tid && conflicts(e.kind(), cur.kind()) && e.clk > h.at(e.tid) {
					race(e, int(seg.lo), int(seg.hi))
				}
			}
			s.update(seg, cur)
			if !fresh && (i > 0 && int(s.at(i-1).hi) == lo && s.same(s.at(i-1), seg) ||
				i+1 < s.nsegs() && int(s.at(i+1).lo) == hi && s.same(s.at(i+1), seg)) {
				s.merge(i-1, i+2)
			}
			return
		}
	}
	first, last := s.cover(lo, hi)
	inPlace := packable(cur)
	for i := first; i < last; i++ {
		seg := s.at(i)
		if inPlace && recordInPlace(seg, cur, h) {
			continue // a window read whole after its chunks: each one's case
		}
		for _, e := range s.entriesIn(seg, &buf) {
			if e.tid != cur.tid && conflicts(e.kind(), cur.kind()) && e.clk > h.at(e.tid) {
				race(e, int(seg.lo), int(seg.hi))
			}
		}
		s.update(seg, cur)
	}
	if fresh {
		s.merge(first, last)
	} else {
		s.merge(first-1, last+1)
	}
}
