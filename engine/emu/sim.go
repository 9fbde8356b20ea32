package emu

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// sim is the state of one run: the program, the host and rank machines,
// window memory, signal cells, the scheduler's heap and the counters.
type sim struct {
	prog    *ir.Program
	funcs   map[*ir.Func]*cfunc
	P       int
	prof    *profile
	onEvent trace.Sink

	host  *machine
	ranks []*machine
	// execRank, execLine and execCol are the rank (-1: the host) and the
	// position of the statement the run executes now, for a failure
	// raised where no machine is at hand (a charge of the race detector
	// or of signal-cell bookkeeping): Run names them. Keeping them costs
	// about 3 instructions a statement (cachegrind, ring P=256 1 Ki with
	// detection off: 0.9% of the emulator's instructions; no difference
	// in wall time was measured).
	execRank, execLine, execCol int
	// blockMachines are the machines of kernel grids' blocks, in launch
	// order.
	blockMachines []*machine

	// Window memory: one byte slice per rank, buffers packed in allocation
	// order, each padded to 32 bytes; bufs lists the allocations.
	windows [][]byte
	bufs    []*bufDesc

	// Host tensors of the entry's parameters, in parameter order.
	hostTensors []*hostTensor
	hostArgs    []val
	hostSyms    map[string]int64

	// pool holds the bytes of dropped tiles by size, for every machine of
	// the run (tilePool).
	pool map[int][][]byte

	bigCells map[cellKey]*cell // cells at offsets the cell tables do not index
	cellSlab []cell
	// The cell pages the run took from the process's pools (pagePool),
	// with race state and without; giveBack returns them.
	racePages  []*raceCellPage
	plainPages []*cellPage
	intSlab    []int   // the offset and shape lists ops read (newInts)
	tileSlab   []tile  // the tiles ops make (newTile)
	evAlloc    evAlloc // the values traced events point to
	// notifiers lists the ranks that notified a cell, ascending, for the
	// cells three or more ranks notified, and for those of sim.bigCells two
	// did; pairs holds, for a cell page, the two notifiers of its cells two
	// ranks notified (the others name their one notifier themselves). See
	// addNotifier.
	notifiers map[*cell][]int
	pairs     map[*cellPage]*pairPage
	// machines[id-1] is the machine with that id (machineID), for the cells
	// it parks on; freeIDs are ids given back.
	machines []*machine
	freeIDs  []int32
	ready    readyHeap
	race     *detector // nil when race detection is off
	net      *network  // the interconnect's bookings (cost.go)

	// Dispatches queued by the host and not yet run.
	pending          bool
	pendingLoopDepth int

	steps, maxSteps int64
	// stop is set asynchronously: 1 when ctx is canceled, 2 when the
	// wall-clock limit (or ctx's deadline) passed; 3 by emit when an event
	// passed the memory budget.
	stop    atomic.Int32
	timeout time.Duration

	stats Stats
	meter *limits.Meter // the memory budget (budget.go); nil = none
	// overBudget is the failure a charge that could not return one left
	// for the next tick (an event past the budget).
	overBudget *failure
	// heldBefore is what the meter held when the run started, eventBytes
	// what its kept events are charged: everything else is given back
	// when the run ends (giveBack).
	heldBefore, eventBytes int64
	// eventCost is what one kept event is charged (Options.EventBytes,
	// defaulted), keepEvents how many are kept (0: all).
	eventCost, keepEvents int64
}

// giveBack releases what the run reserved, except the events its caller
// keeps.
func (s *sim) giveBack() {
	s.meter.Release(s.meter.Held() - s.heldBefore - s.eventBytes)
	racePages.put(s.racePages)
	plainPages.put(s.plainPages)
	s.racePages, s.plainPages = nil, nil
	if s.race != nil {
		giveVclocks(s.race.made)
		s.race.made = nil
	}
}

// failure is why a run stopped early.
type failure struct {
	status Status
	err    *RunError
	dl     *Deadlock
}

