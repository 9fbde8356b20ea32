package emu

import (
	"slices"
	"unsafe"

	"pldworkbench/engine/ir"
)

// Signal cells live outside the segments of the shadow (shadow.go): a
// notify is an atomic write of its cell and a wait that passes an atomic
// read, and atomics never conflict with each other, so a cell keeps its
// atomic accesses in its own state (at most one per thread and kind, as a
// segment would) and a shadow only notes the byte range its cells span.
// A plain access there (reading a tally with pl.read, resetting a cell
// with pl.write) checks the cells it covers; a notify or wait checks the
// plain accesses of its cell's bytes in the segments, without adding one.
// So a barrier's P² cells cost no segment and no insert, and a signal
// window that only notify and wait touch has no segments at all.
//
// A cell's full state (cellRace) is 32 bytes without a pointer: the
// usual single notifier's clock and two accesses (its notify and the
// wait) inline, anything beyond in an overflow (detector.more) that a few
// counters and many-notifier cells need. The inline clock names its thread and epoch
// by an inline access, its own notify's, which has the same two (a
// notify's access and its release share the epoch), so only its base
// (the vclock's id) takes room. An INT32 cell on the cells' grid (every
// lesson's) keeps an 8-byte word beside the scheduler's bookkeeping of
// the cell, in the buffer's cell pages (raceCell in cells.go): a notify
// or wait touches that bookkeeping anyway, and at large P, where the
// cells are out of the cache, a separate array of states cost a second
// miss on every signal op. The word holds a barrier's and a ring's
// states itself and names a cellRace in the detector's wide table for
// any other (cellword.go). Any other cell (an INT64 signal, an INT8 one
// off the grid) keeps its state in its shadow's odd map. Without
// pointers the pages, 512 MiB for the 16.7 million cells of a barrier at
// P = 4096, are not scanned by the garbage collector.

// cellRace is the race detector's state of a signal cell, from dispatch
// gen: the clocks of the notifies a wait on it acquires, and its atomic
// accesses.
type cellRace struct {
	// gen is the dispatch the state is from (raceGen bits); raceOverflow
	// says detector.more holds the clocks and accesses (all of them, none
	// inline), raceClock1 that the inline clock is acc[1]'s (else acc[0]'s).
	gen uint32
	// base is the inline clock's base, a vclock id (0: no inline clock);
	// its thread and epoch are those of the access raceClock1 names.
	base uint32
	acc  [2]cellAcc // the accesses (sk 0: none)
}

const (
	raceOverflow = 1 << 31
	raceClock1   = 1 << 30
	raceGen      = raceClock1 - 1 // the dispatch's bits of cellRace.gen
)

// clock is c's inline clock (valid when c.base != 0).
func (c *cellRace) clock() cellClock {
	a := c.acc[c.gen>>30&1]
	return cellClock{tid: a.tid, own: a.clk, base: c.base}
}

// holdsClock reports whether c holds any clock, inline or in its overflow.
func (c *cellRace) holdsClock(d *detector) bool {
	if c.gen&raceOverflow == 0 {
		return c.base != 0
	}
	return len(d.more[c].hb) > 0
}

// cellClock is an hbSnap whose base is a vclock id (detector.vcs).
type cellClock struct {
	tid  int32
	own  uint32
	base uint32
}

// raceMore is a cell's overflow: every clock and access it holds.
type raceMore struct {
	hb  []hbSnap
	acc []cellAcc
}

// cellAcc is an access in unpacked form, as a wide cell state (cellRace),
// an overflow (raceMore) and a shadow's spill lists keep it: entry without
// its node and view, which site names (detector.sites); sk is the site id
// times four plus the kind. (Most signal cells keep a raceWord instead,
// cellword.go, and a segment's in-place entries are packed, segAcc.)
type cellAcc struct {
	tid int32
	clk uint32
	sk  uint32
}

func (a cellAcc) kind() accessKind { return accessKind(a.sk & 3) }
func (a cellAcc) site() uint32     { return a.sk >> 2 }

// site is the node and view of cell accesses, interned so that a cell's
// access costs 12 bytes rather than 32.
type site struct {
	n    *node
	view *tref
}

