package emu

import "pldworkbench/engine/ir"

// The signal fast path is cellAccess, then release (a notify, kind
// accAtomicWrite) or after acquire (a wait, accAtomicRead), for the usual
// case, in one pass on the cell's word (cellword.go): the cell keeps its
// word beside cl, its scheduler bookkeeping (inPage), the shadow has no
// plain accesses to check, and the op moves the word along its usual
// states (a notify makes an empty word notified, a wait by the cell's
// rank thread makes a notified one waited, acquiring its clock). It
// reports false, having changed nothing the general path would not, when
// the case is not that one; the general path then does the same work on
// the cell's wide state. A barrier's and a ring's signal ops all take it,
// at a fraction of the general path's instructions. (A word from an
// earlier dispatch is cleared first, and a wide state from one given
// back, which is no change to what the general path would find.) Two
// more cases go past the word, to wideSignal (cellrace_wide.go): a notify
// of a waited word, and a notify or wait on a wide state of this
// dispatch, when the op leaves it inline.
//
// It has two tiers. signalFast makes every check the fast path needs, for
// both kinds in one function. What it checks of the node, its view and
// the buffer's sites holds for every later op of the node on that view in
// the dispatch, so once an op of it has gone through, signalFast notes
// the node and view in the buffer's references (sigRefs.hot, with the
// bits of a word that name the site), and the next ops of that node on
// that view take notifyFast or waitFast: two compares with what the
// buffer holds, in a line the op reads anyway, for what signalFast
// decides in a dozen tests and the node's memo (a bounds-checked index
// into the run's memos), and a function per kind, each with fewer values
// live than signalFast holds (whose stack frame took five stores an op).
// Whatever they do not find as usual they hand to signalFast, which
// decides it afresh. (Barrier P = 256 under cachegrind: signalFast's
// 173 instructions an op became 81 a notify and 117 a wait, the pending
// joins' flushes included; ring P = 256 with 1 K FP32 a rank: 179 an op
// and 56 a wait's takeCopy became 71 a notify and 152 a wait, its
// takeCopy included.)
//
// In front of the second tier are its usual cases as leaves, notifyLeaf
// and waitLeaf, which make no call (and, but for a ring's take, write no
// pointer), so they have no stack frame and keep every value in a
// register: the second tier's prologue, epilogue and spills were about a
// fifth of its instructions. They change nothing when they report false,
// and notify and waitOp then call notifyFast or waitFast (onNotify,
// onWait). (Under cachegrind, detection on minus off: barrier P = 256,
// 62 a notify and 105 a wait, the flushes included; ring P = 256 with
// 1 K FP32 a rank, 54 a notify and 114 a wait; notify's and waitOp's
// calls and tests about 18 an op more.)

// fastNotify is the fast path for a notify: the cell has no access yet (so
// no clock either, and a Set is an AtomicAdd), and its word becomes
// notified with the notify's access and clock. It does nothing when it
// reports false (the tests then run the general path).
func (d *detector) fastNotify(m *machine, n *node, t *tref, key cellKey, cl *cell) bool {
	return d.onNotify(m, n, t, key, cl, false)
}

// fastWait is the fast path for a wait that passed: the cell is notified
// by another thread and the waiter is the cell's rank thread, which
// acquires the notify's clock (join's O(1) case inline, its write left
// pending: see pendjoin.go) and lets it go; the word becomes waited.
func (d *detector) fastWait(m *machine, n *node, t *tref, key cellKey, cl *cell) bool {
	return d.onWait(m, n, t, &key, cl, false)
}

// general runs the general path of the op of kind k when gen is set (a
// notify's op= is its node's); it reports false, the fast path not having
// applied. notifyFast and waitFast run it themselves, so that notify and
// waitOp call them last, with nothing of theirs live across the call
// (the general path after it had kept every argument on the stack: eleven
// stores a notify).
func (d *detector) general(m *machine, n *node, t *tref, key *cellKey, k accessKind, gen bool) bool {
	if !gen {
		return false
	}
	if k == accAtomicWrite {
		d.release(m, d.cellAccess(m, n, t, *key, k), n.sigSet)
	} else {
		d.cellAccess(m, n, t, *key, k)
	}
	return false
}

