package emu

import "unsafe"

// The detector's state of an INT32 signal cell on the cells' grid is one
// 8-byte word beside the cell's 24 bytes of scheduler bookkeeping
// (raceCell, cells.go), so a cell with race state is 32 bytes, two to a
// cache line. A barrier's notify and wait sweeps visit its P² cells in
// order (see tileRanks), so what a sweep costs is the lines it meets: a
// cell of 24 bytes meets 0.375 a cell, the 64-byte line a cell and its
// 32-byte cellRace had met one, and that line, not the detector's
// instructions, was most of what detection added to a barrier at
// P = 1024 (the run without detection, given those 64-byte pages and
// nothing else, took 1.2-1.3× its time; with 32-byte ones 1.05-1.1×).
//
// The word holds the two states a barrier's and a ring's cells go
// through, and names a full cellRace for anything else:
//
//   - notified: one notify's atomic write and the clock it released
//     (its thread, epoch and base: a notify's access and its release
//     share the epoch);
//   - waited: that notify's access and the atomic read of a wait by the
//     cell's rank thread that acquired the clock and let it go;
//   - wide: the index of a cellRace in the detector's wide table, which
//     the general path (cellAccess, plainOnCells) works on, as it did on
//     the inline state; a cell the general path touches is made wide.
//
// The word drops what its buffer or its cell already says: the sites of
// the notify and of the wait are indices into the buffer's few sites of
// each kind this dispatch (sigRefs; a cell whose op has a site beyond
// them is made wide), the epochs are offsets from the buffer's first
// ones, and the waiter is the cell's rank. (The references are the
// buffer's, not each rank's copy's: the buffer is in the cache at every
// signal op, a copy's shadow is not, and a barrier's or a ring's ranks
// run the same ops at much the same epochs.) So the fields are the state
// (2 bits), the dispatch (gen, its low rwGenBits: the words are cleared
// when those wrap), the notifier's tid, the two site indices, the
// notify's epoch offset, and the clock's vclock id (notified) or the
// wait's epoch offset (waited). A value that does not fit (a tid from
// 2¹³ on, an epoch 2¹⁶ away from the buffer's first, a ninth site) takes
// the general path, which makes the cell wide: the word never loses a
// fact, so the verdicts are the inline state's.
type raceWord uint64

const (
	rwNotified  = 1 // the state bits of a notified word
	rwWaited    = 2 // of a waited one
	rwWide      = 3 // of a wide one: the rest is its index in the wide table
	rwStateMask = 3

	rwGenShift  = 2
	rwGenBits   = 8
	rwGenMask   = 1<<rwGenBits - 1
	rwTidShift  = rwGenShift + rwGenBits
	rwTidBits   = 13
	rwSiteShift = rwTidShift + rwTidBits // the notify's site index, then the wait's
	rwSiteBits  = 3
	rwSites     = 1 << rwSiteBits
	rwEpShift   = rwSiteShift + 2*rwSiteBits
	rwEpBits    = 17
	rwEpMask    = 1<<rwEpBits - 1
	rwBias      = 1 << (rwEpBits - 1) // offsets are stored biased: [-2¹⁶, 2¹⁶)
	rwXShift    = rwEpShift + rwEpBits
	rwXMask     = 1<<(64-rwXShift) - 1 // the vclock id, or the wait's epoch offset
)

func (w raceWord) state() raceWord { return w & rwStateMask }
func (w raceWord) tid() int32      { return int32(w >> rwTidShift & (1<<rwTidBits - 1)) }
func (w raceWord) sn() int         { return int(w >> rwSiteShift & (rwSites - 1)) }
func (w raceWord) sw() int         { return int(w >> (rwSiteShift + rwSiteBits) & (rwSites - 1)) }
func (w raceWord) ep() uint32      { return uint32(w >> rwEpShift & rwEpMask) }
func (w raceWord) x() uint32       { return uint32(w >> rwXShift) }
func (w raceWord) wideIndex() int  { return int(w >> 2) }

// current reports whether w is a notified or waited word of dispatch gen.
func (w raceWord) current(gen uint32) bool {
	return w&rwStateMask != 0 && w&rwStateMask != rwWide && uint32(w>>rwGenShift)&rwGenMask == gen&rwGenMask
}

// sigRefs are what the words of a buffer's cells leave out, all of
// dispatch gen: the sites of their notifies (sn) and waits (sw), the
// first nn and nw of them, and the epochs their offsets are from (en,
// set with the first notify site, ew with the first wait site).
type sigRefs struct {
	gen, en, ew uint32
	nn, nw      uint8
	// clocks says a notify gave a cell of the buffer, in any copy, a
	// clock this dispatch (dropClocks).
	clocks bool
	// shadowed says every rank's copy of the buffer has its shadow, scan
	// that ranks [0, scan) do (noteFast): shadows are never let go of,
	// so these two outlive the dispatch.
	shadowed bool
	scan     int32
	// hot are the wait (0) and notify (1) ops whose next ones take the
	// fast path's second tier (noteFast, cellrace_fast.go).
	hot    [2]sigHot
	sn, sw [rwSites]uint32
}

// sigHot is an op of a node n on view t whose next ones on t take
// notifyFast or waitFast in the references' dispatch: word is the bits a
// word of such an op gets for the op's site, want the low bits of a word
// a wait finds notified (state and dispatch).
type sigHot struct {
	n          *node
	t          *tref
	word, want uint32
}

