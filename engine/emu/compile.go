package emu

import (
	"fmt"

	"pldworkbench/engine/ir"
)

// Before a run the IR is turned into a form that is cheaper to interpret:
// every *ir.Var of a function gets a slot in a flat environment, operands
// become slot indices or ready-made constants, and every operation name is
// looked up once in the IR's operation table (ir.KindOf). The tree shape
// stays: a node's body is a slice of nodes, which is what a cursor walks.

// val is a run-time value. Its meaning comes from the static type of the
// slot or constant that holds it: integer and BOOL scalars use i, float
// scalars f, and everything else (tensor views, tiles, window buffers, the
// comm context) o.
type val struct {
	i int64
	f float64
	o any
}

// num returns a scalar of dtype dt as a float64.
func (v val) num(dt ir.DType) float64 {
	if dt.IsFloat() {
		return v.f
	}
	return float64(v.i)
}

// integer returns a scalar of dtype dt as an int64 (floats toward zero).
func (v val) integer(dt ir.DType) int64 {
	if dt.IsFloat() {
		return floatToInt(ir.INT64, v.f)
	}
	return v.i
}

// scalarVal converts a scalar of dtype from to dtype to.
func scalarVal(v val, from, to ir.DType) val {
	switch {
	case to.IsFloat():
		return val{f: roundFloat(to, v.num(from))}
	case from.IsFloat():
		return val{i: floatToInt(to, v.f)}
	}
	return val{i: wrapInt(to, v.i)}
}

type opndKind uint8

const (
	oNone  opndKind = iota // an omitted optional operand
	oSlot                  // a variable
	oConst                 // a constant
	oList                  // a list of operands (offsets, shapes)
	oSym                   // a symbolic dimension, bound per frame
)

// opnd is a compiled operand.
type opnd struct {
	k opndKind
	// intVar marks a variable (oSlot) read as an integer, its dtype not a
	// float one: intArg reads its slot without a look at the dtype;
	// intConst likewise a constant (oConst), read from c.i.
	intVar, intConst bool
	slot             int
	c                val
	dt               ir.DType // the scalar dtype, InvalidDType for non-scalars
	name             string   // the variable's name, for messages and cell names
	list             []opnd
	sym              string
}

type nodeKind uint8

const (
	nOp nodeKind = iota
	nBin
	nUnary
	nAssign
	nIndex
	nCall
	nFor
	nIf
	nReturn
	nWhile
	nBreak
	nContinue
)

// node is a compiled statement.
type node struct {
	kind nodeKind
	span ir.Span
	// shared marks an operation that touches window memory, signals or
	// host tensors: a rank stops in front of it until the scheduler picks it.
	shared bool

	op    opKind // nOp
	irop  *ir.Op // nOp: name and attributes
	args  []opnd // nOp and nCall arguments
	res   int    // result slot, -1 for none
	resDT ir.DType
	resT  ir.Type
	// Signal attributes decoded at compile time: a notify with op=Set
	// (else AtomicAdd), a wait's comparison.
	sigSet bool
	cmp    waitCmp
	// sigOffs is a notify's or wait's offset list decoded for signalKey,
	// nil when an offset is not an integer variable or constant.
	sigOffs []sigOff
	// sigWin is the slot of a notify's or wait's window variable plus 1,
	// 0 when its first argument is not a variable or (a notify) its peer
	// is not an integer variable or constant; sigPeer is that peer.
	// Decoded at compile time for sigWindow and notify.
	sigWin  int
	sigPeer sigOff
	// sigVal is a notify's value or a wait's expected value when sigValOK
	// (an integer variable or constant), read in place.
	sigVal   sigOff
	sigValOK bool
	// sig numbers a notify or wait (1, 2, … in its Compiled): the race
	// detector's memo of the node's last signal-cell site is the run's
	// nodeSites[sig-1] (detector.nodeSite), since the node is shared by
	// every run of the program. A node the detector reaches has a sig
	// (the internal tests that build nodes by hand number them too).
	sig int32
	// borrow marks a remote_load whose tile only the next statement reads
	// (markBorrows).
	borrow bool
	// ifNext marks an integer comparison whose result the next statement
	// of its block, an if, reads (markCompareIfs): a rank runs the two in
	// one step of the interpreter (machine.compareIf). ifn is that if;
	// resDead marks a comparison whose result no statement of the
	// function but that if reads (markDeadCompares): a rank, which hands
	// the if the result itself, then does not write it to its slot.
	ifNext  bool
	resDead bool
	ifn     *node

	bin  ir.BinOp // nBin
	un   ir.UnOp  // nUnary
	x, y opnd     // nBin, nUnary, nAssign (x), nIndex (x[y]), nReturn (x), nIf and nWhile (x)

	callee *cfunc    // nCall
	dev    opnd      // nCall: device= of a host dispatch
	binds  []ir.Bind // nCall
	blocks int       // nCall: a kernel launched as a grid of blocks
	task   *taskInfo // nCall: a task with an id, deps= or a deferred wait (task.go)

	loopVar           int  // nFor
	start, stop, step opnd // nFor
	body, els         []*node
	// ones are an nIf's els and body when the block is one operation other
	// than a drain, else nil: a rank runs it without a cursor of its own
	// (machine.single).
	ones [2]*node
}