// signalRest is signalFast, then the general path (when gen is set) if
// it does not apply.
func (d *detector) signalRest(m *machine, n *node, t *tref, key *cellKey, cl *cell, k accessKind, gen bool) bool {
	if d.signalFast(m, n, t, key, cl, k) {
		return true
	}
	return d.general(m, n, t, key, k, gen)
}

// notifyLeaf is notifyFast's usual case with nothing that needs a call
// or a pointer written, so that it has no stack frame (notifyFast's
// prologue, epilogue and spills were a fifth of its instructions): the
// noted node and view, a fresh notify, nothing pending to flush and no
// private base to forget (snap's h.flush and h.priv = nil have nothing to
// do). It reports false, having changed nothing, for anything else, and
// the caller then runs notifyFast, which decides it afresh (see
// onNotify). hot being noted says the view passes the fast path's tests
// (its cells on the grid: signalKey's offsets are multiples of the
// element's bytes, cellGrain), so that is not tested here.
func (d *detector) notifyLeaf(m *machine, n *node, t *tref, key cellKey, cl *cell) bool {
	b := key.buf
	hot := &b.sig.hot[accAtomicWrite&1]
	if hot.n != n || hot.t != t || b.race.plain || !b.sig.shadowed && !b.hasShadow(key.rank) {
		return false
	}
	h, w := &m.hb, wordOf(cl)
	if *w != 0 || h.npend != 0 || h.priv != nil {
		return false
	}
	own, base := h.own, h.base
	if h.released {
		own++ // h.advance
	}
	ep, id := own-b.sig.en+rwBias, base.id
	if id-1 >= rwXMask || uint32(h.tid) >= 1<<rwTidBits || ep > rwEpMask {
		return false
	}
	// h.advance and snap: the base is published at the new epoch.
	h.own, h.released = own, true
	base.refs++
	*w = raceWord(id)<<rwXShift | raceWord(ep)<<rwEpShift | raceWord(h.tid)<<rwTidShift | raceWord(hot.word)
	d.cellClocks++ // countClock(false, true)
	x := key.off - b.off
	b.race.spanCell(x, x+cellGrain)
	return true
}

// onNotify is the race detector's part of a notify by m at n on the cell
// key (of t, whose bookkeeping is cl): an atomic write of the cell, then
// the release (a Set, n.sigSet, replaces the cell's clocks, an AtomicAdd
// adds to them). It is notifyLeaf, else notifyFast and, when gen is set,
// the general path. rma.go's notify writes it out (two calls are past
// the inliner's budget), so that the leaf's call is the only one.
func (d *detector) onNotify(m *machine, n *node, t *tref, key cellKey, cl *cell, gen bool) bool {
	return d.notifyLeaf(m, n, t, key, cl) || d.notifyFast(m, n, t, key, cl, gen)
}

// notifyFast is signalFast's notify of an empty word, for a node whose
// op on t signalFast has noted (sigRefs.hot, this dispatch's): the
// checks of signalFast the note does not answer, then its fresh notify,
// else signalFast and the general path (gen). The view's buffer's references
// are this dispatch's, with the node's site among their notify sites (its
// index in hot.word), so en is set and the buffer's clocks flag too. cl is
// never nil: notify's is lookupCell's, which makes the cell.
func (d *detector) notifyFast(m *machine, n *node, t *tref, key cellKey, cl *cell, gen bool) bool {
	b := key.buf
	hot := &b.sig.hot[accAtomicWrite&1]
	if hot.n != n || hot.t != t || b.race.plain || !b.sig.shadowed && !b.hasShadow(key.rank) {
		return d.signalRest(m, n, t, &key, cl, accAtomicWrite, gen)
	}
	h := &m.hb
	x := key.off - b.off
	// The cell's offset first: a cell off the grid has no word. A base
	// without an id yet (id 0: signalFast gives it one) or one past the
	// word's, and a tid past the word's, go to signalFast too, which
	// takes the general path for the last two.
	if x&(cellGrain-1) != 0 || *wordOf(cl) != 0 || h.base.id-1 >= rwXMask || uint32(h.tid) >= 1<<rwTidBits {
		return d.signalRest(m, n, t, &key, cl, accAtomicWrite, gen)
	}
	h.advance()
	ep, id := h.own-b.sig.en+rwBias, h.base.id // snap below keeps the base
	if ep > rwEpMask {
		return d.general(m, n, t, &key, accAtomicWrite, gen) // after signalFast's h.advance, as here
	}
	d.snap(h)
	*wordOf(cl) = raceWord(id)<<rwXShift | raceWord(ep)<<rwEpShift | raceWord(h.tid)<<rwTidShift | raceWord(hot.word)
	d.cellClocks++ // countClock(false, true)
	b.race.spanCell(x, x+cellGrain)
	return true
}

