package emu

import (
	"fmt"

	"pldworkbench/engine/limits"
)

// The memory budget. A run charges Options.Meter before it allocates, so a
// program that asks for more than its budget ends with an E0516 naming the
// request, the limit and the line, and the memory is never touched:
//
//   - per-rank state when the run starts: the machines, the interconnect's
//     P×P link bookings and the race detector's vector clocks, about
//     perRankBytes + 12·P bytes a rank;
//   - host tensors as they are bound: their bytes (the result hands them
//     back as they are; a byte-form input is charged though it is read in
//     place, since a write copies it);
//   - window buffers as they are allocated: the padded size × P;
//   - tiles as they are made, given back when the last slot holding one is
//     overwritten or its frame returns, unless the run's tile pool keeps
//     their bytes (then at the end of the run);
//   - signal-cell bookkeeping: a buffer's page table per rank the first
//     time a notify or wait touches it there (a pointer per 1 KiB), a page
//     of 256 cells for each run of 1 KiB a cell is used in, and cells at
//     offsets that are not a multiple of 4 in slabs of 1024;
//   - trace events handed to Options.OnEvent, Options.EventBytes each
//     (limits.EventBytes by default), since the caller keeps them (the
//     server's run log holds its first Options.KeepEvents); a sink that
//     writes each event out keeps none and is charged nothing;
//   - the race detector's shadow of accessed byte ranges, its vector clocks
//     and its cells' overflow, as they grow (racebudget.go).

// perRankBytes is a rank's machine, its frames and its heap entry, measured
// as about 600 bytes for the lesson kernels; rounded up.
const perRankBytes = 1024

// RankStateBytes is what a run at p ranks holds before its program makes
// anything: the engine charges it before checking, so a rank count the
// budget cannot hold is refused before anything is built for it.
func RankStateBytes(p int) int64 {
	n := int64(p)
	return n*perRankBytes + n*n*12
}

// memFailure carries a failed charge out of code that cannot return a
// failure (tile constructors, event emission) to Run, which recovers it.
type memFailure struct{ f *failure }

// memoryFail is the failure of a charge the budget refused; request says
// what asked for how much ("alloc_window_buffer wants 8.0 GiB across 4
// ranks").
func (m *machine) memoryFail(n *node, request string) *failure {
	meter := m.s.meter
	held := ""
	if h := meter.Held(); h > 0 {
		held = fmt.Sprintf(" (%s already held)", limits.Bytes(h))
	}
	return m.fail(n, codeMemory, "use smaller buffers, tiles or fewer ranks, or raise the limit (workbench --mem-limit)",
		"%s; the limit is %s%s", request, limits.Bytes(meter.Budget.Memory), held)
}

// reserveRanks charges the per-rank state of a run at P ranks.
func (s *sim) reserveRanks() *RunError {
	b := s.meter.Budget
	if b.MaxRanks > 0 && s.P > b.MaxRanks {
		return &RunError{Rank: -1, Code: codeRanks, Message: fmt.Sprintf("the program runs at %d ranks; the limit is %d", s.P, b.MaxRanks),
			Hint: "run it at fewer ranks: a rank count comes from the request, the host's tensor annotations or a factory's argument"}
	}
	want := RankStateBytes(s.P)
	if s.P > 1<<20 || !s.meter.Reserve(want) {
		return &RunError{Rank: -1, Code: codeMemory, Message: fmt.Sprintf("%d ranks want %s of per-rank state; the limit is %s", s.P, limits.Bytes(want), limits.Bytes(b.Memory)),
			Hint: "run it at fewer ranks, or raise the limit (workbench --mem-limit)"}
	}
	return nil
}

// reserveTile charges a new tile of nbytes made at n; it panics with a
// memFailure past the budget.
func (m *machine) reserveTile(n *node, nbytes int) {
	if !m.s.meter.Reserve(int64(nbytes)) {
		panic(memFailure{m.memoryFail(n, fmt.Sprintf("a tile wants %s", limits.Bytes(int64(nbytes))))})
	}
}

// reserveSignals charges n bytes of signal-cell bookkeeping (a cell table
// of a buffer used as signals, on one rank, or a slab of cells); it panics
// with a memFailure past the budget.
func (s *sim) reserveSignals(n int64) {
	if !s.meter.Reserve(n) {
		panic(memFailure{&failure{status: StatusRuntimeError, err: &RunError{Rank: -1, Code: codeMemory,
			Message: fmt.Sprintf("the signal cells want %s more; the limit is %s (%s already held)", limits.Bytes(n), limits.Bytes(s.meter.Budget.Memory), limits.Bytes(s.meter.Held())),
			Hint:    "use fewer or smaller buffers as signals, or fewer ranks"}}})
	}
}

// releaseTile gives back the bytes of a tile nothing holds any more.
func (m *machine) releaseTile(t *tile) {
	if t.charged > 0 {
		m.s.meter.Release(int64(t.charged))
		t.charged = 0
	}
}

// releaseFrame gives the tiles a frame that returned made to the pool. Tiles never
// leave the frame that made them except as arguments to a call (the callee
// does not own them) and as the call's result (ret, which lives on).
func (m *machine) releaseFrame(fr *frame, ret val) {
	for i := range fr.env {
		t, ok := fr.env[i].o.(*tile)
		if !ok || t.owner != fr || ret.o == any(t) || t.data == nil || inTuple(ret, t) {
			continue
		}
		if t.pinned {
			m.releaseTile(t) // a callee may still refer to its bytes
		} else {
			m.dropTile(t)
		}
	}
}

// inTuple reports whether the tuple result ret returns tile t.
func inTuple(ret val, t *tile) bool {
	tv, ok := ret.o.(tupleVal)
	if !ok {
		return false
	}
	for _, e := range tv {
		if e.o == any(t) {
			return true
		}
	}
	return false
}

// place gives a failure raised without a machine at hand (Rank -1, no
// line) the rank and line of the statement the run was executing.
func (s *sim) place(f *failure) {
	e := f.err
	if e == nil || e.Rank != -1 || e.Line != 0 || s.execLine == 0 {
		return
	}
	e.Rank, e.Line, e.Col = s.execRank, s.execLine, s.execCol // a block's machine has its rank's
}