func newSim(cp *Compiled, opts Options) (*sim, *RunError) {
	prog := cp.prog
	if prog == nil || prog.Entry == nil {
		return nil, &RunError{Rank: -1, Code: codeInput, Message: "no program to run: the program has no host orchestrator entry"}
	}
	switch {
	case prog.Entry.Level == ir.InCore:
		return nil, &RunError{Rank: -1, Code: codeInput, Message: fmt.Sprintf("entry %s is %s, want a host orchestrator", prog.Entry.Name, prog.Entry.Level),
			Hint: "run the host function that allocates the windows and dispatches the ranks"}
	case prog.Entry.Level == ir.Orchestration && prog.Ranks != 1:
		// A program with no host level (runChip) runs on one chip.
		return nil, &RunError{Rank: -1, Code: codeChipRanks, Message: fmt.Sprintf("entry %s is an orchestration with no host level above it, which runs on one chip; got %d ranks", prog.Entry.Name, prog.Ranks),
			Hint: "run it at one rank"}
	}
	if prog.Ranks < 1 {
		return nil, &RunError{Rank: -1, Code: codeInput, Message: fmt.Sprintf("program has %d ranks, want at least 1", prog.Ranks)}
	}
	sched, seed, serr := parseSchedule(opts.Schedule)
	if serr != nil {
		return nil, &RunError{Rank: -1, Code: codeInput, Message: serr.Error()}
	}
	platform := opts.Platform
	if platform == "" {
		platform = prog.Platform
	}
	prof, ok := profileFor(platform)
	if !ok {
		return nil, &RunError{Rank: -1, Code: codeInput, Message: fmt.Sprintf("platform %q has no cost profile, want %s", platform, strings.Join(profileNames(), " or "))}
	}
	if cp.err != nil {
		return nil, &RunError{Rank: -1, Code: codeInternal, Message: "malformed IR: " + cp.err.Error()}
	}
	s := &sim{prog: prog, funcs: cp.funcs, P: prog.Ranks, prof: prof, onEvent: opts.OnEvent, eventCost: opts.EventBytes, keepEvents: opts.KeepEvents,
		bigCells: map[cellKey]*cell{}, notifiers: map[*cell][]int{}, pairs: map[*cellPage]*pairPage{}, maxSteps: opts.MaxSteps, timeout: opts.Timeout, meter: opts.Meter}
	if s.meter == nil {
		s.meter = limits.NewMeter(nil, limits.Budget{}) // no memory limit
	}
	if s.eventCost == 0 {
		s.eventCost = limits.EventBytes
	}
	s.heldBefore = s.meter.Held()
	if rerr := s.reserveRanks(); rerr != nil {
		return nil, rerr
	}
	if s.maxSteps <= 0 {
		s.maxSteps = DefaultMaxSteps
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	s.windows = make([][]byte, s.P)
	s.host = &machine{s: s, rank: -1}
	s.ranks = make([]*machine, s.P)
	for r := range s.ranks {
		s.ranks[r] = &machine{s: s, rank: r}
	}
	s.ready.setSchedule(sched, seed)
	s.initRace(opts)
	if s.race != nil {
		s.race.nodeSites = make([]nodeSite, cp.sigs)
	}
	if rerr := s.bindInputs(opts); rerr != nil {
		s.giveBack()
		return nil, rerr
	}
	s.layoutWindows()
	return s, nil
}

// watch arranges for s.stop to be set when ctx is done or the wall-clock
// limit passes, and returns the function that disarms both. Neither leaves
// a goroutine running after it returns.
func (s *sim) watch(ctx context.Context) func() {
	if ctx == nil {
		ctx = context.Background()
	}
	stopCtx := context.AfterFunc(ctx, func() {
		// A deadline on ctx is the work's wall clock (the engine sets one
		// over the whole pipeline), not the caller giving up.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.stop.CompareAndSwap(0, 2)
			return
		}
		s.stop.CompareAndSwap(0, 1)
	})
	timer := time.AfterFunc(s.timeout, func() { s.stop.CompareAndSwap(0, 2) })
	return func() {
		stopCtx()
		timer.Stop()
	}
}

// tick counts one executed statement against the budget and checks the
// stop flag; true when the run must stop (tickFail says why). Small
// enough to inline: next calls it for every statement.
func (s *sim) tick() bool {
	s.steps++
	return s.steps > s.maxSteps || s.stop.Load() != 0
}

// tickFail is the failure of m at n after tick said stop: the step
// budget, then the stop flag.
func (s *sim) tickFail(m *machine, n *node) *failure {
	if s.steps > s.maxSteps {
		return m.fail(n, codeBudget, "the step budget is exhausted",
			"after %d statements the run is still going; a loop that never ends, or a bound far larger than meant?", s.maxSteps)
	}
	if st := s.stop.Load(); st != 0 {
		if st == 3 {
			return s.overBudget
		}
		if st == 1 {
			f := m.fail(n, codeCanceled, "", "run canceled after %d statements", s.steps)
			f.status = StatusCanceled
			return f
		}
		f := m.fail(n, codeTimeout, "a loop that never ends, or a wait on a cell no rank will write?",
			"wall-clock limit of %v reached after %d statements", s.timeout, s.steps)
		f.status = StatusTimeout
		return f
	}
	return nil
}

// internalError turns a recovered panic into a failure.
func (s *sim) internalError(p any) *failure {
	msg := fmt.Sprintf("internal error in the emulator: %v", p)
	if where := PanicSite(debug.Stack()); where != "" {
		msg += " (at " + where + ")"
	}
	return &failure{status: StatusRuntimeError, err: &RunError{Rank: -1, Code: codeInternal, Message: msg,
		Hint: "this is a bug in the workbench, not in your program; please report it with the program"}}
}

// result assembles the Result of a run that ended with f (nil = ok).
func (s *sim) result(f *failure) *Result {
	res := &Result{Status: StatusOK, Outputs: map[string]*Tensor{}}
	if f != nil {
		res.Status, res.Error, res.Deadlock = f.status, f.err, f.dl
	}
	for _, ht := range s.hostTensors {
		if ht != nil {
			res.Outputs[ht.name] = ht.tensor()
		}
	}
	end := s.host.clock
	for _, m := range s.ranks {
		end = max(end, m.clock)
	}
	s.stats.SimTimeNs = end / 1000
	s.stats.Steps = s.steps
	res.Stats = s.stats
	s.race.finish(res)
	return res
}