// reset makes r dispatch gen's, without sites or epochs.
func (r *sigRefs) reset(gen uint32) {
	*r = sigRefs{gen: gen, shadowed: r.shadowed, scan: r.scan}
}

// refs returns b's references for this dispatch, reset if they are an
// earlier one's (no word of this dispatch uses those).
func (d *detector) refs(b *bufDesc) *sigRefs {
	r := &b.sig
	if r.gen != d.gen {
		r.reset(d.gen)
	}
	return r
}

// siteIndex returns the index of site among the first n of sites; n,
// where addSite puts it, when it is not among them and there is room; or
// -1. It adds nothing, so an op the fast path then turns down has not
// used up one of the buffer's few slots.
//
// The last site added is tried first, then the first: a barrier has one
// site of each kind, and a ring's ops move from site to site phase by
// phase (its notifies' sites are the first notify's, then its
// reduce-scatter's, then its all-gather's), each phase's the last added
// while it lasts. (Ring P = 256 with 16-byte chunks under cachegrind:
// 1.6 M instructions of the search went.)
func siteIndex(sites *[rwSites]uint32, n uint8, site uint32) int {
	if n > 0 {
		if sites[n-1] == site {
			return int(n - 1)
		}
		if sites[0] == site {
			return 0
		}
	}
	for i := uint8(1); i+1 < n; i++ {
		if sites[i] == site {
			return int(i)
		}
	}
	if n == rwSites {
		return -1
	}
	return int(n)
}

// addSite makes site the si-th of the first *n of sites, as siteIndex
// found it: a new one when si is *n.
func addSite(sites *[rwSites]uint32, n *uint8, si int, site uint32) {
	if si == int(*n) {
		sites[si] = site
		*n++
	}
}

// wordOf is the word of c, a cell of a page lookupCell made while
// detection is on.
func wordOf(c *cell) *raceWord { return &(*raceCell)(unsafe.Pointer(c)).race }

// decode is the cellRace of the current word w of rank's cell in b.
func (d *detector) decode(w raceWord, b *bufDesc, rank int) cellRace {
	r := &b.sig
	c := cellRace{gen: d.gen}
	c.acc[0] = cellAcc{tid: w.tid(), clk: r.en + w.ep() - rwBias, sk: r.sn[w.sn()]<<2 | uint32(accAtomicWrite)}
	if w.state() == rwNotified {
		c.base = w.x() // the clock is acc[0]'s
	} else {
		c.acc[1] = cellAcc{tid: int32(rank), clk: r.ew + w.x() - rwBias, sk: r.sw[w.sw()]<<2 | uint32(accAtomicRead)}
	}
	return c
}

// dropWord lets go of the clock a notified word holds.
func (d *detector) dropWord(w raceWord) {
	if w.state() == rwNotified {
		d.drop(d.vcs[w.x()])
		d.countClock(true, false)
	}
}

// wideSlab is how many cellRace a slab of the wide table holds: the
// slabs never move (detector.more is keyed by a state's address).
const wideSlab = 64

// wideCells is the detector's wide table: the full states of the cells
// whose word names one.
type wideCells struct {
	slabs []*[wideSlab]cellRace
	n     int      // slots handed out
	free  []uint32 // slots given back
}

func (t *wideCells) at(i int) *cellRace {
	return &t.slabs[uint(i)/wideSlab][uint(i)%wideSlab] // i ≥ 0: unsigned division is a shift
}

// wide returns the full state of rank's cell cl of b, making its word
// wide (a current word's facts move into it, the clock's hold too); the
// state may be an earlier dispatch's, which the caller clears.
func (d *detector) wide(s *sim, b *bufDesc, rank int, cl *cell) *cellRace {
	w := wordOf(cl)
	if w.state() == rwWide {
		return d.wides.at(w.wideIndex())
	}
	t := &d.wides
	var i int
	if k := len(t.free); k > 0 {
		i, t.free = int(t.free[k-1]), t.free[:k-1]
	} else {
		if t.n == len(t.slabs)*wideSlab {
			s.reserveSignals(int64(unsafe.Sizeof([wideSlab]cellRace{})))
			t.slabs = append(t.slabs, new([wideSlab]cellRace))
		}
		i = t.n
		t.n++
	}
	c := t.at(i)
	if w.current(d.gen) {
		*c = d.decode(*w, b, rank)
	} else {
		d.dropWord(*w)
		*c = cellRace{gen: d.gen}
	}
	*w = raceWord(i)<<2 | rwWide
	return c
}

// narrow gives back the wide state of word w when it is an earlier
// dispatch's, so that the cell takes the fast path again; it reports
// whether w is now empty.
func (d *detector) narrow(w *raceWord) bool {
	i := w.wideIndex()
	c := d.wides.at(i)
	if c.gen&raceGen == d.gen {
		return false
	}
	d.clearState(c)
	d.wides.free = append(d.wides.free, uint32(i))
	*w = 0
	return true
}

// clearWords empties every notified and waited word of s's pages: the
// dispatch count's low bits the words keep are about to name a dispatch
// again (joinRanks), or it starts over.
func (d *detector) clearWords(s *sim) {
	for _, pg := range s.racePages {
		for j := range pg {
			if w := &pg[j].race; *w != 0 && w.state() != rwWide {
				d.dropWord(*w)
				*w = 0
			}
		}
	}
}

// nextVCID is the id vcID would give a vclock that has none.
func (d *detector) nextVCID() uint32 {
	if k := len(d.freeIDs); k > 0 {
		return d.freeIDs[k-1]
	}
	return uint32(max(len(d.vcs), 1))
}
