package emu

// Copy joins: a ring's rank learns only through its left neighbour, so
// each of its waits joins a clock that knows all its own clock knows but
// two entries (its own and the neighbour's): the join is that clock, not
// the maximum of two.
//
// Thread clocks only grow: a snapshot of thread t at epoch k is ordered
// after everything an earlier snapshot of t was ordered after (a thread
// moves to a new epoch before its clock changes once it has published
// it, and forks and joins only add to a clock). So a base that is a copy
// of a snapshot of t at epoch k, changed since only in the entries of
// its own thread and of t, is dominated, but in those two entries, by
// every later snapshot of t: joining one is a copy of it. A vclock
// records that it is such a copy (copyOf); any other change of it gives
// it a new version, which ends the record. (The record replaces a lineage
// of parent vclocks, which a clock taken over, not copied, would break.)
//
// Most often the copy is no copy at all. The neighbour's published clock
// is held only by the cell the wait acquires (the neighbour has moved on
// to a base of its own, and the cell lets go once its rank has acquired
// it), so the waiter takes the vclock over and writes its two entries in
// place: a ring's vclocks travel round it, one per pending notify, and a
// wait costs O(1) rather than a copy of P entries (ring P = 256 with 4
// elements a chunk: detection's CPU-time slowdown went from 1.49-1.55 to
// 1.36-1.41 on this 2-core machine, the copies and the cache lines they
// pushed out having been about a quarter of what it added).

// copyOf records that a vclock, at version ver, is a copy of thread of's
// clock at an epoch no later than own, changed only in the entries of of
// and of self (the thread whose base it is), and that its entry of of is
// own: a record is made only with the entry at own (markCopy, joinCopy,
// takeCopy), and any later change of the entries gives the vclock a new
// version (pendjoin.go bumps it before a pending write that could). So
// while the record is current, own is what its thread knows of of, and
// a wait on of's clock need not read the entry (signalFast).
type copyOf struct {
	ver  uint64
	self int32
	of   int32
	own  uint32
}

// markCopy records that h's base is now sn's clock but for the entries of
// h and of sn's thread.
func markCopy(h *hbThread, sn hbSnap) {
	b := h.base
	b.copy = copyOf{ver: b.ver, self: h.tid, of: sn.tid, own: sn.own}
}

// copyable reports whether joining sn into h is a copy join: h's base is
// a copy of an earlier (or the same) clock of sn's thread.
func (d *detector) copyable(h *hbThread, sn hbSnap) bool {
	b := h.base
	c := &b.copy
	return c.ver == b.ver && c.self == h.tid && c.of == sn.tid && sn.own >= c.own && sn.base != b
}

// joinCopy joins sn into h when copyable: the new base is sn's with the
// entries of h and of sn's thread at the maximum of the two clocks (and
// sn's thread's at least at sn.own). It takes sn's vclock over when the
// snapshot's holder, about to let go (sn.last), is its only holder;
// otherwise it copies it.
func (d *detector) joinCopy(h *hbThread, sn hbSnap) {
	d.copyJoins++
	old, src := h.base, sn.base
	keepOf := max(h.at(sn.tid), sn.own)
	n := max(len(src.v), int(h.tid)+1, int(sn.tid)+1)
	var v *vclock
	if sn.last && src.refs == 1 {
		// The holder's hold becomes h's once it lets go.
		d.takes++
		v = src
		v.refs++
		if len(v.v) < n {
			had := cap(v.v)
			v.v = append(v.v, make([]uint32, n-len(v.v))...)
			d.spendSlice(had, cap(v.v), 4)
		}
	} else {
		if old.refs == 1 {
			v = old
			if cap(v.v) < n {
				d.spendSlice(cap(v.v), n, 4)
				v.v = make([]uint32, n)
			}
			v.v = v.v[:n]
			v.refs++ // dropped with old below
		} else {
			v = d.alloc(n)
		}
		copy(v.v, src.v)
		clear(v.v[len(src.v):])
	}
	// The entry of h's own thread stays what sn's clock knows of it: a
	// base's entry of its thread is a lower bound of its own epoch, never
	// read for it (hbThread.own).
	v.v[sn.tid] = max(v.v[sn.tid], keepOf)
	d.bump(v)
	h.base = v
	d.drop(old)
	// From would hold a vclock its neighbour could take over otherwise;
	// a ring's joins never find a snapshot on it.
	d.drop(h.from)
	h.from = nil
	v.copy = copyOf{ver: v.ver, self: h.tid, of: sn.tid, own: v.v[sn.tid]}
	// Pend is empty (h.at above flushed it): its first slot keeps the
	// epoch of sn's thread just joined, for recordInPlace (knows).
	h.pend[0] = pendJoin{tid: sn.tid, own: v.v[sn.tid]}
}

// takeCopy is joinCopy for a ring's wait, the fast path's (signalFast)
// with the checks it has made: the cell alone holds src, the snapshot of
// thread tid at epoch own it acquires and lets go of, own is later than
// h's entry of tid (so joinCopy's maximum of the two is own), and src
// has entries for h and tid (so it need not grow). The cell's hold
// becomes h's, where joinCopy takes one of its own and the fast path
// then drops the cell's. Joins as joinCopy does, in about half its
// instructions (ring P = 256 with 16-byte chunks under cachegrind:
// 120 an acquire in joinCopy and the drop after it).
func (d *detector) takeCopy(h *hbThread, src *vclock, tid int32, own uint32) {
	d.copyJoins++
	d.takes++
	old, from := h.base, h.from
	v := src.v
	e := max(v[tid], own)
	v[tid] = e
	d.ver++
	src.ver = d.ver
	src.copy = copyOf{ver: src.ver, self: h.tid, of: tid, own: e}
	h.base, h.from = src, nil
	h.pend[0] = pendJoin{tid: tid, own: e}
	// Last, with nothing live after them.
	d.drop(old)
	d.drop(from)
}
