package emu

import "slices"

// The race detector: happens-before over program order, notify→wait edges
// and the host's dispatch fork and join, checked on every access to window
// memory and host tensors (pld-spec §5.6; the design follows
// perf-anchors §5: vector clocks per thread, FastTrack-style epochs in the
// shadow memory).
//
// Threads. Every machine is a thread with an id: rank r is tid r, the host
// is tid P, and block b of rank r's kernel grids gets a tid of its own the
// first time such a block runs (a later grid of the rank reuses it: the
// rank joins a grid's blocks before it launches the next, so their
// accesses are ordered anyway).
//
// Vector clocks. A thread's clock holds, per thread, the latest epoch of
// that thread it is ordered after; its entry for itself is its own epoch,
// which tags its accesses. Edges:
//
//   - notify (release): the notifier's clock joins the cell's. A Set
//     replaces what the cell held, an AtomicAdd accumulates (one entry per
//     notifying thread, the latest), so a wait that passes acquires every
//     notify that contributed to the value it saw.
//   - wait (acquire): when its predicate holds, the cell's clocks join the
//     waiter's.
//   - dispatch: the ranks a dispatch loop runs start after the host's
//     clock (fork) and the host continues after all of them (join); the
//     blocks of a kernel grid likewise fork from and join into their rank.
//
// A clock is kept in two parts: the thread's own epoch, and a base vector
// for everyone else that is shared, not copied, when it is published. A
// release hands the cell (base, own epoch) and marks both published; the
// thread's next access moves to a new own epoch, which costs nothing, and
// only a change of the base (an acquire that learns something, a fork or
// a join) copies it first. So the P-1 notifies of a barrier copy nothing,
// and each published clock of thread t with own epoch k is the same clock:
// a wait may skip the join of a clock from t when it already knows t's
// epoch k. A barrier at P = 256 costs one base copy per rank and one O(P)
// join per wait.
//
// What counts as a conflict: two accesses to overlapping bytes of one copy
// of a window (or of one host tensor) by different threads, at least one a
// write, not both atomic, and neither ordered before the other. Notifies
// and atomic=Add stores and puts are atomic writes (concurrent adds commute);
// the read of a wait that passes is an atomic read. See shadow.go for the
// per-range state and racereport.go for what a report says.

// accessKind is what an access does to memory.
type accessKind uint8

const (
	accRead        accessKind = iota // a plain read: load, read, remote_load, the source of put/get
	accWrite                         // a plain write: store, write, remote_store, the target of put/get
	accAtomicRead                    // the read of a wait whose predicate holds
	accAtomicWrite                   // a notify, a store or put with atomic=Add
)

func (k accessKind) writes() bool { return k == accWrite || k == accAtomicWrite }
func (k accessKind) atomic() bool { return k == accAtomicRead || k == accAtomicWrite }

// conflicts reports whether accesses of kinds a and b by two threads
// conflict when nothing orders them.
func conflicts(a, b accessKind) bool {
	return (a.writes() || b.writes()) && !(a.atomic() && b.atomic())
}

// covers reports whether every access that conflicts with an access of
// kind e also conflicts with one of kind k. A thread's new access of kind
// k then makes its older entries of kind e redundant in the shadow: it is
// later in program order, so whatever is ordered after it is ordered after
// them too.
func covers(k, e accessKind) bool {
	switch k {
	case accWrite:
		return true
	case accRead, accAtomicWrite:
		return e == k || e == accAtomicRead
	}
	return e == accAtomicRead
}

// hbThread is a machine's happens-before state.
type hbThread struct {
	tid int32
	// own is the epoch that tags the thread's accesses; base[t] is the
	// latest epoch of thread t (t != tid) the thread is ordered after
	// (base[tid] is not used).
	own  uint32
	base []uint32
	// pub says base has been handed out and must be copied before it
	// changes; released says own has been handed out, so the next access
	// or change moves to a new epoch.
	pub, released bool
}