// waitFast is signalFast's wait of a notified word of this dispatch, for
// a node whose op on t signalFast has noted (sigRefs.hot), else
// signalFast and the general path (gen): as notifyFast, the buffer's
// references are this dispatch's with the node's site among their wait
// sites, so ew is set (and en: the word is a notify's of this dispatch).
// cl is never nil: waitOp looks a wait's cell up when detection is on.
func (d *detector) waitFast(m *machine, n *node, t *tref, key *cellKey, cl *cell, gen bool) bool {
	b := key.buf
	hot := &b.sig.hot[accAtomicRead&1]
	if hot.n != n || hot.t != t || b.race.plain || !b.sig.shadowed && !b.hasShadow(key.rank) {
		return d.signalRest(m, n, t, key, cl, accAtomicRead, gen)
	}
	x := key.off - b.off
	// The state and the dispatch in one test (hot.want): a notified word
	// of this one.
	if x&(cellGrain-1) != 0 || *wordOf(cl)&(rwStateMask|rwGenMask<<rwGenShift) != raceWord(hot.want) {
		return d.signalRest(m, n, t, key, cl, accAtomicRead, gen)
	}
	h := &m.hb
	w := *wordOf(cl)
	tid := w.tid()
	own := h.own // the wait's epoch, once advanced
	if h.released {
		own++
	}
	ep := own - b.sig.ew + rwBias
	if tid == h.tid || h.tid != int32(key.rank) || ep > rwEpMask {
		// A wait by another thread (a block of a grid) keeps the clock.
		return d.general(m, n, t, key, accAtomicRead, gen)
	}
	clk, sb := b.sig.en+w.ep()-rwBias, d.vcs[w.x()]
	// The word first, then the join: what the word needs is not live
	// across the join's calls. (h.advance comes first too: the join
	// makes it anyway, and the O(1) case reads no epoch of h's.) No
	// spanCell: the word's notify, of this dispatch, spanned the cell,
	// and only a dispatch join resets the span.
	*wordOf(cl) = w&^(rwXMask<<rwXShift|rwStateMask) | raceWord(ep)<<rwXShift | raceWord(hot.word)
	d.cellClocks-- // countClock(true, false)
	h.advance()
	if (sb == h.base || sb == h.from) && d.ownsBase(h) && tid < h.privLen {
		d.pendAcquire(h, tid, clk, sb) // join's first case, as in signalFast
		return true
	}
	// acquireWord's take of a copy (a ring's every wait but its first
	// that waitLeaf does not take), its tests in its order.
	if old := h.base; sb != h.from && h.npend == 0 && old.copy.ver == old.ver && old.copy.self == h.tid && old.copy.of == tid &&
		clk > old.copy.own && sb != old && sb.refs == 1 && uint(h.tid) < uint(len(sb.v)) && uint(tid) < uint(len(sb.v)) {
		h.priv = nil
		d.takeCopy(h, sb, tid, clk) // the cell's hold becomes h's
		return true
	}
	d.acquireWord(h, tid, clk, sb)
	return true
}