// siteOf returns the id of (n, t) for an access of kind k by h. A thread
// remembers its last sites in a few slots, by source line and kind: a
// loop's accesses (a ring round's remote_load, load, store, notify and
// wait) find theirs there every time, without a map lookup.
func (d *detector) siteOf(h *hbThread, n *node, t *tref, k accessKind) uint32 {
	memo := &h.sites[(uint(n.span.Line)<<2|uint(k))%uint(len(h.sites))]
	if memo.n == n && memo.view == t && memo.id != 0 {
		return memo.id
	}
	v := d.canon(t)
	id, ok := d.siteIDs[site{n, v}]
	if !ok {
		if len(d.sites) == 0 {
			d.sites = append(d.sites, site{}) // id 0 is no site
		}
		id = uint32(len(d.sites))
		d.sites = append(d.sites, site{n, v})
		d.siteIDs[site{n, v}] = id
	}
	*memo = siteMemo{n: n, view: t, id: id}
	return id
}

// viewKey and the shape are what a report reads of a view (side,
// message): views equal in them name the same memory the same way, so they share their sites. A
// host that makes its window view once per rank (pld.window in its
// dispatch loop) gives every rank its own equal view, and the one site of
// a signal op is then what its node remembers for all of them (signalFast).
type viewKey struct {
	buf  *bufDesc
	host *hostTensor
	name string
	dt   ir.DType
	off  int
}

// canon returns the first view d met that is equal to t (sameView). The
// views with one key differ only in their shape (a short list, mostly of
// one): the shape is compared, not formatted into the key, which cost a
// short run through the server 6% of its time.
func (d *detector) canon(t *tref) *tref {
	if t == nil {
		return nil
	}
	k := viewKey{buf: t.buf, host: t.host, name: t.name, dt: t.dt, off: t.off}
	for _, v := range d.views[k] {
		if slices.Equal(v.shape, t.shape) {
			return v
		}
	}
	if d.views == nil {
		d.views = map[viewKey][]*tref{}
	}
	d.views[k] = append(d.views[k], t)
	return t
}

// sameView reports whether a and b have the same viewKey.
func sameView(a, b *tref) bool {
	return a.buf == b.buf && a.host == b.host && a.dt == b.dt && a.off == b.off && a.name == b.name && slices.Equal(a.shape, b.shape)
}

// nodeSite is a node's last site of a signal-cell access of kind k
// (detector.nodeSite); id 0 is none. It belongs to one run, so its
// detector's ids are the only ones it sees.
type nodeSite struct {
	view *tref
	id   uint32
	k    accessKind
	// grain says view passes the fast path's tests of a view (signalFast:
	// its offset 0, its cells cellGrain bytes), which it then need not
	// make at each op.
	grain bool
}

// siteMemo is a thread's last site of one kind.
type siteMemo struct {
	n    *node
	view *tref
	id   uint32
}

func (d *detector) entryOf(a cellAcc) entry {
	s := d.sites[a.site()]
	return entry{tid: a.tid, clk: a.clk, kind: a.kind(), n: s.n, view: s.view}
}

// vcID returns v's id, giving it one on first use.
func (d *detector) vcID(v *vclock) uint32 {
	if v.id != 0 {
		return v.id
	}
	if k := len(d.freeIDs); k > 0 {
		v.id, d.freeIDs = d.freeIDs[k-1], d.freeIDs[:k-1]
		d.vcs[v.id] = v
		return v.id
	}
	if len(d.vcs) == 0 {
		d.vcs = append(d.vcs, nil) // id 0 is no clock
	}
	v.id = uint32(len(d.vcs))
	d.vcs = append(d.vcs, v)
	return v.id
}

// inPage reports whether the cell of key, at byte x of its buffer with
// size bytes, keeps its state in the buffer's cell pages (raceCell): an
// INT32 cell on the cells' grid, every lesson's. Any other cell keeps it
// in its shadow's odd map.
func inPage(key cellKey, x, size int) bool {
	return size == cellGrain && x == key.off-key.buf.off && x%cellGrain == 0
}

// state returns the detector state of the cell key at bytes [x, x+size)
// of the memory sh shadows, cleared of an earlier dispatch's.
func (d *detector) state(s *sim, sh *shadow, key cellKey, x, size int) *cellRace {
	var rc *cellRace
	if inPage(key, x, size) {
		rc = d.wide(s, key.buf, key.rank, s.lookupCell(key, true))
	} else {
		if sh.odd == nil {
			sh.odd = map[int]*cellRace{}
		}
		if rc = sh.odd[x]; rc == nil {
			s.reserveSignals(int64(unsafe.Sizeof(cellRace{})) + 16) // and its map entry
			rc = &cellRace{gen: d.gen}
			sh.odd[x] = rc
		}
	}
	if rc.gen&raceGen != d.gen {
		d.clearState(rc)
	}
	return rc
}