// hbSnap is a published clock of thread tid.
type hbSnap struct {
	tid  int32
	own  uint32
	base []uint32
}

// at returns the epoch of thread t the clock is ordered after.
func (c hbSnap) at(t int32) uint32 {
	if t == c.tid {
		return c.own
	}
	if int(t) < len(c.base) {
		return c.base[t]
	}
	return 0
}

// at returns the epoch of thread t that h is ordered after.
func (h *hbThread) at(t int32) uint32 {
	if t == h.tid {
		return h.own
	}
	if int(t) < len(h.base) {
		return h.base[t]
	}
	return 0
}

// snap publishes h's clock.
func (h *hbThread) snap() hbSnap {
	h.pub, h.released = true, true
	return hbSnap{tid: h.tid, own: h.own, base: h.base}
}

// advance moves h to a new epoch if its current one was published.
func (h *hbThread) advance() {
	if h.released {
		h.own++
		h.released = false
	}
}

// epoch returns the epoch that tags h's next access.
func (h *hbThread) epoch() uint32 {
	h.advance()
	return h.own
}

// join makes h ordered after everything c is ordered after.
func (h *hbThread) join(c hbSnap) {
	h.advance()
	if h.pub {
		h.base = slices.Clone(h.base)
		h.pub = false
	}
	if n := max(len(c.base), int(c.tid)+1); n > len(h.base) {
		h.base = append(h.base, make([]uint32, n-len(h.base))...)
	}
	for i, x := range c.base {
		if x > h.base[i] {
			h.base[i] = x
		}
	}
	if c.own > h.base[c.tid] {
		h.base[c.tid] = c.own
	}
}

// threadInfo names a thread in reports.
type threadInfo struct {
	rank, block int
	grid        bool // a block of a kernel grid
}

// detector is the run's race detector; sim.race is nil when detection is
// off.
type detector struct {
	who     []threadInfo     // by tid
	blocks  map[[2]int]int32 // (rank, block) → tid
	shadows map[shadowKey]*shadow
	races   []Race
	seen    map[raceKey]bool
	omitted int
}

// MaxRaces caps Result.Races; Result.RacesOmitted counts the distinct
// races beyond it.
const MaxRaces = 20

// initRace gives the host and the ranks their threads and, unless
// opts.NoRaces, turns the detector on.
func (s *sim) initRace(opts Options) {
	if opts.NoRaces {
		return
	}
	d := &detector{blocks: map[[2]int]int32{}, shadows: map[shadowKey]*shadow{}, seen: map[raceKey]bool{}}
	for r, m := range s.ranks {
		d.who = append(d.who, threadInfo{rank: r})
		m.hb = hbThread{tid: int32(r)}
	}
	d.who = append(d.who, threadInfo{rank: -1})
	s.host.hb = hbThread{tid: int32(s.P)}
	for _, m := range append([]*machine{s.host}, s.ranks...) {
		m.hb.base, m.hb.own = make([]uint32, s.P+1), 1
	}
	s.race = d
}

// forkRank starts rank m's dispatched calls after everything the host
// did so far.
func (s *sim) forkRank(m *machine) {
	if s.race == nil {
		return
	}
	m.hb.join(s.host.hb.snap())
}

// joinRanks continues the host after everything the ranks did.
func (s *sim) joinRanks() {
	if s.race == nil {
		return
	}
	for _, m := range s.ranks {
		s.host.hb.join(m.hb.snap())
	}
}

// forkBlock starts block machine c of m's kernel grid after everything m
// did so far.
func (s *sim) forkBlock(m, c *machine) {
	d := s.race
	if d == nil {
		return
	}
	key := [2]int{c.rank, c.block}
	tid, ok := d.blocks[key]
	if !ok {
		tid = int32(len(d.who))
		d.who = append(d.who, threadInfo{rank: c.rank, block: c.block, grid: true})
		d.blocks[key] = tid
	}
	// Past the epochs of this block's earlier grids, which m has joined.
	c.hb = hbThread{tid: tid, own: m.hb.at(tid) + 1}
	c.hb.join(m.hb.snap())
}

