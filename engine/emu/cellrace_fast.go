package emu

import "pldworkbench/engine/ir"

// The signal fast path (fastNotify, fastWait) is cellAccess, then
// release (a notify, kind accAtomicWrite) or after acquire (a wait,
// accAtomicRead), for the usual case, in one pass on the cell's word
// (cellword.go): the cell keeps its word beside cl, its scheduler
// bookkeeping (inPage), the shadow has no plain accesses to check, and
// the op moves the word along its usual states (a notify makes an empty
// word notified, a wait by the cell's rank thread makes a notified one
// waited, acquiring its clock). It reports false, having changed nothing
// the general path would not, when the case is not that one; the general
// path then does the same work on the cell's wide state. A barrier's and
// a ring's signal ops all take it, at a fraction of the general path's
// instructions. (A word from an earlier dispatch is cleared first, and a
// wide state from one given back, which is no change to what the general
// path would find.) Two more cases go past the word, to wideSignal
// (cellrace_wide.go): a notify of a waited word, and a notify or wait on
// a wide state of this dispatch, when the op leaves it inline.
//
// Both halves are one function, signalFast, which hbNotify and hbWait
// call directly: a signal op's detection is a few dozen instructions of
// checks and word arithmetic, and each further call level (with the
// eight argument words it passes and spills) cost about a tenth of them.

// fastNotify is the fast path for a notify: the cell has no access yet (so
// no clock either, and a Set is an AtomicAdd), and its word becomes
// notified with the notify's access and clock.
func (d *detector) fastNotify(m *machine, n *node, t *tref, key cellKey, cl *cell) bool {
	return d.signalFast(m, n, t, &key, cl, accAtomicWrite)
}

// fastWait is the fast path for a wait that passed: the cell is notified
// by another thread and the waiter is the cell's rank thread, which
// acquires the notify's clock (join's O(1) case inline, its write left
// pending: see pendjoin.go) and lets it go; the word becomes waited.
func (d *detector) fastWait(m *machine, n *node, t *tref, key cellKey, cl *cell) bool {
	return d.signalFast(m, n, t, &key, cl, accAtomicRead)
}