// clearState forgets everything c holds from an earlier dispatch.
func (d *detector) clearState(c *cellRace) {
	d.dropSnaps(c)
	if c.gen&raceOverflow != 0 {
		d.encode(c, nil, nil)
	}
	*c = cellRace{gen: d.gen}
}

// stateAt returns the state of this dispatch of the cell that starts at
// byte x of sh's buffer, or nil: the INT32 cell there, else any other.
func (d *detector) stateAt(s *sim, sh *shadow, x int) *cellRace {
	if sh.buf != nil && x%cellGrain == 0 {
		if c := s.lookupCell(cellKey{buf: sh.buf, rank: sh.rank, off: sh.buf.off + x}, false); c != nil {
			w := *wordOf(c)
			if w.current(d.gen) {
				return d.wide(s, sh.buf, sh.rank, c)
			}
			if w.state() == rwWide {
				if rc := d.wides.at(w.wideIndex()); rc.gen&raceGen == d.gen {
					return rc
				}
			}
		}
	}
	if rc := sh.odd[x]; rc != nil && rc.gen&raceGen == d.gen {
		return rc
	}
	return nil
}

// snapOf is the hbSnap a cell keeps as cc.
func (d *detector) snapOf(cc cellClock) hbSnap {
	return hbSnap{tid: cc.tid, own: cc.own, base: d.vcs[cc.base]}
}

// snaps returns the cell's clocks in buf.
func (d *detector) snaps(c *cellRace, buf []hbSnap) []hbSnap {
	buf = buf[:0]
	if c.gen&raceOverflow != 0 {
		return append(buf, d.more[c].hb...)
	}
	if c.base != 0 {
		buf = append(buf, d.snapOf(c.clock()))
	}
	return buf
}

// accs returns the cell's accesses in buf.
func (d *detector) accs(c *cellRace, buf []cellAcc) []cellAcc {
	buf = buf[:0]
	if c.gen&raceOverflow != 0 {
		return append(buf, d.more[c].acc...)
	}
	for _, a := range c.acc {
		if a.sk != 0 {
			buf = append(buf, a)
		}
	}
	return buf
}

// setSnaps makes list the cell's clocks (the holds move with them).
func (d *detector) setSnaps(c *cellRace, list []hbSnap) {
	d.accBuf = d.accs(c, d.accBuf)
	d.encode(c, list, d.accBuf)
}

// setAccs makes list the cell's accesses.
func (d *detector) setAccs(c *cellRace, list []cellAcc) {
	d.snapBuf = d.snaps(c, d.snapBuf)
	d.encode(c, d.snapBuf, list)
}

// encode makes clocks and accs what c holds (the clocks' holds move
// with them; neither list may be the overflow's own): inline when there
// are at most two accesses and at most one clock whose thread and epoch
// are an access's (a notify's clock is its access's), else all of them in
// the overflow. The accesses keep their order, which the reports follow.
func (d *detector) encode(c *cellRace, clocks []hbSnap, accs []cellAcc) {
	had := c.holdsClock(d)
	slot := -1
	if len(accs) <= 2 && len(clocks) <= 1 {
		slot = 2 // inline, no clock
		if len(clocks) == 1 {
			slot = -1
			for i, a := range accs {
				if a.tid == clocks[0].tid && a.clk == clocks[0].own {
					slot = i
					break
				}
			}
		}
	}
	gen := c.gen & raceGen
	if slot >= 0 {
		if c.gen&raceOverflow != 0 {
			delete(d.more, c)
		}
		*c = cellRace{gen: gen}
		copy(c.acc[:], accs)
		if slot < 2 {
			c.base = d.vcID(clocks[0].base)
			if slot == 1 {
				c.gen |= raceClock1
			}
		}
	} else {
		mo := d.more[c]
		if c.gen&raceOverflow == 0 {
			if d.more == nil {
				d.more = map[*cellRace]*raceMore{}
			}
			mo = &raceMore{}
			d.more[c] = mo
			d.spend(moreBytes)
		}
		clear(mo.hb)
		hadHB, hadAcc := cap(mo.hb), cap(mo.acc)
		mo.hb = append(mo.hb[:0], clocks...)
		mo.acc = append(mo.acc[:0], accs...)
		d.spendSlice(hadHB, cap(mo.hb), int64(unsafe.Sizeof(hbSnap{})))
		d.spendSlice(hadAcc, cap(mo.acc), segAccBytes)
		*c = cellRace{gen: gen | raceOverflow}
	}
	d.countClock(had, len(clocks) > 0)
}