// waitLeaf is waitFast's two usual cases with nothing that needs a call
// (as notifyLeaf): a barrier's wait, join's O(1) case on the from its
// base was cloned from, on a base the thread has seen its own (priv),
// the flush inline; and a ring's take of a copy with no from and an
// earlier base that keeps another holder (neither drop gives the pool
// anything). It reports false, having changed nothing, for anything
// else, and the caller then runs waitFast (see onWait). The tests come
// first, in waitFast's order, the writes after.
func (d *detector) waitLeaf(m *machine, n *node, t *tref, key *cellKey, cl *cell) bool {
	b := key.buf
	w := *wordOf(cl)
	if hot := &b.sig.hot[accAtomicRead&1]; hot.n != n || hot.t != t || b.race.plain || w&(rwStateMask|rwGenMask<<rwGenShift) != raceWord(hot.want) {
		return false
	}
	if !b.sig.shadowed && !b.hasShadow(key.rank) {
		return false
	}
	h := &m.hb
	tid := w.tid()
	own := h.own // the wait's epoch, once advanced
	if h.released {
		own++
	}
	ep := own - b.sig.ew + rwBias
	if tid == h.tid || h.tid != int32(key.rank) || ep > rwEpMask {
		return false
	}
	clk, sb := b.sig.en+w.ep()-rwBias, d.vcs[w.x()]
	w = w&^(rwXMask<<rwXShift|rwStateMask) | raceWord(ep)<<rwXShift | raceWord(b.sig.hot[accAtomicRead&1].word)
	base := h.base
	if from := h.from; from != nil {
		// join's first case, as in waitFast, where ownsBase finds priv:
		// a barrier's every wait but a rank's first. (sb == base, the
		// case's other half, takes waitFast: only a base's holder that
		// has let go of it could find it so.)
		if sb != from || h.priv != base || tid >= h.privLen || sb.refs <= 1 {
			return false
		}
		// pendAdd, without its flush (waitFast's): the next tid of the
		// open run, most often, or a new run when the buffer has room.
		n, p := h.npend, &h.pend[0]
		more := n != 0 && *p == (pendJoin{tid: tid - 1, own: clk}) && h.run != pendRunMax
		if !more && n == pendLen {
			return false
		}
		h.own, h.released = own, false // h.advance
		*wordOf(cl) = w
		d.cellClocks-- // countClock(true, false)
		if h.privCopy {
			d.bump(base)
			h.privCopy = false
		}
		if more {
			p.tid, h.run = tid, h.run+1
		} else {
			if n != 0 {
				h.pend[n] = pendJoin{tid: p.tid | int32(h.run)<<16, own: p.own}
			}
			*p, h.run, h.npend = pendJoin{tid: tid, own: clk}, 0, n+1
		}
		sb.refs-- // the cell's hold: others remain
		return true
	}
	// waitFast's take of a copy: sb's cell alone holds it (so sb is not
	// base, which h holds too: join's first case), the base's copy
	// record says it is a copy of tid's clock at an earlier epoch, and sb
	// has entries for both threads.
	v, i := sb.v, uint(uint32(tid))
	if c := &base.copy; h.npend != 0 || c.ver != base.ver || c.self != h.tid || c.of != tid || clk <= c.own ||
		sb.refs != 1 || base.refs <= 1 || uint(uint32(h.tid)) >= uint(len(v)) || i >= uint(len(v)) {
		return false
	}
	h.own, h.released = own, false // h.advance
	*wordOf(cl) = w
	d.cellClocks-- // countClock(true, false)
	d.leafTakes++
	e := max(v[i], clk)
	v[i] = e
	// The new record keeps sb's version, where takeCopy gives it a new
	// one: a record, once replaced, is not current for anyone (sb's
	// holders were the cell and, before it, the notifier, which let go
	// of it as its base's priv when it published it), and any later
	// change of the entries gives a new version.
	sb.copy = copyOf{ver: sb.ver, self: h.tid, of: tid, own: e}
	h.pend[0] = pendJoin{tid: tid, own: e}
	base.refs-- // drop(old)
	h.priv, h.base = nil, sb
	return true
}

// onWait is the race detector's part of a wait of m at n that passed:
// the acquire, then an atomic read of the cell. It is waitLeaf, else
// waitFast and, when gen is set, the general path; rma.go's waitOp
// writes it out, as notify does onNotify.
func (d *detector) onWait(m *machine, n *node, t *tref, key *cellKey, cl *cell, gen bool) bool {
	return d.waitLeaf(m, n, t, key, cl) || d.waitFast(m, n, t, key, cl, gen)
}

