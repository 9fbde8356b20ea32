package emu

// The ring all-reduce the lessons build (pld.tensor.allreduce, "ring")
// goes over each cell of its signal window five times in a dispatch: the
// notifier's "ready" notify, the rank's wait for 1, the same notifier's
// "read" notify, the rank's wait for 2, and the rank's own reset notify.
// The word (cellword.go) holds the first two; the third finds it waited,
// and the cell goes wide, as it must: the word has no room for a clock
// beside two accesses. What the general path then does to the wide state
// in those ops is a few slot moves that cellAccess and release reach only
// after building lists and encoding them twice. wideSignal makes the same
// moves directly for the ops whose outcome stays inline (at most two
// accesses, at most the notify's own clock), and leaves every other to
// the general path, which stays the reference: the test in
// fastsignal_wide_internal_test.go runs the two side by side.

// wideSignal is signalFast's part for a cell whose word is waited (a
// notify only) or names a wide state of this dispatch: the notify or
// wait (kind k) by m at site on the cell key, whose bookkeeping is cl
// and whose wide state is c (nil: the word is waited). It reports false,
// having changed nothing the general path would not, when the op is not
// one it takes.
func (d *detector) wideSignal(m *machine, key *cellKey, cl *cell, c *cellRace, site uint32, k accessKind) bool {
	h := &m.hb
	b, rank, x := key.buf, key.rank, key.off-key.buf.off
	if k == accAtomicRead && h.tid != int32(rank) {
		return false // a block's wait keeps the clocks: acquire's other case
	}
	// The general path's state makes a waited word wide first; that
	// is no change to what it would do next.
	if c == nil {
		c = d.wide(m.s, b, rank, cl)
	}
	if c.gen&raceOverflow != 0 || k == accAtomicWrite && c.base != 0 {
		return false // clocks to keep or replace: release's lists
	}
	// The slots cellAccess leaves, decided on threads and kinds alone:
	// the epoch of the access is filled in once known (a wait's comes
	// after its acquire). Neither case keeps an inline clock at that
	// point (a notify needs none, a wait by the rank thread lets it go).
	cur := cellAcc{tid: h.tid, sk: site<<2 | uint32(k)}
	var acc [2]cellAcc
	slot := 1
	if a0, a1 := &c.acc[0], &c.acc[1]; a0.sk != 0 && a1.sk != 0 && a0.tid != a1.tid &&
		(a0.tid == h.tid && covers(k, a0.kind()) || a1.tid == h.tid && covers(k, a1.kind())) {
		// The ring's three cases: one access is the other thread's, the
		// other is this one's and covered. cellAccess replaces a covered
		// second in place, or drops a covered first from its list and
		// appends: either way the other thread's access comes first.
		acc[0] = *a0
		if a0.tid == h.tid {
			acc[0] = *a1
		}
		acc[1] = cur
	} else {
		var ok bool
		if acc, slot, ok = inlineAccs(c.acc, cur); !ok {
			return false
		}
	}
	if k == accAtomicWrite {
		acc[slot].clk = h.epoch()
		// release: the cell's one clock, named by the first access of
		// its thread and epoch (encode's search), which is this one.
		clk := slot
		if slot == 1 && acc[0].tid == h.tid && acc[0].clk == acc[1].clk {
			clk = 0
		}
		sn := d.snap(h)
		c.acc = acc
		c.base = d.vcID(sn.base)
		c.gen &= raceGen
		if clk == 1 {
			c.gen |= raceClock1
		}
		d.cellClocks++ // countClock(false, true)
		// For dropClocks, as cellAccess notes it.
		d.refs(b).clocks = true
	} else {
		// acquire, for the rank thread, then its dropSnaps.
		if c.base != 0 {
			sn := c.clock()
			if sn.tid != h.tid && sn.own > h.at(sn.tid) {
				d.join(h, hbSnap{tid: sn.tid, own: sn.own, base: d.vcs[sn.base], last: true})
			}
			d.drop(d.vcs[c.base])
			c.base = 0
			d.cellClocks-- // countClock(true, false)
		}
		acc[slot].clk = h.epoch()
		c.acc = acc
		c.gen &= raceGen
	}
	b.race.spanCell(x, x+cellGrain)
	return true
}

// inlineAccs is what cellAccess makes of the inline accesses a of a cell
// with no inline clock and the new access cur (of kind cur.kind()): the
// two slots, and the one cur is in; false when the accesses would not
// fit inline (three of them: the overflow's case, left to the general
// path). The cases are cellAccess's, in its order: cur in a free or its
// own thread's covered slot, else the list without cur's thread's
// covered accesses, cur last.
func inlineAccs(a [2]cellAcc, cur cellAcc) ([2]cellAcc, int, bool) {
	k := cur.kind()
	cov0 := a[0].sk != 0 && a[0].tid == cur.tid && covers(k, a[0].kind())
	switch {
	case a[0].sk == 0:
		a[0] = cur
		return a, 0, true
	case a[1].sk == 0 && cov0:
		a[0] = cur
		return a, 0, true
	case a[1].sk == 0:
		a[1] = cur
		return a, 1, true
	case !cov0 && a[1].tid == cur.tid && covers(k, a[1].kind()):
		a[1] = cur
		return a, 1, true
	}
	// Both slots are full and neither case applied.
	var out [2]cellAcc
	n := 0
	for _, e := range a {
		if e.tid == cur.tid && covers(k, e.kind()) {
			continue
		}
		if n == 1 {
			return out, 0, false
		}
		out[n] = e
		n++
	}
	out[n] = cur
	return out, n, true
}