// line returns the node's source line.
func (n *node) line() int { return n.span.Line }

// cfunc is a compiled function.
type cfunc struct {
	f      *ir.Func
	nslots int
	params []int
	body   []*node
}

// Compiled is an *ir.Program compiled for the interpreter, once: Run it
// as often as wanted, several runs at once. It holds nothing a run
// changes (what a run keeps per node is in the run, by node.sig), so a
// server that caches a program does not compile it again for every run,
// which cost a short run (a step-8 mesh all-reduce at P=4) a third of its
// time.
type Compiled struct {
	prog  *ir.Program
	funcs map[*ir.Func]*cfunc
	sigs  int   // the notifies and waits: node.sig is 1…sigs
	err   error // malformed IR, reported when a run starts
}

// Compile compiles prog for Run. A program Run refuses (no entry,
// malformed IR) still compiles; its runs end with the error. prog must not
// change afterwards.
func Compile(prog *ir.Program) *Compiled {
	c := &Compiled{prog: prog}
	if prog != nil && prog.Entry != nil {
		c.funcs, c.sigs, c.err = compileProgram(prog)
	}
	return c
}

// nodeSite is the memo of n's last signal-cell site in d's run (node.sig).
// An unnumbered node (sig 0) panics here rather than share one memo
// among the runs of a Compiled.
func (d *detector) nodeSite(n *node) *nodeSite {
	return &d.nodeSites[n.sig-1]
}

// compiler compiles one program.
type compiler struct {
	funcs map[*ir.Func]*cfunc
	slots map[*ir.Var]int // of the function being compiled
	fn    *cfunc
	sigs  int // the signal ops numbered so far (node.sig)
}

func compileProgram(p *ir.Program) (map[*ir.Func]*cfunc, int, error) {
	c := &compiler{funcs: map[*ir.Func]*cfunc{}}
	for _, f := range p.Funcs {
		c.funcs[f] = &cfunc{f: f}
	}
	if p.Entry != nil && c.funcs[p.Entry] == nil {
		c.funcs[p.Entry] = &cfunc{f: p.Entry}
	}
	for f, cf := range c.funcs {
		c.fn, c.slots = cf, map[*ir.Var]int{}
		for _, prm := range f.Params {
			cf.params = append(cf.params, c.slot(prm.Var))
		}
		body, err := c.block(f.Body)
		if err != nil {
			return nil, 0, fmt.Errorf("func %s: %v", f.Name, err)
		}
		cf.body = body
		cf.nslots = len(c.slots)
		markBorrows(body)
		markDeadCompares(body)
	}
	return c.funcs, c.sigs, nil
}

// markBorrows marks each remote_load whose tile only the next statement
// reads, as an element-wise operand: acc = pl.add(acc,
// pld.tile.remote_load(...)), the reduction of every mesh all-reduce. Such
// a load lends the add the peer's window bytes instead of copying them
// into a tile (remoteLoad): nothing runs between the two statements (both
// are the same rank's, and the add touches only its own state), so the
// bytes are what the load would have copied.
func markBorrows(body []*node) {
	uses := map[int]int{}
	var count func(o opnd)
	count = func(o opnd) {
		switch o.k {
		case oSlot:
			uses[o.slot]++
		case oList:
			for _, e := range o.list {
				count(e)
			}
		}
	}
	var walk func(b []*node)
	walk = func(b []*node) {
		for _, n := range b {
			for _, a := range n.args {
				count(a)
			}
			for _, o := range []opnd{n.x, n.y, n.dev, n.start, n.stop, n.step} {
				count(o)
			}
			walk(n.body)
			walk(n.els)
		}
	}
	walk(body)
	var mark func(b []*node)
	mark = func(b []*node) {
		for i, n := range b {
			mark(n.body)
			mark(n.els)
			if n.kind != nOp || n.op != opRemoteLoad || n.res < 0 || uses[n.res] != 1 || i+1 == len(b) {
				continue
			}
			next := b[i+1]
			if next.kind != nOp || next.op < opAdd || next.op > opMin || next.res == n.res {
				continue
			}
			for _, a := range next.args {
				if a.k == oSlot && a.slot == n.res {
					n.borrow = true
				}
			}
		}
	}
	mark(body)
}

func (c *compiler) slot(v *ir.Var) int {
	if s, ok := c.slots[v]; ok {
		return s
	}
	s := len(c.slots)
	c.slots[v] = s
	return s
}

