package emu

import (
	"slices"

	"pldworkbench/engine/limits"
)

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
// Clocks (FastTrack, Flanagan & Freund, PLDI 2009, where it pays). A
// thread's clock is its own epoch plus a base vector (vclock) for everyone
// else, shared copy-on-write and reference-counted: a release hands the
// cell (tid, own epoch, base) and the thread's next access moves to a new
// own epoch, which costs nothing; only a change of the base copies it,
// and only while someone else holds it. Each published clock of thread t
// with own epoch k is therefore the same clock, so a wait skips a clock
// whose epoch it already knows. The ranks of a dispatch start on one
// shared fork vector (the host has joined them all since the last one),
// and a thread remembers the vector it copied its base from, so joining a
// clock whose base is either is O(1): a barrier's P-1 waits per rank cost
// one copy and P-1 O(1) joins, not P-1 O(P) joins. A cell lets go of its
// clocks once its rank thread has acquired them (only that rank's threads
// wait on its cells), and at a dispatch join every cell's clocks and
// every shadow are dropped (nothing before the join can race with
// anything after it), so a ring keeps the clocks of its pending notifies,
// not one per cell. Joins that do learn much stay O(P): a ring's round
// learns an epoch of every rank before it, so its 2(P-1) rounds cost
// O(P²) per rank, as with tree clocks (Mathur et al., ASPLOS 2022), whose
// sublinear joins need sparse changes. But a ring's rank learns only
// through its left neighbour, whose clock then dominates its own but for
// two entries; a vclock records whose clock it is a copy of, so such a
// join is the neighbour's vector (joinCopy, copyjoin.go), not a maximum
// of two, and most often that vector itself, taken over from the cell
// that alone still holds it.
//
// Accesses are epochs too: a shadow segment (shadow.go) holds at most one
// entry per thread and kind — a write epoch, or read epochs that grow to
// one per concurrent reader only when reads are concurrent — and a signal
// cell keeps its atomic accesses in its own state outside the shadow
// (cellrace.go).
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

// vclock is a vector of epochs, indexed by thread, shared by the thread
// clocks and published snapshots that hold it; refs counts them. A vclock
// held more than once is never written: a thread that must change its
// base while others hold it clones it first (copy-on-write), and one whose
// last holder lets go returns to the detector's pool, so a ring of P
// ranks, which publishes a clock every round, keeps only the clocks its
// pending notifies hold (O(P) of them) rather than one per cell (P² for
// P = 1024 ranks and 2(P-1) rounds: the 6 GiB that killed it).
//
// A vclock's entries only grow while it lives (until it returns to the
// pool); ver changes with every write, which ends what copy records: that
// lets a ring's join, which learns an epoch of every rank each round,
// take the left neighbour's clock instead of the maximum of two.
type vclock struct {
	v    []uint32
	refs int32
	id   uint32 // its index in detector.vcs once a cell holds it; 0 before
	ver  uint64
	// copy, when copy.ver is ver, says v is a copy of a clock of thread
	// copy.of (see joinCopy in copyjoin.go).
	copy copyOf
}