// signalFast is fastNotify (k accAtomicWrite) or fastWait (accAtomicRead).
// What both check first: the cell's word when it is in a page (cl,
// beside its bookkeeping) and not wide, its shadow has no segments (or
// its buffer no plain access: bufRace) and
// n's site memo (nodeSite), for t or a view equal to it (sameView), or
// else m's, holds the id of (n, t) for kind k. A word from an earlier
// dispatch is cleared, as state clears it.
func (d *detector) signalFast(m *machine, n *node, t *tref, key *cellKey, cl *cell, k accessKind) bool {
	// Every call below but the last few makes the compiler keep the
	// arguments on the stack, on the common path too, for use after it
	// returns: eight stores per op. So what needs one (a shadow to make,
	// a site to compare by view, a word to clear) is signalPrep's, which
	// does it and comes back here, a call with nothing live after it.
	b := key.buf
	if cl == nil {
		return false
	}
	if key.rank >= len(b.shadows) {
		return d.signalPrep(m, n, t, key, cl, k)
	}
	sh := b.shadows[key.rank]
	if sh == nil {
		return d.signalPrep(m, n, t, key, cl, k)
	}
	// Segments come only from plain accesses, which b.race.plain notes,
	// so the shadow itself (a miss of its own per op at large P, in a
	// ring at every op) is read only after one. sh.n() reads far, in the
	// shadow's second cache line. A buffer's shadow offsets are from the
	// buffer's first byte and every view of it lies within b.size (window
	// checks it), so only an access of a buffer past shadowRegion reaches
	// a far region; the cells' buffers are small.
	if b.race.plain && (sh.nseg > 0 || b.size > shadowRegion && sh.n() > 0) {
		return false
	}
	// The node's site for its own view first (every rank's, for a window
	// a host makes per rank: window gives equal views one tref), then the
	// thread's memo (a view of its own, made in a kernel). (A node site
	// with a view has an id: cellAccess sets the two together, and notes
	// whether the view passes the tests of inPage(*key, t.off+key.off-b.off,
	// size) that are the view's, t.off == 0 and the size of its cells.)
	var site uint32
	h := &m.hb
	if ns := d.nodeSite(n); ns.view == t && ns.k == k {
		if !ns.grain {
			return false
		}
		site = ns.id
	} else if memo := &h.sites[(uint(n.span.Line)<<2|uint(k))%uint(len(h.sites))]; memo.n == n && memo.view == t && memo.id != 0 {
		if t.off != 0 || dtBytes[t.dt] != cellGrain {
			return false
		}
		site = memo.id
	} else {
		return d.signalPrep(m, n, t, key, cl, k)
	}
	// inPage's test of the cell's offset (cellGrain is a power of two).
	x := key.off - b.off
	if x&(cellGrain-1) != 0 {
		return false
	}
	w := wordOf(cl)
	if *w != 0 && !w.current(d.gen) {
		return d.signalWide(m, n, t, key, cl, site, k) // wide, or an earlier dispatch's
	}
	r := &b.sig
	if k == accAtomicWrite {
		if *w != 0 {
			if w.state() == rwWaited {
				return d.wideSignal(m, key, cl, nil, site, k) // a ring's second notify
			}
			return false
		}
		h.advance()
		if r.gen != d.gen { // refs, inline
			*r = sigRefs{gen: d.gen}
		}
		en := r.en // the buffer's first notify epoch, this one's if it is the first
		if r.nn == 0 {
			en = h.own
		}
		si := siteIndex(&r.sn, r.nn, site)
		ep := h.own - en + rwBias
		id := h.base.id // the clock's base once published (snap keeps it)
		if id == 0 {
			id = d.nextVCID()
		}
		if si < 0 || ep > rwEpMask || uint32(h.tid) >= 1<<rwTidBits || id > rwXMask {
			return false // the general path: h.advance above is the one it makes
		}
		r.en = en
		addSite(&r.sn, &r.nn, si, site)
		id = d.vcID(d.snap(h).base)
		*w = raceWord(id)<<rwXShift | raceWord(ep)<<rwEpShift | raceWord(si)<<rwSiteShift |
			raceWord(h.tid)<<rwTidShift | raceWord(d.gen&rwGenMask)<<rwGenShift | rwNotified
		d.cellClocks++ // countClock(false, true)
		r.clocks = true
		b.race.spanCell(x, x+cellGrain)
		return true
	}
	if w.state() != rwNotified {
		return false
	}
	tid := w.tid()
	if tid == h.tid || h.tid != int32(key.rank) {
		return false // a wait by another thread (a block of a grid) keeps the clock
	}
	// r is this dispatch's: the word is.
	own := h.own // the wait's epoch, once advanced
	if h.released {
		own++
	}
	ew := r.ew // the buffer's first wait epoch, this one's if it is the first
	if r.nw == 0 {
		ew = own
	}
	si := siteIndex(&r.sw, r.nw, site)
	ep := own - ew + rwBias
	if si < 0 || ep > rwEpMask {
		return false
	}
	r.ew = ew
	addSite(&r.sw, &r.nw, si, site)
	clk, sb := r.en+w.ep()-rwBias, d.vcs[w.x()]
	if (sb == h.base || sb == h.from) && d.ownsBase(h) && tid < h.privLen {
		// join's first case: the snapshot adds its epoch at most, and
		// h's base is its own to write (h.advance comes below). The
		// write waits in h's pend buffer (pendjoin.go), here rather than
		// in a function of its own, which cost a call per wait.
		if h.privCopy {
			d.bump(h.base)
			h.privCopy = false
		}
		h.pend[h.npend] = pendJoin{tid: tid, own: clk}
		if h.npend++; h.npend == pendLen {
			h.flush()
		}
	} else if sn := (hbSnap{tid: tid, own: clk, base: sb, last: true}); sb != h.from && h.npend == 0 && d.copyable(h, sn) {
		// join's copy case, a ring's every wait but its first, without
		// join's call and the checks before it: with sb neither base
		// (copyable) nor from, join's O(1) case does not apply. A current
		// copy record says h's entry of tid is the record's own (see
		// copyOf), so whether the snapshot is later than what h knows of
		// tid is read from the base's header, which copyable reads
		// anyway, rather than from its entries, a line the wait then need
		// not touch (a first-level miss at each of a ring's waits).
		if clk > h.base.copy.own {
			h.advance()
			h.priv = nil
			if sb.refs == 1 && int(h.tid) < len(sb.v) && int(tid) < len(sb.v) {
				d.takeCopy(h, sb, tid, clk) // the cell's hold becomes h's
				goto dropped
			}
			d.joinCopy(h, sn)
		}
	} else if clk > h.at(tid) {
		d.join(h, sn)
	}
	// dropSnaps of the clock: the rank thread's acquire lets it go.
	if sb.refs > 1 {
		sb.refs--
	} else {
		d.drop(sb)
	}
dropped:
	d.cellClocks-- // countClock(true, false)
	h.advance()
	*w = *w&^(rwXMask<<rwXShift|rwStateMask) | raceWord(ep)<<rwXShift | raceWord(si)<<(rwSiteShift+rwSiteBits) | rwWaited
	b.race.spanCell(x, x+cellGrain)
	return true
}