func scalarDType(t ir.Type) ir.DType {
	if s, ok := t.(*ir.Scalar); ok {
		return s.DType
	}
	return ir.InvalidDType
}

func (c *compiler) operand(o ir.Operand) opnd {
	switch o := o.(type) {
	case nil:
		return opnd{k: oNone}
	case *ir.Var:
		dt := scalarDType(o.Type)
		return opnd{k: oSlot, intVar: !dt.IsFloat(), slot: c.slot(o), dt: dt, name: o.Name}
	case *ir.Const:
		v := val{i: o.Int}
		if o.DType.IsFloat() {
			v = val{f: roundFloat(o.DType, o.Float)}
		}
		return opnd{k: oConst, intConst: !o.DType.IsFloat(), c: v, dt: o.DType, name: o.String()}
	case *ir.SymRef:
		return opnd{k: oSym, sym: o.Name, dt: ir.INDEX, name: o.Name}
	case *ir.ListOp:
		l := opnd{k: oList, list: make([]opnd, len(o.Elems))}
		for i, e := range o.Elems {
			l.list[i] = c.operand(e)
		}
		return l
	}
	return opnd{k: oNone}
}

func (c *compiler) result(v *ir.Var) (int, ir.DType, ir.Type) {
	if v == nil {
		return -1, ir.InvalidDType, nil
	}
	return c.slot(v), scalarDType(v.Type), v.Type
}