// hbThread is a machine's happens-before state.
type hbThread struct {
	// The fields a wait's fast path reads (fastWait, pendjoin.go) come
	// first, so that they share as few cache lines as they can: at
	// P = 1024 every rank's machine is out of the cache at each of its
	// waits. Measure a change of these fields as on and off times of two
	// builds run in turn, not as the slowdown ratio alone: the ratio at
	// P = 1024 moved between 1.1 and 1.5 with builds that differed only
	// in race-detector code, because the run without detection, which
	// never reads these fields, moved by up to 45% with the code's layout.
	tid int32
	// own is the epoch that tags the thread's accesses; base.v[t] is the
	// latest epoch of thread t (t != tid) the thread is ordered after
	// (base.v[tid] is only a lower bound of own, never read for it).
	own uint32
	// released says own has been handed out, so the next access or change
	// moves to a new epoch.
	released bool
	// npend counts the joins in pend (pendjoin.go).
	npend uint8
	// privCopy says priv's copy record was current when priv was seen,
	// so the next pend entry must end it (pendjoin.go).
	privCopy bool
	// run is how many tids before pend[0]'s its join stands for too,
	// while npend > 0 (pendjoin.go): in the padding before privLen.
	run uint8
	// privLen is len(priv.v) when priv was seen.
	privLen int32
	base    *vclock
	// from is a vclock base dominates (base was cloned from it and has
	// only grown since), or nil: a snapshot whose base is from (or base)
	// adds nothing but its thread's own epoch, an O(1) join. The ranks of a
	// dispatch start on one shared vclock, so in a barrier every wait's
	// join is O(1) instead of O(P).
	from *vclock
	// priv is base when the thread last saw it held once, or nil
	// (pendjoin.go).
	priv *vclock
	// plainClk are the low bits of the epoch of the thread's latest plain
	// access at each site slot (plainSlot): one that differs from its
	// epoch's says no access of a site of that slot has come in the
	// epoch (touchBytes's fresh). Here, in the line every access reads
	// anyway, rather than in a memo of its own out of the cache: the
	// site itself comes from the detector's viewSites, which all threads
	// share.
	plainClk [4]uint16
	// pend holds the O(1) joins of its waits not yet written to base, the
	// first npend of them, each a run of joins (pendjoin.go); pend[0],
	// the open run, beside the fields above, which a wait reads anyway.
	pend [pendLen]pendJoin
	// sites are the thread's last access sites (siteOf).
	sites [8]siteMemo
}

// hbSnap is a published clock of thread tid; base is held (counted in its
// refs) while the snapshot is kept.
type hbSnap struct {
	tid  int32
	own  uint32
	base *vclock
	// last says the holder lets go of base right after the join that
	// reads the snapshot (a cell whose rank thread acquires it), so a join
	// that finds it held by no one else may take it over (joinCopy).
	last bool
}