// signalWide is signalFast for a word that is wide or an earlier
// dispatch's: wideSignal for a wide state of this dispatch, else
// signalPrep. (A function of its own: its test in signalFast kept one
// more value live there, a spill on every barrier op.)
func (d *detector) signalWide(m *machine, n *node, t *tref, key *cellKey, cl *cell, site uint32, k accessKind) bool {
	if w := wordOf(cl); w.state() == rwWide {
		if c := d.wides.at(w.wideIndex()); c.gen&raceGen == d.gen {
			return d.wideSignal(m, key, cl, c, site, k) // cellrace_wide.go
		}
	}
	return d.signalPrep(m, n, t, key, cl, k)
}

// signalPrep is signalFast's checks with what they may need done: the
// shadow made (as the general path would make it), a view compared with
// the node's (sameView: the node's site then goes into the thread's
// memo), a wide word of an earlier dispatch given back (narrow) and a
// word of one cleared (as state clears it). When the fast path still
// applies it runs it, where all those checks now pass at once.
func (d *detector) signalPrep(m *machine, n *node, t *tref, key *cellKey, cl *cell, k accessKind) bool {
	b := key.buf
	var sh *shadow
	if key.rank < len(b.shadows) {
		sh = b.shadows[key.rank]
	}
	if sh == nil {
		sh = d.shadowOf(shadowKey{buf: b, rank: key.rank})
	}
	if sh.n() > 0 {
		return false
	}
	x := t.off + key.off - b.off
	if !inPage(*key, x, int(dtBytes[t.dt])) {
		return false
	}
	h := &m.hb
	ns := d.nodeSite(n)
	var site uint32
	if ns.view == t && ns.k == k && ns.id != 0 {
		site = ns.id
	} else if memo := &h.sites[(uint(n.span.Line)<<2|uint(k))%uint(len(h.sites))]; memo.n == n && memo.view == t && memo.id != 0 {
		site = memo.id
	} else if ns.k == k && ns.id != 0 && sameView(ns.view, t) {
		site = ns.id
		*memo = siteMemo{n: n, view: t, id: site}
	} else {
		return false
	}
	w := wordOf(cl)
	switch {
	case *w == 0:
	case w.state() == rwWide:
		d.narrow(w) // a wide state of this dispatch stays, for wideSignal
	case !w.current(d.gen):
		d.dropWord(*w)
		*w = 0
	}
	return d.signalFast(m, n, t, key, cl, k)
}

// dtBytes is ir.DType.Bytes as a table, for signalFast: the method's range
// check and lookup cost as much as the rest of its view checks.
var dtBytes = func() (t [256]uint8) {
	for d := range t {
		t[d] = uint8(ir.DType(d).Bytes())
	}
	return t
}()
