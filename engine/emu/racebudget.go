package emu

import (
	"fmt"
	"unsafe"

	"pldworkbench/engine/limits"
)

// The race detector's memory is charged to the run's budget as it grows,
// as a window's or a tile's is: its shadow of the accessed bytes (a
// segment per distinct range and epoch, spill lists of segments read by
// many threads, the tables of a buffer's copies), its vector clocks and
// the overflow of the cells that hold more than fits inline. Growth is
// gathered and charged in steps of raceChargeStep, so the charge lags
// what the detector holds by less than a step; a slice that doubles is
// charged its new room before it is made, so a refused charge never
// touches the memory. What it lets go of stays charged until the run
// ends (its pools keep it for reuse): the charge is its high-water mark.
// Not charged: what grows with the program's text rather than its run
// (interned sites, views, the reported races and their keys).
//
// Past the budget the run ends with E0516 naming the race detector;
// the same program under --no-races (Options.NoRaces) is charged none
// of it.
const raceChargeStep = 64 << 10

// Sizes of what the detector charges per item.
const (
	segmentBytes = int64(unsafe.Sizeof(segment{}))
	segAccBytes  = int64(unsafe.Sizeof(cellAcc{}))
	shadowBytes  = int64(unsafe.Sizeof(shadow{}))
	moreBytes    = int64(unsafe.Sizeof(raceMore{})) + 32 // and its map entry
)

// spend notes n more bytes the detector holds, charging the budget once
// a step's worth has gathered; it panics with a memFailure past the
// budget. A nil detector (a shadow a test made on its own) charges
// nothing.
func (d *detector) spend(n int64) {
	if d == nil {
		return
	}
	if d.unpaid += n; d.unpaid >= raceChargeStep {
		d.pay()
	}
}

// pay charges what spend gathered.
func (d *detector) pay() {
	n := d.unpaid
	if !d.meter.Reserve(n) {
		m := d.meter
		panic(memFailure{&failure{status: StatusRuntimeError, err: &RunError{Rank: -1, Code: codeMemory,
			Message: fmt.Sprintf("the race detector wants %s more (its shadow of the accessed bytes and its clocks); the limit is %s (%s already held)",
				limits.Bytes(n), limits.Bytes(m.Budget.Memory), limits.Bytes(m.Held())),
			Hint: "run it without the race detector (workbench run --no-races), synchronise less often between accesses to distinct ranges, or raise the limit (workbench --mem-limit)"}}})
	}
	d.unpaid = 0
}

// spendSlice charges the room a slice of size-byte elements gains from
// capacity had to now.
func (d *detector) spendSlice(had, now int, size int64) {
	if now > had {
		d.spend(int64(now-had) * size)
	}
}