// at returns the epoch of thread t that h is ordered after.
func (h *hbThread) at(t int32) uint32 {
	if t == h.tid {
		return h.own
	}
	if h.npend != 0 {
		h.flush()
	}
	if int(t) < len(h.base.v) {
		return h.base.v[t]
	}
	return 0
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

// view returns h's clock for a join that reads it at once; nothing holds
// its base.
func (h *hbThread) view() hbSnap {
	h.flush()
	h.released = true
	return hbSnap{tid: h.tid, own: h.own, base: h.base}
}

// snap publishes h's clock for a cell to keep.
func (d *detector) snap(h *hbThread) hbSnap {
	sn := h.view()
	h.priv = nil // the cell holds base too
	sn.base.refs++
	return sn
}

// vclockPoolMax is how many spare vclocks the run's own pool (d.pool)
// keeps for reuse: enough for the clocks a ring's pending notifies hold
// at once, at P up to a few thousand. It is an internal sizing constant,
// not a limit a program can reach: a vclock let go past it goes to the
// garbage collector and nothing fails. (The process's pool between runs,
// vcpool.go, is bounded in bytes by limits.VclockPool.)
const vclockPoolMax = 4096

// drop lets go of one hold on v.
func (d *detector) drop(v *vclock) {
	if v == nil {
		return
	}
	if v.refs--; v.refs > 0 {
		return
	}
	if len(d.pool) < vclockPoolMax {
		d.pool = append(d.pool, v) // a pooled vclock keeps its id
	} else if v.id != 0 {
		d.vcs[v.id] = nil
		d.freeIDs = append(d.freeIDs, v.id)
		v.id = 0
	}
}

// alloc returns a vclock of n entries, held once, its entries not set.
func (d *detector) alloc(n int) *vclock {
	var v *vclock
	if k := len(d.pool); k > 0 {
		v, d.pool = d.pool[k-1], d.pool[:k-1]
	} else {
		v = takeVclock()
		d.made = append(d.made, v)
		d.spend(vclockBytes(v) + 16) // and its place in made and vcs
	}
	if cap(v.v) < n {
		d.spendSlice(cap(v.v), n, 4)
		v.v = make([]uint32, n)
	} else {
		v.v = v.v[:n]
	}
	v.refs = 1
	d.bump(v)
	return v
}

// bump gives v a new version: it was just written.
func (d *detector) bump(v *vclock) {
	d.ver++
	v.ver = d.ver
}

// clone returns a new vclock, held once, with src's entries and room for
// n.
func (d *detector) clone(src *vclock, n int) *vclock {
	v := d.alloc(max(n, len(src.v)))
	copy(v.v, src.v)
	clear(v.v[len(src.v):])
	return v
}

// writable makes h's base its own, with at least n entries.
func (d *detector) writable(h *hbThread, n int) {
	if h.base.refs > 1 {
		old := h.base
		h.base = d.clone(old, n)
		d.drop(h.from)
		h.from = old // h's hold on old moves here
		return
	}
	if len(h.base.v) < n {
		had := cap(h.base.v)
		h.base.v = append(h.base.v, make([]uint32, n-len(h.base.v))...)
		d.spendSlice(had, cap(h.base.v), 4)
		d.bump(h.base)
	}
}

// join makes h ordered after everything sn is ordered after.
func (d *detector) join(h *hbThread, sn hbSnap) {
	h.advance()
	h.flush()
	h.priv = nil // the join may change base or its holds
	if b := h.base; (sn.base == b || sn.base == h.from) && b.refs == 1 && int(sn.tid) < len(b.v) {
		// The general path below for this case, which is every wait of a
		// barrier after a rank's first two: sn adds at most its own
		// epoch, and h's base is its own to write.
		if sn.tid != h.tid && sn.own > b.v[sn.tid] {
			b.v[sn.tid] = sn.own
			d.bump(b)
		}
		return
	}
	if d.copyable(h, sn) {
		d.joinCopy(h, sn)
		return
	}
	if b := h.base; b.refs == 1 && len(sn.base.v) <= len(b.v) && sn.tid != h.tid && int(sn.tid) < len(b.v) {
		// The general path below for this case, every wait of the builtin
		// ring all-reduce's barriers but a rank's first of each (whose base
		// its notifies share): the maximum in place and the snapshot's
		// epoch, with one new version, none of the general path's calls.
		// (sn.base is neither b nor from: the first case took those.) The
		// pass stays O(P): the bases of one barrier are not one clock but
		// for an entry or two, which a record could have made O(1), as
		// copyjoin.go's does for a ring. Each notify of a rank's burst to
		// its peers is an epoch of its own, so each peer's base knows the
		// notifier at another epoch: at P = 16 and 32 such a join raised
		// 3.4 and 6.1 entries on average, about P/5, never the same few.
		hv := b.v[:len(sn.base.v)]
		maxInto(hv, hv, sn.base.v)
		b.v[sn.tid] = max(b.v[sn.tid], sn.own)
		d.bump(b)
		return
	}
	if sn.base != h.base && sn.base != h.from {
		src := sn.base.v
		if h.base.refs > 1 {
			// Copy-on-write and the join in one pass: a ring's rank joins
			// its left neighbour's clock every round, just after handing
			// its own to its right one.
			old := h.base
			v := d.alloc(max(len(old.v), len(src)))
			n := min(len(old.v), len(src))
			maxInto(v.v[:n], old.v[:n], src[:n])
			copy(v.v[n:], old.v[n:])
			copy(v.v[n:], src[n:])
			h.base = v
			d.drop(h.from)
			h.from = old // h's hold on old moves here
		} else {
			d.writable(h, len(src))
			hv := h.base.v[:len(src)]
			maxInto(hv, hv, src)
			d.bump(h.base)
		}
	}
	if sn.tid != h.tid && sn.own > h.at(sn.tid) {
		// When sn's base is h's, the new base is sn's clock but for h's
		// own entry: the first wait of a ring's rank, on the dispatch's
		// shared fork clock, makes its base a copy (markCopy).
		same := sn.base == h.base
		d.writable(h, int(sn.tid)+1)
		h.base.v[sn.tid] = sn.own
		d.bump(h.base)
		if same {
			markCopy(h, sn)
		}
	}
}

// maxInto sets dst[i] = max(a[i], b[i]); dst may be a. It is the O(P)
// part of a join, which a ring does P times a round, and the builtin
// ring all-reduce (an all-peer barrier twice a round, whose every wait
// learns an epoch of nearly every rank) at every wait. On amd64 with
// AVX2 it is maxIntoVec, eight entries an instruction (at P = 64 that ring's
// maxInto went from 483 M instructions to 84 M under cachegrind); else
// four at a time with the bounds checks hoisted, about a fifth faster
// than the plain loop.
func maxInto(dst, a, b []uint32) {
	a, b = a[:len(dst)], b[:len(dst)]
	if haveMaxVec {
		if len(dst) > 0 {
			maxIntoVec(&dst[0], &a[0], &b[0], len(dst))
		}
		return
	}
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, x, y := dst[i:i+4:i+4], a[i:i+4:i+4], b[i:i+4:i+4]
		d[0] = max(x[0], y[0])
		d[1] = max(x[1], y[1])
		d[2] = max(x[2], y[2])
		d[3] = max(x[3], y[3])
	}
	for ; i < len(dst); i++ {
		dst[i] = max(a[i], b[i])
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
	// viewSites are the sites and kinds of recent plain accesses by node
	// and view (viewSite), for every thread.
	viewSites [viewSites]viewSite
	who       []threadInfo     // by tid
	blocks    map[[2]int]int32 // (rank, block) → tid
	// shadows of host tensors; a window's are in its bufDesc, by rank.
	hostShadows map[*hostTensor]*shadow
	all         []*shadow // every shadow, to clear at a dispatch join
	// gen counts dispatch joins: a cell's bookkeeping from an earlier
	// generation is stale (everything in it is ordered before the join).
	gen  uint32
	pool []*vclock
	ver  uint64 // the last vclock version given out
	// copyJoins counts the joins joinCopy and takeCopy did, takes those
	// of them that took the snapshot's vclock over, leafTakes waitLeaf's
	// takes (one counter, not two, on its path), for tests: see
	// copyJoinCount.
	copyJoins, takes, leafTakes int
	// cellClocks counts the cells that hold a clock, inline or in their
	// overflow (countClock): a dispatch join with none skips the walk.
	cellClocks int
	// Interned sites of cell accesses (cellrace.go).
	sites   []site
	siteIDs map[site]uint32
	views   map[viewKey][]*tref // canon
	snapBuf []hbSnap
	accBuf  []cellAcc
	// vcs names the vclocks cells hold by id (vcID), freeIDs the ids of
	// those let go of; more is the overflow of the cells that have one.
	vcs     []*vclock
	freeIDs []uint32
	more    map[*cellRace]*raceMore
	// made lists the vclocks alloc took, which the run gives back to the
	// process's pool when it ends (vcpool.go).
	made []*vclock
	// wides holds the full states of the cells whose word names one
	// (cellword.go).
	wides wideCells
	// fork is the clock the ranks of the current dispatch start on, shared
	// by all of them; forkOwn is the host's epoch it was made at.
	fork    *vclock
	forkOwn uint32
	races   []Race
	seen    map[raceKey]bool
	omitted int

	// nodeSites are the signal ops' site memos, by node.sig-1 (nodeSite).
	nodeSites []nodeSite

	// meter is the run's budget; unpaid is what the detector grew by and
	// has not charged yet (racebudget.go).
	meter  *limits.Meter
	unpaid int64
}

// copyJoinCount is how many joins were copies (joinCopy, takeCopy,
// waitLeaf), takeCount how many of them took the snapshot's vclock over.
func (d *detector) copyJoinCount() int { return d.copyJoins + d.leafTakes }
func (d *detector) takeCount() int     { return d.takes + d.leafTakes }

// MaxRaces caps Result.Races; Result.RacesOmitted counts the distinct
// races beyond it.
const MaxRaces = 20

// initRace gives the host and the ranks their threads and, unless
// opts.NoRaces, turns the detector on.
func (s *sim) initRace(opts Options) {
	if opts.NoRaces {
		return
	}
	d := &detector{blocks: map[[2]int]int32{}, hostShadows: map[*hostTensor]*shadow{}, seen: map[raceKey]bool{}, gen: 1, siteIDs: map[site]uint32{}}
	for r, m := range s.ranks {
		d.who = append(d.who, threadInfo{rank: r})
		m.hb = hbThread{tid: int32(r)}
	}
	d.who = append(d.who, threadInfo{rank: -1})
	s.host.hb = hbThread{tid: int32(s.P)}
	zero := &vclock{v: make([]uint32, s.P+1)}
	for _, m := range append([]*machine{s.host}, s.ranks...) {
		zero.refs++
		m.hb.base, m.hb.own = zero, 1
	}
	d.meter = s.meter
	s.race = d
}

// forkRank starts rank m's dispatched calls after everything the host
// did so far. The host has joined every rank since the last fork, so it
// knows all m knows: m's base becomes the dispatch's shared fork clock
// (the host's, with the host's own epoch in it) instead of a join.
func (s *sim) forkRank(m *machine) {
	d := s.race
	if d == nil {
		return
	}
	host := &s.host.hb
	host.flush()
	if d.fork == nil || d.forkOwn != host.own {
		d.drop(d.fork)
		d.fork = d.clone(host.base, 0)
		d.fork.v[host.tid] = host.own
		d.bump(d.fork)
		d.forkOwn = host.own
		host.released = true
	}
	h := &m.hb
	h.advance()
	h.flush() // into the base it lets go of: as the joins would have written it
	d.drop(h.base)
	d.drop(h.from)
	d.fork.refs++
	h.base, h.from, h.priv = d.fork, nil, nil
}

// joinRanks continues the host after everything the ranks did. Nothing
// before the join can race with anything after it, so the shadows and
// the cells' clocks of this dispatch are dropped.
func (s *sim) joinRanks() {
	d := s.race
	if d == nil {
		return
	}
	for _, m := range s.ranks {
		d.join(&s.host.hb, m.hb.view())
	}
	d.drop(d.fork)
	d.fork = nil
	for _, sh := range d.all {
		d.dropClocks(sh)
		sh.reset()
	}
	d.nextGen(s)
}

// nextGen moves the detector to the next dispatch, whose cell states
// start empty.
func (d *detector) nextGen(s *sim) {
	if d.gen++; d.gen > raceGen {
		// The dispatch count outgrew its bits in cellRace.gen (after 2³⁰
		// dispatches): start the cells over.
		d.clearWords(s)
		for _, sl := range d.wides.slabs {
			clear(sl[:])
		}
		for _, sh := range d.all {
			clear(sh.odd)
		}
		d.more = nil
		d.gen = 1
	} else if d.gen&rwGenMask == 0 {
		// The words keep the dispatch count's low rwGenBits bits, which
		// would name the dispatch of 2^rwGenBits dispatches ago again.
		d.clearWords(s)
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
	m.hb.flush() // before the block shares m's base
	m.hb.priv = nil
	m.hb.base.refs++
	c.hb = hbThread{tid: tid, own: m.hb.at(tid) + 1, base: m.hb.base}
	d.join(&c.hb, m.hb.view())
}

// joinBlock continues rank machine p after everything its block c did.
func (s *sim) joinBlock(p, c *machine) {
	d := s.race
	if d == nil {
		return
	}
	d.join(&p.hb, c.hb.view())
	d.drop(c.hb.base)
	d.drop(c.hb.from)
	c.hb.base, c.hb.from, c.hb.priv = nil, nil, nil
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
		dst.dt == src.dt && slices.Equal(dst.shape, src.shape) && slices.Equal(doff, soff)
	if !same || atomic {
		m.touch(n, dst, dstRank, doff, ext, writeKind(atomic))
	}
}