// deadlock builds the report of a run whose ranks are all blocked or done.
func (s *sim) deadlock() *failure {
	dl := &Deadlock{Ranks: []Blocked{}}
	for _, m := range append(append([]*machine(nil), s.ranks...), s.blockMachines...) {
		if m.state != stBlocked {
			continue
		}
		w := &m.wait
		c := s.lookupCell(w.key, false)
		b := Blocked{Rank: m.rank, Block: m.block, Line: w.n.line(), Cell: cellName(w.n, cellOffs(w.view, w.key, nil)), Value: s.cellValue(w.key, w.dt),
			Cmp: w.cmp.String(), Expected: w.expected, NotifiedBy: []int{}}
		if c != nil {
			b.NotifiedBy = append(b.NotifiedBy, s.notifiersOf(c, w.key)...)
		}
		dl.Ranks = append(dl.Ranks, b)
	}
	sort.SliceStable(dl.Ranks, func(i, j int) bool {
		if dl.Ranks[i].Rank != dl.Ranks[j].Rank {
			return dl.Ranks[i].Rank < dl.Ranks[j].Rank
		}
		return dl.Ranks[i].Block < dl.Ranks[j].Block
	})
	var parts []string
	for _, b := range dl.Ranks {
		parts = append(parts, fmt.Sprintf("rank %d waits at line %d for %s %s %d (it is %d)", b.Rank, b.Line, b.Cell, cmpWords(b.Cmp), b.Expected, b.Value))
	}
	first := dl.Ranks[0]
	return &failure{status: StatusDeadlock, dl: dl, err: &RunError{Rank: first.Rank, Line: first.Line, Code: codeDeadlock,
		Message: "deadlock: every unfinished rank is blocked in a wait: " + strings.Join(parts, "; "),
		Hint:    "a rank waits on a cell no rank will notify any more: check that every notify happens before the waits that depend on it, and that notify targets the cell the peer waits on"}}
}

func cmpWords(cmp string) string {
	if cmp == "Eq" {
		return "=="
	}
	return ">="
}

// emit delivers one event of m (and counts it).
// count stands for emit when nothing receives events (!m.tracing()): the
// event's sequence number and the count move on, without building an
// event nobody reads (a trace.Event is a few hundred bytes to clear and
// copy, on every notify and wait of a barrier).
func (s *sim) count(m *machine) {
	m.owner().seq++
	s.stats.Events++
}

func (s *sim) emit(m *machine, n *node, e trace.Event) {
	o := m.owner()
	e.Rank, e.Seq, e.Block = m.rank, o.seq, m.block
	o.seq++
	s.stats.Events++
	if s.onEvent == nil {
		return
	}
	if s.eventCost < 0 || (s.keepEvents > 0 && s.stats.Events > s.keepEvents) {
		// The sink keeps nothing of this event: nothing to charge.
	} else if s.meter.Reserve(s.eventCost) {
		s.eventBytes += s.eventCost
	} else {
		// The caller keeps this event; the one past the budget is not
		// sent, and the run ends at its next statement.
		if s.overBudget == nil {
			s.overBudget = m.memoryFail(n, fmt.Sprintf("the trace wants more than %d events (%s each)", s.stats.Events-1, limits.Bytes(s.eventCost)))
			s.stop.Store(3)
		}
		return
	}
	if e.Op == "" {
		if n.kind == nCall {
			e.Op, e.Callee = "call", n.callee.f.Name
		} else if n.irop != nil {
			e.Op = n.irop.Name
		}
	}
	// The category comes from the IR's operation table, so no consumer
	// classifies op names again.
	if n.kind == nOp && n.irop != nil && e.Op == n.irop.Name {
		e.Cat = string(n.op.Category())
	} else {
		e.Cat = string(ir.CategoryOf(e.Op))
	}
	e.Line, e.Col, e.EndLine, e.EndCol = n.span.Line, n.span.Col, n.span.EndLine, n.span.EndCol
	s.onEvent(e)
}

// PanicSite returns the function and file:line where a panic started: the
// first frame after the runtime's own in a debug.Stack dump (the engine's
// InternalError names it too).
func PanicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i := 0; i+1 < len(lines); i++ {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "panic(") {
			for j := i + 2; j+1 < len(lines); j += 2 {
				f := strings.TrimSpace(lines[j])
				if strings.HasPrefix(f, "runtime.") {
					continue
				}
				loc := strings.TrimSpace(lines[j+1])
				if k := strings.LastIndex(loc, " +"); k >= 0 {
					loc = loc[:k]
				}
				if k := strings.LastIndex(loc, "/"); k >= 0 {
					loc = loc[k+1:]
				}
				return f + " " + loc
			}
		}
	}
	return ""
}
