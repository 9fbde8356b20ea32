package emu

import (
	"fmt"
	"unsafe"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// machine is one interpreter: the host (rank -1) or one rank. Its control
// state is explicit — a stack of frames, each a stack of cursors into
// blocks — so that it can stop in front of any statement and resume later.
type machine struct {
	// The fields every statement or shared operation reads are in three
	// cache lines (a machine is allocated after an 8-byte header, the
	// allocator's for an object this size with pointers, so its offsets
	// 56 and 120 start lines): s to seq in the first; parent, then what
	// the race detector reads of hb at every access and signal op (tid to
	// plainClk, pend[0]) in the second; and after hb, state and block,
	// with the start of wait. In a ring the scheduler runs every other rank
	// between two ops of one, so each of these lines is out of the cache
	// at each op; hb's in a line of its own was a first-level miss more per
	// access and signal op, one that the interpreter's line now pays for
	// (parent: owner, for an event's sequence number, reads it at every
	// op). TestPlainMemoLines checks the layout.
	s    *sim
	rank int
	// fr is the top of frames (nil when it is empty), kept beside it by
	// pushFrame and popFrame: every operand read goes through it, and
	// the slice's last element cost 3% of a barrier's instructions.
	fr *frame
	// single is the one statement of the block an if just chose, when
	// that is an operation other than a drain (exec): next returns it
	// before anything else, as it would from a cursor of its own, without
	// pushing and popping one — `if p != me: notify(...)` is every
	// iteration of a barrier. Never set on the host, whose dispatch
	// bookkeeping counts its cursors (host.go).
	single *node
	at     *node // the shared operation it stands in front of
	clock  int64 // simulated time, picoseconds
	seq    int64 // next event sequence number

	// A kernel launched as a grid of blocks (ir.Call.Blocks > 1) runs each
	// block on a machine of its own: block is its index, parent the rank's
	// machine, which waits (stJoin) until pending blocks have finished.
	parent *machine

	// hb is its happens-before state, for the race detector (see above).
	hb hbThread

	// id names the machine in the cell it is parked on (sim.machineID; 0
	// until it first parks), waitNext the machine parked after it there.
	id, waitNext int32
	_            [hbTailPad]byte // puts state on a line (see above)
	state        mstate
	block        int
	wait         waitInfo // the wait the rank is in, when wait.active

	frames  []*frame
	pending int
	join    *node  // the grid call the parent waits in
	queue   []task // dispatched calls not started yet
	retVal  val    // a block's kernel result

	scratch []int // offsets of a notify or wait, reused

	taskQueued []bool         // by task id: queued, not run yet (task.go)
	deferred   []deferredTask // the queued tasks, in submission order
}

// hbTailPad is the padding after hb and id that starts state on a cache
// line: hb starts at the machine's offset 64 (8 bytes into its second
// line), so it and id end 8 + sizeof(hb) bytes into one.
const hbTailPad = (64 - (8+unsafe.Sizeof(hbThread{})+8)%64) % 64

type mstate uint8

const (
	stIdle    mstate = iota // nothing to run
	stReady                 // in front of a shared operation, in the heap
	stBlocked               // parked on a signal cell
	stJoin                  // waiting for the blocks of a kernel grid
)

// frame is one active function call. It is 320 bytes, a size class of
// 64-byte lines (no allocation header below 512 bytes), so every frame
// starts a line: cursors and env, which every statement reads, share the
// first with fn and syms, and each cursor of cbuf (64 bytes) has a line
// of its own. At 264 bytes (the 288-byte class) a loop's cursor spanned
// two lines and the slice headers one or two, each a first-level miss at
// a barrier iteration, the ranks' lines being out of the cache between
// two of a rank's ops. TestFrameLines checks the layout.
type frame struct {
	cursors []cursor
	env     []val
	fn      *cfunc
	syms    map[string]int64
	// cbuf holds the first cursors: a call's body and a loop or two in it
	// need no allocation of their own (a short run makes a dozen frames).
	cbuf [3]cursor
	ret  int // the caller's result slot, -1 for none
	_    [56]byte
}

// cursor walks one block; a loop cursor repeats it.
type cursor struct {
	nodes         []*node
	pc            int
	loop          *node
	i, stop, step int64
}

// task is one dispatched call of an orchestration function.
type task struct {
	fn   *cfunc
	args []val
	syms map[string]int64
}

func (m *machine) top() *frame { return m.fr }

// fail builds a run-time failure of m at n.
func (m *machine) fail(n *node, code, hint, format string, args ...any) *failure {
	e := &RunError{Rank: m.rank, Code: code, Hint: hint, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.span.Line, n.span.Col
	}
	return &failure{status: StatusRuntimeError, err: e}
}

// loopDepth counts the loop cursors of the host's entry frame.
func (m *machine) loopDepth() int {
	d := 0
	for _, c := range m.frames[0].cursors {
		if c.loop != nil {
			d++
		}
	}
	return d
}

// next returns the next statement to execute and moves past it, finishing
// loop iterations, blocks and functions that fell off their end on the way.
// It returns nil when the machine has no frame left.
func (m *machine) next() (*node, *failure) {
	if n := m.single; n != nil {
		m.single = nil
		if m.s.tick() {
			return nil, m.s.tickFail(m, n)
		}
		return n, nil
	}
	for m.fr != nil { // frames is not empty
		fr := m.top()
		if len(fr.cursors) == 0 {
			m.popFrame(val{})
			continue
		}
		c := &fr.cursors[len(fr.cursors)-1]
		if c.pc < len(c.nodes) {
			n := c.nodes[c.pc]
			c.pc++
			if n.ifNext && m.rank >= 0 {
				if s := m.s; n.ifn != nil && s.steps+3 <= s.maxSteps && s.stop.Load() == 0 {
					if one := m.fusedIf(fr, c, n); one != nil {
						return one, nil
					}
					continue // a block may have been pushed
				}
				if one, f := m.compareIfNext(fr, c, n); one != nil || f != nil {
					return one, f
				}
				continue // a block may have been pushed
			}
			if m.s.tick() {
				return nil, m.s.tickFail(m, n)
			}
			return n, nil
		}
		if lp := c.loop; lp != nil && lp.kind == nFor {
			// A For loop's next iteration: its variable moves.
			if c.i += c.step; c.step > 0 && c.i < c.stop || c.step < 0 && c.i > c.stop {
				setInt(&fr.env[lp.loopVar], c.i)
				c.pc = 0
				if s := m.s; s.steps+4 <= s.maxSteps && s.stop.Load() == 0 {
					// Room in the budget for the loop's step and the three
					// of a comparison, its if and the statement it
					// chooses: when the loop's first statement is such a
					// comparison (a barrier's every iteration), it runs
					// here, as the pass of the loop above would run it.
					s.steps++ // tick, which cannot fail
					if first := c.nodes[0]; first.ifNext && first.ifn != nil && m.rank >= 0 {
						c.pc = 1
						if one := m.fusedIf(fr, c, first); one != nil {
							return one, nil
						}
					}
				} else if s.tick() {
					return nil, s.tickFail(m, lp)
				}
				continue
			}
		} else if c.loop != nil && m.whileAgain(c) {
			c.pc = 0
			// Every iteration is a step, so a while loop that never ends
			// (even with an empty body) stops at the step budget.
			if m.s.tick() {
				return nil, m.s.tickFail(m, c.loop)
			}
			continue
		}
		if f := m.popCursor(fr); f != nil {
			return nil, f
		}
	}
	return nil, nil
}

// fusedIf runs comparison n (node.ifNext), which next just took from
// cursor c of frame fr, the if after it (n.ifn) and, when the if chose
// one statement (ifn.ones), takes that one too, returning it: compareIf
// and next's ticks, as compareIfNext runs them, with the three ticks in
// one, as none of them can fail (next found room in the budget). nil
// when the if pushed its block or chose nothing. Out of next, which it
// made larger at every other statement.
func (m *machine) fusedIf(fr *frame, c *cursor, n *node) *node {
	s := m.s
	cond := compare(n.bin, fr.intArg(m, &n.x), fr.intArg(m, &n.y))
	if !n.resDead {
		setInt(&fr.env[n.res], boolVal(cond).i)
	}
	c.pc++ // past the if, n.ifn
	m.clock += 2 * s.prof.scalarPs
	ifn := n.ifn
	if one := ifn.ones[boolIndex(cond)]; one != nil {
		s.steps += 3 // the comparison, the if and one
		return one
	}
	s.steps += 2
	body := ifn.els
	if cond {
		body = ifn.body
	}
	if len(body) > 0 {
		fr.cursors = append(fr.cursors, cursor{nodes: body})
	}
	return nil
}

// compareIfNext runs comparison n (node.ifNext), which next just took
// from cursor c of frame fr, and the if after it, as exec and next would
// one after the other, when next's fused path does not (within three
// steps of the budget, or a stop asked for): compareIf, then the
// statement the if chose when it is one (machine.single), which it
// returns. nil (and no failure) when the if pushed its block or chose
// nothing.
func (m *machine) compareIfNext(fr *frame, c *cursor, n *node) (*node, *failure) {
	if m.s.tick() {
		return nil, m.s.tickFail(m, n)
	}
	if f := m.compareIf(fr, c, n); f != nil {
		return nil, f
	}
	if one := m.single; one != nil {
		m.single = nil
		if m.s.tick() {
			return nil, m.s.tickFail(m, one)
		}
		return one, nil
	}
	return nil, nil
}

// whileAgain reports whether while loop c has another iteration: it reads
// the loop's condition. (next advances a For loop itself.)
func (m *machine) whileAgain(c *cursor) bool {
	return m.evalp(&c.loop.x).integer(c.loop.x.dt) != 0
}

// popCursor ends the innermost block of fr. When it is a host dispatch
// loop, what the loop dispatched runs before the host goes on (pld-spec
// §5.2), however the loop ended.
func (m *machine) popCursor(fr *frame) *failure {
	loop := fr.cursors[len(fr.cursors)-1].loop
	depth := 0
	if m.rank < 0 && loop != nil && len(m.frames) == 1 {
		depth = m.loopDepth()
	}
	fr.cursors = fr.cursors[:len(fr.cursors)-1]
	if loop != nil && m.rank < 0 && m.s.pending && depth <= m.s.pendingLoopDepth {
		return m.s.flush()
	}
	return nil
}

// breakLoop leaves the innermost loop of the current call: the blocks of
// the ifs inside it end with it.
func (m *machine) breakLoop() *failure {
	fr := m.top()
	for len(fr.cursors) > 0 {
		isLoop := fr.cursors[len(fr.cursors)-1].loop != nil
		if f := m.popCursor(fr); f != nil || isLoop {
			return f
		}
	}
	return nil
}

// continueLoop ends the current iteration of the innermost loop: the
// blocks inside it end, and the loop's cursor stands at the end of its
// body, where next() starts the next iteration or ends the loop.
func (m *machine) continueLoop() {
	fr := m.top()
	for n := len(fr.cursors); n > 0; n = len(fr.cursors) {
		if c := &fr.cursors[n-1]; c.loop != nil {
			c.pc = len(c.nodes)
			return
		}
		fr.cursors = fr.cursors[:n-1]
	}
}

// pushFrame starts a call of fn with args.
func (m *machine) pushFrame(fn *cfunc, args []val, syms map[string]int64, ret int) {
	// env's capacity is even: 64-byte lines of vals, its allocation a
	// size class that starts a line (up to 512 bytes, 16 slots).
	fr := &frame{fn: fn, env: make([]val, fn.nslots, (fn.nslots+1)&^1), syms: syms, ret: ret}
	fr.cursors = fr.cbuf[:0]
	for i, slot := range fn.params {
		if i < len(args) {
			fr.env[slot] = args[i]
		}
	}
	if len(fn.body) > 0 {
		fr.cursors = append(fr.cursors, cursor{nodes: fn.body})
	}
	m.frames = append(m.frames, fr)
	m.fr = fr
}

// popFrame returns from the current call with v.
func (m *machine) popFrame(v val) {
	fr := m.top()
	m.frames = m.frames[:len(m.frames)-1]
	m.fr = nil
	if len(m.frames) > 0 {
		m.fr = m.frames[len(m.frames)-1]
	}
	m.releaseFrame(fr, v)
	if len(m.frames) > 0 && fr.ret >= 0 {
		m.top().env[fr.ret] = v
	}
	if len(m.frames) == 0 {
		m.retVal = v
	}
}

// owner is the machine whose event sequence m's events continue: the rank
// itself for the blocks of a grid.
func (m *machine) owner() *machine {
	if m.parent != nil {
		return m.parent
	}
	return m
}

// startTask begins the next dispatched call; false when none is queued.
func (m *machine) startTask() bool {
	if len(m.queue) == 0 {
		return false
	}
	t := m.queue[0]
	m.queue = m.queue[1:]
	m.pushFrame(t.fn, t.args, t.syms, -1)
	return true
}

// exec executes one statement. Only a wait can block; it reports that with
// blocked and leaves the machine in front of the wait.
func (m *machine) exec(n *node) (blocked bool, f *failure) {
	fr := m.top()
	m.clock += m.s.prof.scalarPs
	switch n.kind {
	case nOp:
		return m.execOp(n)
	case nBin:
		v, f := m.binary(n)
		if f != nil {
			return false, f
		}
		fr.env[n.res] = v
	case nUnary:
		fr.env[n.res] = m.unary(n)
	case nAssign:
		v := m.eval(n.x)
		if n.resDT != ir.InvalidDType && n.x.dt != ir.InvalidDType {
			v = scalarVal(v, n.x.dt, n.resDT)
		}
		m.setSlot(n.res, v)
	case nIndex:
		return false, m.index(n)
	case nCall:
		if n.dev.k != oNone {
			return false, m.dispatch(n)
		}
		if n.blocks > 1 {
			return true, m.launchGrid(n)
		}
		if n.task != nil {
			if queued, f := m.submitTask(n); queued || f != nil {
				return false, f
			}
		}
		return false, m.call(n)
	case nFor:
		return false, m.forLoop(n)
	case nIf:
		m.branch(fr, n, m.evalp(&n.x).integer(n.x.dt) != 0)
	case nWhile:
		// The body is entered even when empty: an iteration that does
		// nothing is still a step of the budget.
		if m.evalp(&n.x).integer(n.x.dt) != 0 {
			fr.cursors = append(fr.cursors, cursor{nodes: n.body, loop: n})
		}
	case nBreak:
		return false, m.breakLoop()
	case nContinue:
		m.continueLoop()
	case nReturn:
		var v val
		if n.x.k != oNone {
			v = m.eval(n.x)
		}
		m.popFrame(v)
	}
	return false, nil
}

// branch enters the block if n chose by cond.
func (m *machine) branch(fr *frame, n *node, cond bool) {
	body, one := n.els, n.ones[0]
	if cond {
		body, one = n.body, n.ones[1]
	}
	switch {
	case one != nil && m.rank >= 0:
		m.single = one
	case len(body) > 0:
		fr.cursors = append(fr.cursors, cursor{nodes: body})
	}
}

// boolIndex is 1 for true, 0 for false.
func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setInt sets *v to the integer i, as *v = val{i: i} does, without the
// write barrier's test of a store of the nil interface when *v holds none.
func setInt(v *val, i int64) {
	v.i, v.f = i, 0
	if v.o != nil {
		v.o = nil
	}
}

// compareIf executes comparison n (node.ifNext), which next just took
// from cursor c, and the if after it, as exec and next would one after
// the other: each is a statement against the budget and on the clock.
// Only a rank runs the two together; the host may flush its dispatches
// between statements (runHost).
func (m *machine) compareIf(fr *frame, c *cursor, n *node) *failure {
	m.clock += m.s.prof.scalarPs
	cond := compare(n.bin, m.intArg(&n.x), m.intArg(&n.y)) // fr is m.fr
	if !n.resDead {
		setInt(&fr.env[n.res], boolVal(cond).i)
	}
	ifn := c.nodes[c.pc] // n is the statement before it in this block
	c.pc++
	if m.s.tick() {
		return m.s.tickFail(m, ifn)
	}
	m.clock += m.s.prof.scalarPs
	m.branch(fr, ifn, cond)
	return nil
}

func (m *machine) forLoop(n *node) *failure {
	start, stop, step := m.intArg(&n.start), m.intArg(&n.stop), m.intArg(&n.step)
	if step == 0 {
		return m.fail(n, codeRange, "", "pl.range step is 0; the loop would never end")
	}
	if step > 0 && start >= stop || step < 0 && start <= stop {
		return nil
	}
	fr := m.top()
	fr.env[n.loopVar] = val{i: start}
	if len(n.body) == 0 {
		return nil // an empty body has nothing to repeat
	}
	fr.cursors = append(fr.cursors, cursor{nodes: n.body, loop: n, i: start, stop: stop, step: step})
	return nil
}

// callArgs evaluates and checks the arguments of a call and emits its
// event.
func (m *machine) callArgs(n *node) ([]val, map[string]int64, *failure) {
	if f := m.taskArgOrder(n); f != nil {
		return nil, nil, f
	}
	args := make([]val, len(n.args))
	for i, a := range n.args {
		args[i] = m.eval(a)
		if t, ok := args[i].o.(*tile); ok {
			t.pinned = true
		}
	}
	syms, f := m.bindSyms(n)
	if f != nil {
		return nil, nil, f
	}
	if f := m.checkArgs(n, n.callee, args, syms); f != nil {
		return nil, nil, f
	}
	start := m.clock
	m.clock += m.s.prof.callPs
	e := trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000}
	if n.blocks > 1 && m.tracing() {
		e.Blocks = n.blocks
	}
	m.s.emit(m, n, e)
	return args, syms, nil
}