// joinBlock continues rank machine p after everything its block c did.
func (s *sim) joinBlock(p, c *machine) {
	if s.race == nil {
		return
	}
	p.hb.join(c.hb.snap())
}

// release records a notify by m on cell c: a Set replaces the clocks the
// cell held, an AtomicAdd adds m's.
func (m *machine) release(c *cell, set bool) {
	sn := m.hb.snap()
	if set {
		c.hb = append(c.hb[:0], sn)
		return
	}
	for i := range c.hb {
		if c.hb[i].tid == sn.tid {
			c.hb[i] = sn
			return
		}
	}
	c.hb = append(c.hb, sn)
}

// acquire orders m after every notify cell c holds: the wait m is in has
// passed.
func (m *machine) acquire(c *cell) {
	if c == nil {
		return
	}
	h := &m.hb
	for _, sn := range c.hb {
		if sn.tid != h.tid && sn.own > h.at(sn.tid) {
			h.join(sn)
		}
	}
}

// hbNotify is the race detector's part of a notify by m at n on the cell
// key of rank p's copy of t: an atomic write of the cell, then the release.
func (m *machine) hbNotify(n *node, t *tref, p int, key cellKey, c *cell) {
	if m.s.race == nil {
		return
	}
	lo := key.off - t.buf.off
	m.touchBytes(n, t, p, lo, lo+t.dt.Bytes(), accAtomicWrite)
	m.release(c, enumMember(n.irop, "op") == "Set")
}

// hbWait is the race detector's part of a wait of m at n that passed: the
// acquire, then an atomic read of the cell.
func (m *machine) hbWait(n *node, w *waitInfo) {
	if m.s.race == nil {
		return
	}
	m.acquire(m.s.lookupCell(w.key, false))
	if t, ok := m.eval(n.args[0]).o.(*tref); ok && t.buf != nil {
		lo := w.key.off - t.buf.off
		m.touchBytes(n, t, m.rank, lo, lo+t.dt.Bytes(), accAtomicRead)
	}
}

// finish puts the races found into res; a run that otherwise ended ok ends
// with StatusRace.
func (d *detector) finish(res *Result) {
	if d == nil || len(d.races) == 0 {
		return
	}
	res.Races = slices.Clip(d.races)
	res.RacesOmitted = d.omitted
	if res.Status == StatusOK {
		res.Status = StatusRace
	}
}

// writeKind is the kind of a write: atomic for atomic=Add.
func writeKind(atomic bool) accessKind {
	if atomic {
		return accAtomicWrite
	}
	return accWrite
}

// touchElem records an access to element at of the tensor pl.read or
// pl.write at n addresses (nothing for a tile, which is private).
func (m *machine) touchElem(n *node, at int, k accessKind) {
	if m.s.race == nil {
		return
	}
	if t, ok := m.eval(n.args[0]).o.(*tref); ok {
		m.touchElems(n, t, m.rank, at, 1, k)
	}
}

// touchCopy records a put or get at n: a read of the source region, then
// a write (atomic for atomic=Add) of the target region. A plain copy of a
// region onto itself — the root's own get in a lowered broadcast — cannot
// change a byte, so it counts only as the read.
func (m *machine) touchCopy(n *node, dst *tref, dstRank int, doff []int, src *tref, srcRank int, soff, ext []int, atomic bool) {
	if m.s.race == nil {
		return
	}
	m.touch(n, src, srcRank, soff, ext, accRead)
	same := dst.buf == src.buf && dst.host == src.host && dst.off == src.off && dstRank == srcRank &&
		dst.dt == src.dt && equalInts(dst.shape, src.shape) && equalInts(doff, soff)
	if !same || atomic {
		m.touch(n, dst, dstRank, doff, ext, writeKind(atomic))
	}
}