// countClock keeps count of the cells that hold a clock: a cell went from
// holding one (had) to holding one (has).
func (d *detector) countClock(had, has bool) {
	if had != has {
		if has {
			d.cellClocks++
		} else {
			d.cellClocks--
		}
	}
}

// dropSnaps lets go of every clock c holds.
func (d *detector) dropSnaps(c *cellRace) {
	if c.gen&raceOverflow == 0 {
		if c.base != 0 {
			d.drop(d.vcs[c.base])
			c.base = 0
			c.gen &^= raceClock1
			d.countClock(true, false)
		}
		return
	}
	for _, sn := range d.snaps(c, d.snapBuf) {
		d.drop(sn.base)
	}
	d.setSnaps(c, nil)
}

// release records a notify by m on cell c: a Set replaces the clocks the
// cell held, an AtomicAdd adds m's (replacing m's older one).
func (d *detector) release(m *machine, c *cellRace, set bool) {
	sn := d.snap(&m.hb)
	if set {
		d.dropSnaps(c)
	}
	list := d.snaps(c, d.snapBuf)
	d.snapBuf = list
	for i := range list {
		if list[i].tid == sn.tid {
			d.drop(list[i].base)
			list[i] = sn
			d.setSnaps(c, list)
			return
		}
	}
	list = append(list, sn)
	d.snapBuf = list
	d.setSnaps(c, list)
}

// acquire orders m after every notify cell c holds: the wait m is in has
// passed. Only rank p's threads wait on the cells of p's window; once its
// rank thread (not a block of a grid, whose sibling blocks may wait
// later) has acquired the cell's clocks, every later wait on the cell is
// by that thread or by a block it forks afterwards, which know them
// already, so the cell lets them go.
func (d *detector) acquire(m *machine, c *cellRace) {
	h := &m.hb
	last := m.block == 0 && m.parent == nil // dropSnaps below
	if c.gen&raceOverflow == 0 {
		if c.base == 0 {
			return
		}
		if sn := c.clock(); sn.tid != h.tid && sn.own > h.at(sn.tid) {
			s := d.snapOf(sn)
			s.last = last
			d.join(h, s)
		}
	} else {
		for _, sn := range d.snaps(c, d.snapBuf) {
			if sn.tid != h.tid && sn.own > h.at(sn.tid) {
				sn.last = last
				d.join(h, sn)
			}
		}
	}
	if last {
		d.dropSnaps(c)
	}
}

// cellAccess records the atomic access of kind k by m at n to the cell
// key in its rank's copy of t, and reports the plain accesses it races
// with; it returns the cell's state. The read of a wait that passed
// comes after the wait's acquire of the cell's clocks.
func (d *detector) cellAccess(m *machine, n *node, t *tref, key cellKey, k accessKind) *cellRace {
	b := key.buf
	lo, size := t.off+key.off-b.off, t.dt.Bytes()
	var sh *shadow
	if key.rank < len(b.shadows) {
		sh = b.shadows[key.rank]
	}
	if sh == nil {
		sh = d.shadowOf(shadowKey{buf: b, rank: key.rank})
	}
	c := d.state(m.s, sh, key, lo, size)
	h := &m.hb
	if k == accAtomicRead {
		d.acquire(m, c)
	} else {
		d.refs(b).clocks = true
	}
	site := d.siteOf(h, n, t, k)
	*d.nodeSite(n) = nodeSite{view: t, id: site, k: k, grain: t.off == 0 && dtBytes[t.dt] == cellGrain}
	cur := cellAcc{tid: h.tid, clk: h.epoch(), sk: site<<2 | uint32(k)}
	hi := lo + size
	if sh.n() > 0 {
		sk := shadowKey{buf: b, rank: key.rank}
		sh.check(lo, hi, cur, h, func(a cellAcc, lo, hi int) { d.report(sk, d.entryOf(a), d.entryOf(cur), lo, hi) })
	}
	// The inline slots take the usual cases without building a list: a
	// first access, a second, or one that replaces its own thread's
	// older access (which it covers) in place, where that access is not
	// the one the inline clock names.
	done := false
	if c.gen&raceOverflow == 0 {
		a0, a1 := &c.acc[0], &c.acc[1]
		clk := -1 // the slot the inline clock names
		if c.base != 0 {
			clk = int(c.gen >> 30 & 1)
		}
		cov0 := a0.sk != 0 && a0.tid == cur.tid && covers(k, a0.kind())
		switch {
		case a0.sk == 0: // then a1 is empty too, and there is no inline clock
			*a0, done = cur, true
		case a1.sk == 0 && cov0 && clk != 0:
			*a0, done = cur, true
		case a1.sk == 0:
			*a1, done = cur, true
		case !cov0 && a1.tid == cur.tid && covers(k, a1.kind()) && clk != 1:
			*a1, done = cur, true
		}
	}
	if !done {
		list := d.accs(c, d.accBuf)
		kept := list[:0]
		for _, e := range list {
			if e.tid == cur.tid && covers(k, e.kind()) {
				continue
			}
			kept = append(kept, e)
		}
		kept = append(kept, cur)
		d.accBuf = kept
		d.setAccs(c, kept)
	}
	b.race.spanCell(lo, hi)
	return c
}