// call runs a call of another DSL function on this machine.
func (m *machine) call(n *node) *failure {
	args, syms, f := m.callArgs(n)
	if f != nil {
		return f
	}
	m.pushFrame(n.callee, args, syms, n.res)
	return nil
}

// launchGrid starts a kernel as n.blocks blocks, each on a machine of its
// own with its own locals and tiles, sharing the rank's tensors and
// windows; m waits in stJoin until all have finished (see blockDone).
func (m *machine) launchGrid(n *node) *failure {
	args, syms, f := m.callArgs(n)
	if f != nil {
		return f
	}
	m.pending, m.join = n.blocks, n
	for b := 0; b < n.blocks; b++ {
		c := &machine{s: m.s, rank: m.rank, block: b, parent: m, clock: m.clock}
		m.s.forkBlock(m, c)
		bsyms := make(map[string]int64, len(syms))
		for k, v := range syms {
			bsyms[k] = v
		}
		c.pushFrame(n.callee, append([]val(nil), args...), bsyms, -1)
		m.s.blockMachines = append(m.s.blockMachines, c)
	}
	return nil
}

// bindSyms returns the callee's symbolic dimensions a call binds.
func (m *machine) bindSyms(n *node) (map[string]int64, *failure) {
	syms := map[string]int64{}
	for _, b := range n.binds {
		if b.Dim.IsStatic() {
			ir.BindDim(b.Sym, b.Dim.N, syms)
			continue
		}
		v, ok := ir.DimValue(b.Dim.Sym, m.top().syms)
		if !ok {
			return nil, m.fail(n, codeShape, "", "%s binds %s to %s, which has no value here", n.callee.f.Name, b.Sym, b.Dim.Sym)
		}
		ir.BindDim(b.Sym, v, syms)
	}
	return syms, nil
}

