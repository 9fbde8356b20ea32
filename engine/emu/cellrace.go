package emu

import (
	"slices"
	"unsafe"
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
// A cell's state is one cache line (64 bytes), in an array per shadow
// indexed by cell: the usual single notifier's clock and two accesses (its
// notify and the wait) inline, anything beyond in an overflow a few
// counters and many-notifier cells need. The scheduler's cells know
// nothing of it.

// cellRace is the race detector's state of a signal cell, from dispatch
// gen: the clocks of the notifies a wait on it acquires, and its atomic
// accesses.
type cellRace struct {
	hb0      hbSnap     // the first clock
	acc      [2]cellAcc // the first accesses
	gen      uint32
	nhb, nac uint8
	more     *raceMore // the clocks and accesses past the inline ones
}

// raceMore is a cell's overflow.
type raceMore struct {
	hb  []hbSnap
	acc []cellAcc
}

// cellAcc is an atomic access to a cell: entry without its node and view,
// which site names (detector.sites).
type cellAcc struct {
	tid  int32
	clk  uint32
	site uint32
	kind accessKind
}

// site is the node and view of cell accesses, interned so that a cell's
// access costs 16 bytes rather than 32.
type site struct {
	n    *node
	view *tref
}

// siteOf returns the id of (n, t); each thread remembers its last two,
// a notify's and a wait's.
func (d *detector) siteOf(tid int32, n *node, t *tref) uint32 {
	if int(tid) >= len(d.siteCache) {
		d.siteCache = append(d.siteCache, make([][2]uint32, int(tid)+1-len(d.siteCache))...)
	}
	c := &d.siteCache[tid]
	for _, id := range c {
		if id > 0 && d.sites[id].n == n && d.sites[id].view == t {
			return id
		}
	}
	id, ok := d.siteIDs[site{n, t}]
	if !ok {
		if len(d.sites) == 0 {
			d.sites = append(d.sites, site{}) // id 0 is no site
		}
		id = uint32(len(d.sites))
		d.sites = append(d.sites, site{n, t})
		d.siteIDs[site{n, t}] = id
	}
	c[1], c[0] = c[0], id
	return id
}

func (d *detector) entryOf(a cellAcc) entry {
	s := d.sites[a.site]
	return entry{tid: a.tid, clk: a.clk, kind: a.kind, n: s.n, view: s.view}
}

// maxCellSlots bounds the state array of one shadow: a signal window of
// up to 16 Ki cells (a barrier's at P = 16384) gets one, indexed by cell;
// the cells of a larger buffer, or of a view whose element size or
// alignment differs from the first one's, go to a map.
const maxCellSlots = 16 << 10

// state returns the detector state of the cell at bytes [x, x+size) of the
// memory sh shadows (buffer bytes bufSize), cleared of an earlier
// dispatch's. The states of one rank's window lie side by side, so the
// P-1 waits of a barrier rank walk one array.
func (d *detector) state(s *sim, sh *shadow, x, size, bufSize int) *cellRace {
	if sh.cellSize == 0 {
		sh.cellSize = size
		if n := bufSize / size; n <= maxCellSlots {
			s.reserveSignals(int64(n) * int64(unsafe.Sizeof(cellRace{})))
			sh.cells = make([]cellRace, n)
		}
	}
	var rc *cellRace
	if i := x / size; size == sh.cellSize && x%size == 0 && i < len(sh.cells) {
		rc = &sh.cells[i]
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
	if rc.gen != d.gen {
		d.dropSnaps(rc)
		rc.setAccs(nil)
		rc.gen = d.gen
	}
	return rc
}

// stateAt returns the state of the cell that starts at byte x, or nil.
func (d *detector) stateAt(sh *shadow, x int) *cellRace {
	var rc *cellRace
	if i := x / sh.cellSize; x%sh.cellSize == 0 && i < len(sh.cells) {
		rc = &sh.cells[i]
	} else if sh.odd != nil {
		rc = sh.odd[x]
	}
	if rc == nil || rc.gen != d.gen {
		return nil
	}
	return rc
}

// snaps returns the cell's clocks in buf.
func (c *cellRace) snaps(buf []hbSnap) []hbSnap {
	buf = buf[:0]
	if c.nhb > 0 {
		buf = append(buf, c.hb0)
	}
	if c.more != nil {
		buf = append(buf, c.more.hb...)
	}
	return buf
}

// setSnaps makes list the cell's clocks (the holds move with them).
func (c *cellRace) setSnaps(list []hbSnap) {
	c.nhb, c.hb0 = 0, hbSnap{}
	if len(list) > 0 {
		c.nhb, c.hb0, list = 1, list[0], list[1:]
	}
	if len(list) > 0 || c.more != nil && len(c.more.hb) > 0 {
		if c.more == nil {
			c.more = &raceMore{}
		}
		clear(c.more.hb)
		c.more.hb = append(c.more.hb[:0], list...)
	}
}

// accs returns the cell's accesses in buf.
func (c *cellRace) accs(buf []cellAcc) []cellAcc {
	buf = append(buf[:0], c.acc[:min(int(c.nac), 2)]...)
	if c.more != nil {
		buf = append(buf, c.more.acc...)
	}
	return buf
}

// setAccs makes list the cell's accesses.
func (c *cellRace) setAccs(list []cellAcc) {
	c.nac = uint8(copy(c.acc[:], list))
	list = list[c.nac:]
	if len(list) > 0 || c.more != nil && len(c.more.acc) > 0 {
		if c.more == nil {
			c.more = &raceMore{}
		}
		c.more.acc = append(c.more.acc[:0], list...)
	}
}

func (d *detector) dropSnaps(c *cellRace) {
	if c.nhb == 0 && c.more == nil {
		return
	}
	for _, sn := range c.snaps(d.snapBuf) {
		d.drop(sn.base)
	}
	c.setSnaps(nil)
}

// release records a notify by m on cell c: a Set replaces the clocks the
// cell held, an AtomicAdd adds m's.
func (d *detector) release(m *machine, c *cellRace, set bool) {
	sn := d.snap(&m.hb)
	if set {
		d.dropSnaps(c)
	}
	if c.nhb == 0 && c.more == nil {
		c.nhb, c.hb0 = 1, sn
		return
	}
	list := c.snaps(d.snapBuf)
	d.snapBuf = list
	for i := range list {
		if list[i].tid == sn.tid {
			d.drop(list[i].base)
			list[i] = sn
			c.setSnaps(list)
			return
		}
	}
	c.setSnaps(append(list, sn))
}

// acquire orders m after every notify cell c holds: the wait m is in has
// passed. Only rank p's threads wait on the cells of p's window; once its
// rank thread (not a block of a grid, whose sibling blocks may wait
// later) has acquired the cell's clocks, every later wait on the cell is
// by that thread or by a block it forks afterwards, which know them
// already, so the cell lets them go.
func (d *detector) acquire(m *machine, c *cellRace) {
	h := &m.hb
	if c.nhb == 1 && c.more == nil {
		if sn := c.hb0; sn.tid != h.tid && sn.own > h.at(sn.tid) {
			d.join(h, sn)
		}
	} else {
		for _, sn := range c.snaps(d.snapBuf) {
			if sn.tid != h.tid && sn.own > h.at(sn.tid) {
				d.join(h, sn)
			}
		}
	}
	if m.block == 0 && m.parent == nil {
		d.dropSnaps(c)
	}
}

// cellAccess records the atomic access of kind k by m at n to the cell
// key in its rank's copy of t, and reports the plain accesses it races
// with; it returns the cell's state. The read of a wait that passed
// comes after the wait's acquire of the cell's clocks.
func (d *detector) cellAccess(m *machine, n *node, t *tref, key cellKey, k accessKind) *cellRace {
	lo := t.off + key.off - key.buf.off
	hi := lo + t.dt.Bytes()
	sk := shadowKey{buf: key.buf, rank: key.rank}
	sh := d.shadowOf(sk)
	c := d.state(m.s, sh, lo, hi-lo, key.buf.size)
	if k == accAtomicRead {
		d.acquire(m, c)
	} else {
		sh.clocks = true
	}
	h := &m.hb
	cur := cellAcc{tid: h.tid, clk: h.epoch(), site: d.siteOf(h.tid, n, t), kind: k}
	if sh.n() > 0 {
		e := d.entryOf(cur)
		sh.check(lo, hi, e, h, func(a entry, lo, hi int) { d.report(sk, a, e, lo, hi) })
	}
	if c.more == nil && (c.nac == 0 || c.nac == 1 && !(c.acc[0].tid == cur.tid && covers(k, c.acc[0].kind))) {
		c.acc[c.nac] = cur
		c.nac++
	} else {
		list := c.accs(d.accBuf)
		kept := list[:0]
		for _, e := range list {
			if e.tid == cur.tid && covers(k, e.kind) {
				continue
			}
			kept = append(kept, e)
		}
		kept = append(kept, cur)
		d.accBuf = kept
		c.setAccs(kept)
	}
	if sh.cellHi <= sh.cellLo {
		sh.cellLo, sh.cellHi = lo, hi
	} else {
		sh.cellLo, sh.cellHi = min(sh.cellLo, lo), max(sh.cellHi, hi)
	}
	return c
}

// plainOnCells checks the plain access cur to bytes [lo, hi) of key
// against the atomic accesses of the cells there, and records it: a write
// leaves a cell none (everything later that is ordered after the write is
// ordered after them, or a race was reported), a read replaces its own
// thread's wait.
func (d *detector) plainOnCells(m *machine, key shadowKey, sh *shadow, lo, hi int, cur entry) {
	h := &m.hb
	var xs []int
	if sh.odd != nil { // in byte order, so the reports come out the same every run
		for x := range sh.odd {
			if x >= lo && x < hi {
				xs = append(xs, x)
			}
		}
	}
	if len(sh.cells) > 0 {
		for x := (lo + sh.cellSize - 1) / sh.cellSize * sh.cellSize; x < hi && x/sh.cellSize < len(sh.cells); x += sh.cellSize {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	for _, x := range xs {
		c := d.stateAt(sh, x)
		if c == nil {
			continue
		}
		list := c.accs(d.accBuf)
		d.accBuf = list
		if len(list) == 0 {
			continue
		}
		for _, a := range list {
			if a.tid != cur.tid && conflicts(a.kind, cur.kind) && a.clk > h.at(a.tid) {
				e := d.entryOf(a)
				d.report(key, e, cur, x, x+e.view.dt.Bytes())
			}
		}
		if cur.kind == accWrite {
			c.setAccs(nil)
			continue
		}
		kept := list[:0]
		for _, a := range list {
			if a.tid == cur.tid && covers(cur.kind, a.kind) {
				continue
			}
			kept = append(kept, a)
		}
		c.setAccs(kept)
	}
}

// dropClocks lets go of every clock the cells of sh hold: at a dispatch
// join nothing needs them. Only a shadow a notify touched this dispatch
// is walked; a barrier's or a ring's cells have let go of theirs at their
// waits already, so the walk only reads.
func (d *detector) dropClocks(sh *shadow) {
	if !sh.clocks {
		return
	}
	sh.clocks = false
	for i := range sh.cells {
		if c := &sh.cells[i]; c.nhb > 0 || c.more != nil {
			d.dropSnaps(c)
		}
	}
	for _, c := range sh.odd {
		d.dropSnaps(c)
	}
}