// plainOnCells checks the plain access cur to bytes [lo, hi) of key
// against the atomic accesses of the cells there, and records it: a write
// leaves a cell none (everything later that is ordered after the write is
// ordered after them, or a race was reported), a read replaces its own
// thread's wait.
func (d *detector) plainOnCells(m *machine, key shadowKey, sh *shadow, lo, hi int, cur cellAcc) {
	h := &m.hb
	var xs []int
	if sh.odd != nil { // in byte order, so the reports come out the same every run
		for x := range sh.odd {
			if x >= lo && x < hi {
				xs = append(xs, x)
			}
		}
	}
	if sh.buf != nil {
		for x := (lo + cellGrain - 1) / cellGrain * cellGrain; x < hi; x += cellGrain {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	for _, x := range xs {
		c := d.stateAt(m.s, sh, x)
		if c == nil {
			continue
		}
		list := d.accs(c, d.accBuf)
		d.accBuf = list
		if len(list) == 0 {
			continue
		}
		for _, a := range list {
			if a.tid != cur.tid && conflicts(a.kind(), cur.kind()) && a.clk > h.at(a.tid) {
				e := d.entryOf(a)
				d.report(key, e, d.entryOf(cur), x, x+e.view.dt.Bytes())
			}
		}
		if cur.kind() == accWrite {
			d.setAccs(c, nil)
			continue
		}
		kept := list[:0]
		for _, a := range list {
			if a.tid == cur.tid && covers(cur.kind(), a.kind()) {
				continue
			}
			kept = append(kept, a)
		}
		d.setAccs(c, kept)
	}
}

// dropClocks lets go of every clock the cells of sh hold, and forgets the
// ops its buffer noted (sigRefs.hot): at a dispatch join nothing needs
// them. Only the shadows of a buffer a notify touched
// this dispatch (sigRefs.clocks) are walked, and only while some cell
// still holds a clock: a barrier's or
// a ring's cells have let go of theirs at their waits, and a walk would
// only read every cell state again (P² of them, mostly out of the cache).
func (d *detector) dropClocks(sh *shadow) {
	if sh.buf == nil {
		return
	}
	// The noted ops are this dispatch's (notifyFast and waitFast do not
	// test the references' dispatch): the buffer's shadows are all in
	// d.all, and joinRanks asks here for each of them before nextGen.
	sh.buf.sig.hot = [2]sigHot{}
	if sh.buf.sig.gen != d.gen || !sh.buf.sig.clocks {
		return
	}
	if d.cellClocks == 0 {
		return
	}
	if sh.buf != nil {
		sh.buf.eachRaceWord(sh.rank, func(w *raceWord) {
			switch w.state() {
			case rwNotified:
				d.dropWord(*w)
				*w = 0 // an earlier dispatch's from now on, which reads as empty
			case rwWide:
				if c := d.wides.at(w.wideIndex()); c.base != 0 || c.gen&raceOverflow != 0 {
					d.dropSnaps(c)
				}
			}
		})
	}
	for _, c := range sh.odd {
		d.dropSnaps(c)
	}
}

// spanCell widens the span of the cells with atomic accesses to [lo, hi).
func (c *bufRace) spanCell(lo, hi int) {
	if lo >= c.cellLo && hi <= c.cellHi {
		return // the usual case first; lo < hi, so the span is not empty
	}
	if c.cellHi <= c.cellLo {
		c.cellLo, c.cellHi = lo, hi
	} else if lo < c.cellLo || hi > c.cellHi {
		c.cellLo, c.cellHi = min(c.cellLo, lo), max(c.cellHi, hi)
	}
}