// checkArgs checks the run-time dtypes and shapes of a call's arguments
// against the callee's parameters, binding symbolic dimensions the call did
// not bind, and converts scalar arguments to the parameters' dtypes.
func (m *machine) checkArgs(n *node, fn *cfunc, args []val, syms map[string]int64) *failure {
	for i, prm := range fn.f.Params {
		if i >= len(args) {
			break
		}
		switch want := prm.Var.Type.(type) {
		case *ir.Scalar:
			if i < len(n.args) && n.args[i].dt != ir.InvalidDType {
				args[i] = scalarVal(args[i], n.args[i].dt, want.DType)
			}
		case *ir.Tensor, *ir.DistributedTensor:
			shape, dt, _ := ir.ShapeOf(want)
			t, ok := args[i].o.(*tref)
			if !ok {
				continue
			}
			if t.dt != dt {
				return m.fail(n, codeShape, "", "%s argument %s is %s, want %s", fn.f.Name, prm.Var.Name, t.dt, dt)
			}
			switch nt, fits := reshapeWindow(t, want); {
			case !fits:
				return m.fail(n, codeShape, "size the window buffer for the shape the kernel declares",
					"%s argument %s is a view of %s, whose %d bytes the kernel would read as %s of %d bytes", fn.f.Name, prm.Var.Name, t.buf.name, t.buf.size, nt.what(), nt.nbytes())
			case nt != nil:
				args[i] = val{o: nt} // a window seen in the parameter's shape (domain.go)
				continue
			}
			if got, ok := matchShape(shape, t.shape, syms); !ok {
				return m.fail(n, codeShape, "", "%s argument %s has shape %v, want %s", fn.f.Name, prm.Var.Name, dims(t.shape), got)
			}
		}
	}
	return nil
}

