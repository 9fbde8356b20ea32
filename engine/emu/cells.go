package emu

import (
	"sort"
	"unsafe"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// The bookkeeping of signal cells: who notified a cell last (the notify a
// wait is released by), who notified it at all (for a deadlock report) and
// which machines are parked on it.

// cellKey names one signal cell: a byte offset in one rank's window,
// inside buffer buf.
type cellKey struct {
	buf  *bufDesc
	rank int
	off  int
}

// cell is the bookkeeping of one signal cell. A barrier touches P² of them
// (16.7 million at P = 4096), so a cell is 24 bytes and holds no pointer
// (the garbage collector does not scan its pages): the parked machines are
// named by id (sim.machines) and chained through machine.waitNext, and a
// cell notified by more than one rank keeps them beside it (addNotifier).
type cell struct {
	lastSeq    int64 // the event sequence number of the last notify that wrote it
	lastArrive int64 // when that notify arrived (ps)
	// lastRank is the rank of that notify plus 2 (the host is rank -1); 0
	// while the cell was never notified. Until a second rank notifies the
	// cell it is also the only rank that did.
	lastRank int32
	waiter   int32 // the id of the first machine parked on it; 0 when none is
}

func (c *cell) hasLast() bool { return c.lastRank != 0 }

// last is the notify that wrote c last (valid when hasLast).
func (c *cell) last() trace.Ref { return trace.Ref{Rank: c.lastRankOf(), Seq: c.lastSeq} }

// lastRankOf is the rank of the notify that wrote c last.
func (c *cell) lastRankOf() int { return int(c.lastRank) - 2 }

// setLast makes the notify ref, arriving at arrive, the one that wrote c
// last.
func (c *cell) setLast(ref trace.Ref, arrive int64) {
	c.lastRank, c.lastSeq, c.lastArrive = int32(ref.Rank)+2, ref.Seq, arrive
}

// Who notified a cell at all is for deadlock reports only, but the
// builtin ring's lowering makes it common: every cell [round, src] of a
// rank's signal window is notified by src (twice a round) and then by the
// rank itself (the epilogue's -2), so 2P³ cells have two notifiers, 4.2
// million at P = 128. Kept as a []int per cell in one map, as they were,
// they cost some 100 bytes a cell outside the memory budget (620 MB of
// that run's 100 MB of cells) and a cache miss in a map of millions at
// each epilogue notify, a third of the run. So a cell of a page with two
// notifiers keeps them in a pair page beside it (notifierPair, 8 bytes a
// cell, made with the first pair in the page and charged as signal
// cells), and only a cell with three or more, such as a shared counter
// every rank adds to, has a list in sim.notifiers (charged too).

// notifierPair is who notified one cell of a page, each rank plus 2: 0, 0
// while at most one rank did (the cell's last notify names it); a < b
// when exactly two did; -1 in a when three or more did (sim.notifiers
// has the list).
type notifierPair struct{ a, b int32 }

type pairPage [cellPageLen]notifierPair

// listEntryBytes is what a cell's entry in sim.notifiers is charged at
// (its key, slice header and share of the map's groups), besides 8 bytes
// a rank in its list.
const listEntryBytes = 64

// addNotifier records that rank notifies c, the cell of k, before the
// notify becomes c's last. (It finds c's page again, from k, only past
// the two tests that end most calls, which every notify makes.)
func (s *sim) addNotifier(c *cell, k cellKey, rank int) {
	if c.lastRank == 0 {
		return // the first notify: it becomes last, and last is the only notifier
	}
	if c.lastRankOf() == rank {
		return // rank notified c already: it is the only notifier, or in the pair or list
	}
	r := int32(rank) + 2
	if pg, j := s.pageOf(k); pg != nil {
		pp := s.pairs[pg]
		if pp == nil {
			s.reserveSignals(int64(unsafe.Sizeof(pairPage{})) + listEntryBytes)
			pp = new(pairPage)
			s.pairs[pg] = pp
		}
		p := &pp[j]
		switch {
		case p.a == 0: // the second notifier: last's rank is the only one before it
			*p = notifierPair{min(c.lastRank, r), max(c.lastRank, r)}
			return
		case p.a > 0:
			if r == p.a || r == p.b {
				return
			}
			// A third: the list takes over.
			s.reserveSignals(listEntryBytes + 4*8)
			s.notifiers[c] = []int{int(p.a) - 2, int(p.b) - 2}
			p.a = -1
		}
	}
	ns, ok := s.notifiers[c]
	if !ok {
		s.reserveSignals(listEntryBytes + 2*8)
		ns = []int{c.lastRankOf()} // every notify so far came from last's rank
	}
	i := sort.SearchInts(ns, rank)
	if i == len(ns) || ns[i] != rank {
		if len(ns) == cap(ns) {
			s.reserveSignals(int64(len(ns)+1) * 8) // append doubles it
		}
		ns = append(ns, 0)
		copy(ns[i+1:], ns[i:])
		ns[i] = rank
	}
	s.notifiers[c] = ns
}

// notifiersOf returns the ranks that notified c, the cell of k, ascending.
func (s *sim) notifiersOf(c *cell, k cellKey) []int {
	if pg, j := s.pageOf(k); pg != nil {
		if pp := s.pairs[pg]; pp != nil && pp[j].a > 0 {
			return []int{int(pp[j].a) - 2, int(pp[j].b) - 2}
		}
	}
	if ns, ok := s.notifiers[c]; ok {
		return ns
	}
	if c.hasLast() {
		return []int{c.lastRankOf()}
	}
	return nil
}

// machineID returns m's id, giving it one (a free one, or the next) when
// it has none: an index plus 1 into s.machines, so that a cell names the
// machines parked on it in four bytes.
func (s *sim) machineID(m *machine) int32 {
	if m.id != 0 {
		return m.id
	}
	if n := len(s.freeIDs); n > 0 {
		m.id = s.freeIDs[n-1]
		s.freeIDs = s.freeIDs[:n-1]
		s.machines[m.id-1] = m
		return m.id
	}
	s.machines = append(s.machines, m)
	m.id = int32(len(s.machines))
	return m.id
}

// dropID gives back the id of a machine that will not run again (a
// finished block of a kernel grid), so that grids launched in a loop do
// not keep every block they ever ran.
func (s *sim) dropID(m *machine) {
	if m.id == 0 {
		return
	}
	s.machines[m.id-1] = nil
	s.freeIDs = append(s.freeIDs, m.id)
	m.id = 0
}

// addWaiter parks m on c, after those already parked.
func (s *sim) addWaiter(c *cell, m *machine) {
	id := s.machineID(m)
	m.waitNext = 0
	if c.waiter == 0 {
		c.waiter = id
		return
	}
	t := s.machines[c.waiter-1]
	for t.waitNext != 0 {
		t = s.machines[t.waitNext-1]
	}
	t.waitNext = id
}

// newCell returns a cell from the current slab, for the cells kept in
// sim.bigCells: they are allocated 1024 at a time and never move.
func (s *sim) newCell() *cell {
	if len(s.cellSlab) == cap(s.cellSlab) {
		s.reserveSignals(1024 * int64(unsafe.Sizeof(cell{})))
		s.cellSlab = make([]cell, 0, 1024)
	}
	s.cellSlab = s.cellSlab[:len(s.cellSlab)+1]
	return &s.cellSlab[len(s.cellSlab)-1]
}

// cellGrain is the element size the cell tables are indexed by: INT32, the
// signal dtype of every lesson. A cell is still named by its byte offset,
// so an INT64 cell takes every other slot, and a cell at an offset that is
// not a multiple of 4 (INT8, INT16 signals) goes to the map.
const cellGrain = 4

// cellPageLen is how many cells a page of a cell table holds: the cells
// of a buffer live in pages of 256 (6 KiB, 8 KiB with race state), made
// when one of their cells is first touched, so a buffer with a few signal
// cells costs a page per cell used, not a cell per element. Below
// tileRanks ranks a page holds 256 elements of one rank's copy; from
// tileRanks on it is a tile of 16 ranks' copies × 16 elements (tileBits).
const (
	cellPageBits = 8
	cellPageLen  = 1 << cellPageBits
)

// tileRanks is the rank count from which cell pages are tiles. A barrier
// touches its P² cells in two sweeps: round k of its notifies writes
// element r of rank k's copy for every r (a row), round k of its waits
// reads element k of every rank's copy (a column), one op per rank per
// round. With a page per rank's copy the column sweep met a page per rank
// (1024 at P = 1024, more than the TLB holds beside each rank's window and
// clock) and a fresh cache line at every wait; in 16 × 16 tiles either
// sweep meets P/16 pages per round, a column's cells sit side by side and
// a row's 1 KiB apart, steps a hardware prefetcher can follow: a barrier
// at P = 1024 runs some 15-20% faster, with detection on and off. Below 64
// ranks every page is in reach anyway, and a rank's copy keeps its own
// pages, as a buffer with a few cells per rank (where a tile would be
// mostly other ranks' unused cells) wants.
const tileRanks = 64

// tileShift is log2 of the ranks (and of the elements) of a tile.
const tileShift = 4

// tileBits is log2 of how many ranks' copies share a cell page among P.
func tileBits(p int) uint8 {
	if p >= tileRanks {
		return tileShift
	}
	return 0
}

type cellPage [cellPageLen]cell

// flatPages is the most page pointers (8 bytes each) a buffer's one flat
// page table may have: a signal buffer of P × P cells at P = 4096 takes
// 65,536. One table for every rank saves a wait a dependent load (the
// rank's own table) that missed the cache at every wait of a large
// barrier; a larger buffer, with most of its pages never used, gets a
// table per block of ranks that share pages (one rank below tileRanks),
// made when one of its cells is first touched.
const flatPages = 1 << 20

// lookupCell returns the bookkeeping of k, creating it when create is set
// (else nil when its page was never made). A cell that exists but was
// never notified reads as one that does not: no last notify, no notifier,
// no waiter.
func (s *sim) lookupCell(k cellKey, create bool) *cell {
	b := k.buf
	i := k.off - b.off
	if i&(cellGrain-1) != 0 { // i%cellGrain, without the fix-up for a negative i
		c := s.bigCells[k]
		if c == nil && create {
			c = s.newCell()
			s.bigCells[k] = c
		}
		return c
	}
	e := i >> 2 // i / cellGrain (4), exact: i is a multiple of it
	if b.npages == 0 {
		if !create {
			return nil
		}
		b.rbits = tileBits(s.P)
		per := cellPageLen >> b.rbits // elements of a rank's copy per page
		b.npages = ((b.size+cellGrain-1)/cellGrain + per - 1) / per
		blocks := (s.P + 1<<b.rbits - 1) >> b.rbits
		if n := int64(b.npages) * int64(blocks); n <= flatPages {
			s.reserveSignals(n * int64(unsafe.Sizeof((*cellPage)(nil))))
			b.flat = make([]*cellPage, n)
		} else {
			b.cells = make([][]*cellPage, blocks)
		}
	}
	blk, pi, j := b.cellIndex(k.rank, e)
	var slot **cellPage
	if b.flat != nil {
		slot = &b.flat[blk*b.npages+pi]
	} else {
		pages := b.cells[blk]
		if pages == nil {
			if !create {
				return nil
			}
			s.reserveSignals(int64(b.npages) * int64(unsafe.Sizeof((*cellPage)(nil))))
			pages = make([]*cellPage, b.npages)
			b.cells[blk] = pages
		}
		slot = &pages[pi]
	}
	pg := *slot
	if pg == nil {
		if !create {
			return nil
		}
		if s.race != nil {
			s.reserveSignals(int64(unsafe.Sizeof(raceCellPage{})))
			rp := racePages.get()
			s.racePages = append(s.racePages, rp)
			pg = (*cellPage)(unsafe.Pointer(rp))
		} else {
			s.reserveSignals(int64(unsafe.Sizeof(cellPage{})))
			pg = plainPages.get()
			s.plainPages = append(s.plainPages, pg)
		}
		*slot = pg
	}
	if s.race != nil {
		return &(*raceCellPage)(unsafe.Pointer(pg))[j].cell
	}
	return &pg[j]
}

// madeCell is lookupCell(k, create) in its common case, a leaf call (the
// look-up of every notify and wait of a barrier, some 56 instructions in
// lookupCell): nil unless k's cell is on the grain, in a buffer with one
// flat table, in a page made, when the caller calls lookupCell.
func (s *sim) madeCell(k cellKey) *cell {
	b := k.buf
	if i := k.off - b.off; i&(cellGrain-1) == 0 && b.flat != nil && i >= 0 {
		blk, pi, j := b.cellIndex(k.rank, i>>2)
		if x := uint(blk*b.npages + pi); x < uint(len(b.flat)) {
			if pg := b.flat[x]; pg != nil {
				if s.race != nil {
					return &(*raceCellPage)(unsafe.Pointer(pg))[j&(cellPageLen-1)].cell
				}
				return &pg[j&(cellPageLen-1)]
			}
		}
	}
	return nil
}

// cellIndex returns where element e of rank's copy of b is in b's cell
// tables: the rank's block, the page in the block and the cell in the
// page: element-major in a tile, so that ranks side by side have their
// cells so. (Constant shifts: rbits is 0 or tileShift.)
func (b *bufDesc) cellIndex(rank, e int) (blk, pi, j int) {
	if b.rbits != 0 {
		const t = tileShift
		return rank >> t, e >> (cellPageBits - t), (e&(cellPageLen>>t-1))<<t | rank&(1<<t-1)
	}
	return rank, e >> cellPageBits, e & (cellPageLen - 1)
}

// pageOf returns the page of k's cell and the cell's index there, if the
// page was made; nil for a cell of sim.bigCells.
func (s *sim) pageOf(k cellKey) (*cellPage, int) {
	b := k.buf
	i := k.off - b.off
	if i&(cellGrain-1) != 0 || b.npages == 0 {
		return nil, 0
	}
	blk, pi, j := b.cellIndex(k.rank, i>>2)
	if b.flat != nil {
		return b.flat[blk*b.npages+pi], j
	}
	if pages := b.cells[blk]; pages != nil {
		return pages[pi], j
	}
	return nil, 0
}

// raceCell is a cell of a page made while race detection is on: the
// scheduler's bookkeeping and the detector's word for the cell
// (cellword.go) side by side, 32 bytes, two to a 64-byte line. A notify
// and a wait touch both, and at large P the cell is out of the cache
// every time (a barrier visits each of its P² cells once per sweep, see
// tileRanks): side by side they cost one miss, where an array of
// detector states beside the pages cost a second miss on every signal
// op; and at 32 bytes a sweep meets half a line a cell, where the
// 64-byte cell with a full state met one. A page is a raceCellPage then,
// still held as a *cellPage in the tables (lookupCell converts); without
// detection a cell stays 24 bytes.
type raceCell struct {
	cell
	race raceWord
}

type raceCellPage [cellPageLen]raceCell

// pagePool holds the spare cell pages of one kind of the process, at
// most limits.CellPagePool bytes of them (sparePool): a run takes its
// pages from it and gives them back when it ends (sim.giveBack) — a
// barrier's P² cells at P = 1024 are 4096 pages.
type pagePool[P any] struct{ sparePool[P] }

func newPagePool[P any]() *pagePool[P] {
	var zero P
	size := int64(unsafe.Sizeof(zero))
	return &pagePool[P]{sparePool[P]{limit: limits.CellPagePool, size: func(*P) int64 { return size }}}
}

// The pools of plain pages and of pages with race state (raceCell).
var (
	plainPages = newPagePool[cellPage]()
	racePages  = newPagePool[raceCellPage]()
)

// get returns a zero page, a spare one if there is one. A spare is
// cleared here, as the run is about to use it, not when it was given
// back: a barrier's pages at P = 1024 are 32 MiB with race state, which
// a clear at the end of a run writes through the cache only for the next
// run to miss on again; cleared here, the page's lines are in the cache
// when its first cells are (the next ranks' signal ops fill the rest).
func (p *pagePool[P]) get() *P {
	pg := p.take()
	if pg == nil {
		return new(P)
	}
	var zero P
	*pg = zero // outside the lock: 6 or 8 KiB
	return pg
}

// put gives a run's pages back, as far as the pool has room (get clears
// them); nothing may use them afterwards.
func (p *pagePool[P]) put(pages []*P) { p.give(pages) }

// pagesOf returns the page slots that hold rank's copy of b (nil slots
// for the pages never made), shared with the other ranks of its block.
func (b *bufDesc) pagesOf(rank int) []*cellPage {
	blk := rank >> b.rbits
	switch {
	case b.npages == 0:
		return nil
	case b.flat != nil:
		return b.flat[blk*b.npages : (blk+1)*b.npages]
	case blk < len(b.cells):
		return b.cells[blk]
	}
	return nil
}

// eachRaceWord calls f with the detector word of every cell of rank's
// copy of b in the pages made (detection on).
func (b *bufDesc) eachRaceWord(rank int, f func(w *raceWord)) {
	for _, pg := range b.pagesOf(rank) {
		if pg == nil {
			continue
		}
		rp := (*raceCellPage)(unsafe.Pointer(pg))
		for j := rank & (1<<b.rbits - 1); j < cellPageLen; j += 1 << b.rbits {
			f(&rp[j].race)
		}
	}
}

func (s *sim) cellValue(k cellKey, dt ir.DType) int64 {
	return getInt(s.windows[k.rank][k.off:], dt)
}

// wake moves the machines parked on k whose predicate now holds back to
// the ready queue, in the order they parked, no earlier than the notify's
// arrival; the others stay parked in their order.
func (s *sim) wake(k cellKey, c *cell, dt ir.DType, by trace.Ref, arrive int64) {
	if c.waiter == 0 {
		return
	}
	v := s.cellValue(k, dt)
	link := &c.waiter // the link to the next machine to look at
	for *link != 0 {
		w := s.machines[*link-1]
		if !w.wait.cmp.holds(v, w.wait.expected) {
			link = &w.waitNext
			continue
		}
		*link, w.waitNext = w.waitNext, 0
		w.wait.released, w.wait.release, w.wait.releaseArrive = true, by, arrive
		w.clock = max(w.clock, arrive)
		w.state = stReady
		s.ready.push(w)
	}
}