// pendAcquire is join's first case for the rank thread h acquiring sb,
// the clock a notified word names (thread tid at epoch clk), when sb is
// h's base or the from it was cloned from and h owns its base: the
// snapshot adds tid's epoch at most, so the write waits in h's pend
// buffer (pendjoin.go), and the cell's hold on sb is let go (dropSnaps
// of the clock). signalFast and waitFast call it; waitLeaf has its own
// copy of the from half, which must make no call.
func (d *detector) pendAcquire(h *hbThread, tid int32, clk uint32, sb *vclock) {
	if h.privCopy {
		d.bump(h.base)
		h.privCopy = false
	}
	h.pendAdd(tid, clk)
	if sb.refs > 1 {
		sb.refs--
	} else {
		d.drop(sb)
	}
}

// hasShadow reports whether rank's copy of b has its shadow.
func (b *bufDesc) hasShadow(rank int) bool {
	return uint(rank) < uint(len(b.shadows)) && b.shadows[rank] != nil
}

// acquireWord is the rest of signalFast's acquire of the clock a notified
// word names, for the rank thread h (the thread tid, at epoch clk, base
// sb), once join's O(1) case has not applied: join's copy case, or join,
// and the cell's hold let go.
func (d *detector) acquireWord(h *hbThread, tid int32, clk uint32, sb *vclock) {
	if sn := (hbSnap{tid: tid, own: clk, base: sb, last: true}); sb != h.from && h.npend == 0 && d.copyable(h, sn) {
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
				return
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
}

// signalFast is the fast path's first tier, for a notify (k
// accAtomicWrite) or a wait (accAtomicRead). What both check first: the cell's word when it is in a page (cl,
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
			r.reset(d.gen)
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
		d.noteFast(m, n, t, k, uint32(si)<<rwSiteShift|(d.gen&rwGenMask)<<rwGenShift|rwNotified)
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
		d.pendAcquire(h, tid, clk, sb) // h.advance comes below
	} else {
		d.acquireWord(h, tid, clk, sb)
	}
	d.cellClocks-- // countClock(true, false)
	h.advance()
	*w = *w&^(rwXMask<<rwXShift|rwStateMask) | raceWord(ep)<<rwXShift | raceWord(si)<<(rwSiteShift+rwSiteBits) | rwWaited
	b.race.spanCell(x, x+cellGrain)
	d.noteFast(m, n, t, k, uint32(si)<<(rwSiteShift+rwSiteBits)|rwWaited)
	return true
}

// noteFast notes in t's buffer's references, when n's site memo names
// view t for kind k and t passes the view tests (grain), that n's next
// ops of kind k on t in this dispatch may take notifyFast or waitFast
// (sigRefs.hot): the op signalFast just made found the node's site among
// the references at the index word names (the bits of a word notifyFast
// ORs in, or waitFast; for a notify with the dispatch's bits). A buffer
// notes one node of each kind, the last: a barrier has one, a ring's
// phases one each in turn.
func (d *detector) noteFast(m *machine, n *node, t *tref, k accessKind, word uint32) {
	if ns := d.nodeSite(n); ns.view == t && ns.k == k && ns.grain {
		t.buf.sig.hot[k&1] = sigHot{n: n, t: t, word: word, want: (d.gen&rwGenMask)<<rwGenShift | rwNotified}
	}
	t.buf.scanShadows(m.s.P)
}

// scanShadows notes whether every rank's copy of b has its shadow yet
// (sigRefs.shadowed), looking at each rank once: noteFast and signalPrep,
// which makes the shadows of signal ops, ask.
func (b *bufDesc) scanShadows(P int) {
	if r := &b.sig; !r.shadowed {
		for int(r.scan) < P && b.hasShadow(int(r.scan)) {
			r.scan++
		}
		r.shadowed = int(r.scan) == P
	}
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
		b.scanShadows(m.s.P)
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