// matchShape reports whether concrete matches declared, binding unbound
// symbols in syms; on a mismatch it returns declared rendered with the
// known bindings.
func matchShape(declared ir.Shape, concrete []int, syms map[string]int64) (string, bool) {
	if len(declared) != len(concrete) {
		return declared.String(), false
	}
	for i, d := range declared {
		n := d.N
		if !d.IsStatic() {
			v, ok := ir.DimValue(d.Sym, syms)
			if !ok {
				ir.BindDim(d.Sym, int64(concrete[i]), syms)
				continue
			}
			n = v
		}
		if n != int64(concrete[i]) {
			return renderShape(declared, syms), false
		}
	}
	return "", true
}

func renderShape(s ir.Shape, syms map[string]int64) string {
	out := make(ir.Shape, len(s))
	for i, d := range s {
		out[i] = d
		if v, ok := ir.DimValue(d.Sym, syms); !d.IsStatic() && ok {
			out[i] = ir.ConstDim(v)
		}
	}
	return out.String()
}

// eval returns an operand's value.
func (m *machine) eval(o opnd) val { return m.evalp(&o) }

// evalp is eval of the operand at o. The statements every signal op goes
// through take their operands by pointer: an opnd is 104 bytes, and a
// copy of it per operand was a tenth of a barrier's time.
func (m *machine) evalp(o *opnd) val {
	if o.k == oSlot {
		return m.fr.env[o.slot] // inlined: most operands are variables
	}
	return m.evalOther(o)
}

