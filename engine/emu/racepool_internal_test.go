package emu

import (
	"testing"
	"unsafe"

	"pldworkbench/engine/limits"
)

// RacePoolPages reports how many pages the process's race-page pool
// holds, and DrainRacePool empties it (for the external tests).
func RacePoolPages() int { return racePages.len() }

func DrainRacePool() { racePages.drain() }

// TestRaceCellLayout: a cell with race state is 32 bytes, its word right
// after its bookkeeping, and a page of them starts on a line, so no cell
// spans two lines and two share one (the point of raceCell).
func TestRaceCellLayout(t *testing.T) {
	if n := unsafe.Sizeof(raceCell{}); n != 32 {
		t.Fatalf("raceCell is %d bytes, want 32", n)
	}
	if off := unsafe.Offsetof(raceCell{}.race); off != unsafe.Sizeof(cell{}) {
		t.Errorf("the race word is at byte %d, want right after the cell (%d)", off, unsafe.Sizeof(cell{}))
	}
	DrainRacePool()
	for i := 0; i < 8; i++ {
		if p := uintptr(unsafe.Pointer(racePages.get())); p%64 != 0 {
			t.Errorf("page at %#x is not 64-byte aligned", p)
		}
	}
	// lookupCell hands out the cells of such pages while detection is on,
	// and wordOf finds each one's own word.
	s := &sim{P: 2, race: &detector{gen: 1}}
	b := &bufDesc{name: "sig", size: 8 * cellGrain}
	c0, c1 := s.lookupCell(cellKey{buf: b, rank: 1, off: 0}, true), s.lookupCell(cellKey{buf: b, rank: 1, off: cellGrain}, true)
	if d := uintptr(unsafe.Pointer(c1)) - uintptr(unsafe.Pointer(c0)); d != 32 {
		t.Errorf("neighbouring cells are %d bytes apart, want 32", d)
	}
	*wordOf(c1) = 7
	if *wordOf(c0) != 0 || (*raceCellPage)(unsafe.Pointer(b.flat[b.npages]))[1].race != 7 {
		t.Error("wordOf does not name the cell's own word")
	}
	if len(s.racePages) != 1 {
		t.Errorf("the run took %d pages, want 1", len(s.racePages))
	}
}

// TestRacePagePool: pages come out zero, are handed out again, and the
// pool never holds more than limits.CellPagePool bytes.
func TestRacePagePool(t *testing.T) {
	DrainRacePool()
	defer DrainRacePool()
	room := int(limits.CellPagePool / int64(unsafe.Sizeof(raceCellPage{})))
	pages := make([]*raceCellPage, room+5)
	for i := range pages {
		pages[i] = racePages.get()
		pages[i][i%cellPageLen].race = 3<<rwGenShift | rwNotified
		pages[i][(i+1)%cellPageLen].lastSeq = 11
	}
	plainPages.put([]*cellPage{{3: {lastRank: 2}}})
	if pg := plainPages.get(); *pg != (cellPage{}) {
		t.Error("a plain page came back not cleared")
	}
	racePages.put(pages)
	if n := RacePoolPages(); n != room {
		t.Fatalf("the pool holds %d pages, want its room %d", n, room)
	}
	kept := map[*raceCellPage]bool{}
	for _, pg := range racePages.free {
		kept[pg] = true
	}
	racePages.put([]*raceCellPage{new(raceCellPage)})
	if n := RacePoolPages(); n != room {
		t.Errorf("a full pool took a page: %d, want %d", n, room)
	}
	// The spares are cleared as they are taken: every one comes out zero,
	// the written ones too.
	for range room {
		pg := racePages.get()
		if !kept[pg] {
			t.Fatal("get made a new page while the pool had spares")
		}
		if *pg != (raceCellPage{}) {
			t.Fatal("a page came out of the pool not cleared")
		}
	}
}

// len is how many spare pages p holds.
func (p *pagePool[P]) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.free)
}