func (c *compiler) block(b *ir.Block) ([]*node, error) {
	if b == nil {
		return nil, nil
	}
	out := make([]*node, 0, len(b.Stmts))
	for _, s := range b.Stmts {
		n, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	markCompareIfs(out)
	return out, nil
}

// markCompareIfs marks each comparison of two integer variables or
// constants in b that the if after it branches on (node.ifNext): `if p !=
// me:` is a temporary's comparison and an if on it, every iteration of a
// barrier's loops.
func markCompareIfs(b []*node) {
	isInt := func(o *opnd) bool { return o.k == oSlot && o.intVar || o.k == oConst && o.intConst }
	for i, n := range b[:max(len(b)-1, 0)] {
		next := b[i+1]
		if n.kind == nBin && n.bin.IsCompare() && n.res >= 0 && isInt(&n.x) && isInt(&n.y) &&
			next.kind == nIf && next.x.k == oSlot && next.x.intVar && next.x.slot == n.res {
			n.ifNext, n.ifn = true, next
		}
	}
}

// markDeadCompares marks each comparison of body (a function's) that
// markCompareIfs paired with an if whose result slot no operand of the
// function reads but that if's condition (node.resDead). Nothing else
// reads a slot: the other readers of a frame's variables (setSlot, the
// tile bookkeeping) look only at tiles, and a comparison's result is an
// integer.
func markDeadCompares(body []*node) {
	uses := map[int]int{}
	var count func(o *opnd)
	count = func(o *opnd) {
		switch o.k {
		case oSlot:
			uses[o.slot]++
		case oList:
			for i := range o.list {
				count(&o.list[i])
			}
		}
	}
	var walk func(b []*node, f func(n *node))
	walk = func(b []*node, f func(n *node)) {
		for _, n := range b {
			f(n)
			walk(n.body, f)
			walk(n.els, f)
		}
	}
	walk(body, func(n *node) {
		for i := range n.args {
			count(&n.args[i])
		}
		for _, o := range []*opnd{&n.x, &n.y, &n.dev, &n.start, &n.stop, &n.step} {
			count(o)
		}
		if n.task != nil {
			for i := range n.task.deps {
				count(&n.task.deps[i])
			}
		}
	})
	walk(body, func(n *node) {
		if n.ifNext && n.ifn != nil && n.ifn.x.k == oSlot && n.ifn.x.slot == n.res && uses[n.res] == 1 {
			n.resDead = true
		}
	})
}

func (c *compiler) stmt(s ir.Stmt) (*node, error) {
	n := &node{span: s.Pos(), res: -1}
	var err error
	switch s := s.(type) {
	case *ir.Op:
		n.kind, n.irop = nOp, s
		n.op = s.Kind()
		if n.op == ir.OpDeferWait {
			n.op = opWait // run as a wait at the drain (task.go)
		}
		for _, a := range s.Args {
			n.args = append(n.args, c.operand(a))
		}
		n.res, n.resDT, n.resT = c.result(s.Result)
		n.shared = sharedOp(n.op, s)
		switch n.op {
		case opNotify:
			c.sigs++
			n.sig = int32(c.sigs)
			// A notify's op= and a wait's cmp= are read once here, not by
			// name at every execution (a P=256 barrier runs 130,560 of them).
			n.sigSet = enumMember(s, "op") == "Set"
			n.sigOffs = decodeOffs(n.args, 2)
			decodeSigArgs(n)
		case opWait:
			c.sigs++
			n.sig = int32(c.sigs)
			n.cmp = cmpGe
			if enumMember(s, "cmp") == "Eq" {
				n.cmp = cmpEq
			}
			n.sigOffs = decodeOffs(n.args, 1)
			decodeSigArgs(n)
		}
	case *ir.Bin:
		n.kind, n.bin, n.x, n.y = nBin, s.Op, c.operand(s.X), c.operand(s.Y)
		n.res, n.resDT, n.resT = c.result(s.Result)
	case *ir.Unary:
		n.kind, n.un, n.x = nUnary, s.Op, c.operand(s.X)
		n.res, n.resDT, n.resT = c.result(s.Result)
	case *ir.Assign:
		n.kind, n.x = nAssign, c.operand(s.Src)
		n.res, n.resDT, n.resT = c.result(s.Dst)
	case *ir.Index:
		n.kind, n.x, n.y = nIndex, c.operand(s.X), c.operand(s.Index)
		n.res, n.resDT, n.resT = c.result(s.Result)
	case *ir.Call:
		n.kind = nCall
		if n.callee = c.funcs[s.Callee]; n.callee == nil {
			return nil, fmt.Errorf("line %d: call of %s, which is not in the program", s.Span.Line, s.Callee.Name)
		}
		for _, a := range s.Args {
			n.args = append(n.args, c.operand(a))
		}
		n.dev = c.operand(s.Device)
		n.binds = s.Binds
		n.blocks = s.Blocks
		n.res, n.resDT, n.resT = c.result(s.Result)
		c.compileTask(n, s)
	case *ir.For:
		n.kind = nFor
		n.loopVar = c.slot(s.Var)
		n.start, n.stop, n.step = c.operand(s.Start), c.operand(s.Stop), c.operand(s.Step)
		n.body, err = c.block(s.Body)
	case *ir.If:
		n.kind, n.x = nIf, c.operand(s.Cond)
		if n.body, err = c.block(s.Then); err == nil {
			n.els, err = c.block(s.Else)
		}
		for i, b := range [][]*node{n.els, n.body} {
			if len(b) == 1 && b[0].kind == nOp && b[0].op != ir.OpTaskDrain {
				n.ones[i] = b[0]
			}
		}
	case *ir.Return:
		n.kind, n.x = nReturn, c.operand(s.Value)
	case *ir.While:
		n.kind, n.x = nWhile, c.operand(s.Cond)
		n.body, err = c.block(s.Body)
	case *ir.Break:
		n.kind = nBreak
	case *ir.Continue:
		n.kind = nContinue
	default:
		return nil, fmt.Errorf("line %d: unknown statement %T", s.Pos().Line, s)
	}
	return n, err
}

// sigOff is one offset of a signal op as signalKey reads it: the integer
// in slot, or c when slot is -1.
type sigOff struct {
	slot int
	c    int64
}

// decodeSigArgs fills n.sigWin and n.sigPeer of notify or wait n. A
// notify's sigWin stays 0 unless its peer is decoded too.
func decodeSigArgs(n *node) {
	vi := 2 // wait(signal, offsets, expected)
	if n.op == opNotify {
		vi = 3 // notify(target, peer, offsets, value)
	}
	if vi < len(n.args) {
		switch o := &n.args[vi]; {
		case o.k == oSlot && o.intVar:
			n.sigVal, n.sigValOK = sigOff{slot: o.slot}, true
		case o.k == oConst && o.intConst:
			n.sigVal, n.sigValOK = sigOff{slot: -1, c: o.c.i}, true
		}
	}
	if len(n.args) == 0 || n.args[0].k != oSlot {
		return
	}
	if n.op == opNotify {
		if len(n.args) < 2 {
			return
		}
		switch o := &n.args[1]; {
		case o.k == oSlot && o.intVar:
			n.sigPeer = sigOff{slot: o.slot}
		case o.k == oConst && o.intConst:
			n.sigPeer = sigOff{slot: -1, c: o.c.i}
		default:
			return
		}
	}
	n.sigWin = n.args[0].slot + 1
}

// decodeOffs returns the offset list args[i] of a notify or wait as
// sigOffs, or nil unless it is a list whose every element is an integer
// variable or constant (the rest goes through intArg, as other ops' do).
func decodeOffs(args []opnd, i int) []sigOff {
	if i >= len(args) || args[i].k != oList {
		return nil
	}
	out := make([]sigOff, len(args[i].list))
	for k, o := range args[i].list {
		switch {
		case o.dt.IsFloat():
			return nil
		case o.k == oSlot:
			out[k] = sigOff{slot: o.slot}
		case o.k == oConst:
			out[k] = sigOff{slot: -1, c: o.c.i}
		default:
			return nil
		}
	}
	return out
}