// evalOther is evalp of an operand that is not a variable.
func (m *machine) evalOther(o *opnd) val {
	switch o.k {
	case oSlot:
		return m.top().env[o.slot]
	case oConst:
		return o.c
	case oSym:
		if v, ok := m.top().syms[o.sym]; ok {
			return val{i: v}
		}
		v, _ := ir.DimValue(o.sym, m.top().syms) // a composite dimension not bound whole
		return val{i: v}
	}
	return val{}
}

// intOf returns an integer scalar operand.
func (m *machine) intOf(o opnd) int64 { return m.intArg(&o) }

// intArg is intOf of the operand at o, read in place.
func (m *machine) intArg(o *opnd) int64 {
	if o.intVar {
		return m.fr.env[o.slot].i // inlined: the common cases
	}
	if o.intConst {
		return o.c.i
	}
	return m.intOther(o)
}

// intArg is m.intArg of the operand at o, m's frame fr already at hand.
func (fr *frame) intArg(m *machine, o *opnd) int64 {
	if o.intVar {
		return fr.env[o.slot].i
	}
	if o.intConst {
		return o.c.i
	}
	return m.intOther(o)
}

// intOther is intArg of an operand that is not an integer variable or
// constant.
func (m *machine) intOther(o *opnd) int64 {
	var v *val
	switch o.k {
	case oSlot:
		v = &m.top().env[o.slot]
	case oConst:
		v = &o.c
	default:
		return m.evalp(o).integer(o.dt)
	}
	if o.dt.IsFloat() {
		return floatToInt(ir.INT64, v.f)
	}
	return v.i
}

// ints returns the integer elements of a list operand.
func (m *machine) ints(o opnd) []int {
	if o.k != oList {
		out := m.s.newInts(1)
		out[0] = int(m.intOf(o))
		return out
	}
	out := m.s.newInts(len(o.list))
	for i, e := range o.list {
		out[i] = int(m.intOf(e))
	}
	return out
}

// hasSym reports whether the symbolic operand is bound in this frame.
func (m *machine) hasSym(o opnd) bool {
	_, ok := ir.DimValue(o.sym, m.top().syms)
	return ok
}

// taskArgOrder fails a call of an InCore kernel that declares a tensor
// after a scalar. PyPTO compiles such a kernel, and its runtime refuses
// the dispatch when it packs the arguments (TaskArgs holds every tensor
// before any scalar), so the workbench reports it here, at run time, as
// PyPTO does.
func (m *machine) taskArgOrder(n *node) *failure {
	fn := n.callee.f
	if fn.Level != ir.InCore {
		return nil
	}
	scalar := ""
	for _, p := range fn.Params {
		switch p.Var.Type.(type) {
		case *ir.Scalar:
			if scalar == "" {
				scalar = p.Var.Name
			}
		case *ir.Tensor, *ir.DistributedTensor:
			if scalar != "" {
				return m.fail(n, codeTaskArgs,
					"put every tensor parameter first and scalars last, in the signature and in the call",
					"TaskArgs: cannot add tensor after scalar: %s passes tensor %s after scalar %s", fn.Name, p.Var.Name, scalar)
			}
		}
	}
	return nil
}
