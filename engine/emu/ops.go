package emu

import (
	"fmt"
	"slices"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// opKind is an operation's kind, the IR's (ir.OpKind, whose table holds
// every spelling), looked up once per statement. The constants are the
// emulator's short names for the kinds it dispatches on.
type opKind = ir.OpKind

const (
	opUnknown     = ir.OpUnknown
	opLoad        = ir.OpLoad
	opStore       = ir.OpStore
	opRead        = ir.OpRead
	opWrite       = ir.OpWrite
	opCast        = ir.OpCast
	opAdd         = ir.OpAdd
	opSub         = ir.OpSub
	opMul         = ir.OpMul
	opDiv         = ir.OpDiv
	opMax         = ir.OpMaximum
	opMin         = ir.OpMinimum
	opWorldSize   = ir.OpWorldSize
	opCommCtx     = ir.OpGetCommCtx
	opRank        = ir.OpRank
	opNRanks      = ir.OpNRanks
	opNotify      = ir.OpNotify
	opWait        = ir.OpWait
	opAlloc       = ir.OpAllocWindowBuffer
	opWindow      = ir.OpWindow
	opRemoteLoad  = ir.OpRemoteLoad
	opRemoteStore = ir.OpRemoteStore
	opPut         = ir.OpPut
	opGet         = ir.OpGet
	opView        = ir.OpView
	opBlockIdx    = ir.OpBlockIdx
	opFull        = ir.OpFull
	opMove        = ir.OpMove
	opMatmul      = ir.OpMatmul
	opCreate      = ir.OpCreateTensor
	opTupleMake   = ir.OpTupleMake
	opTupleGet    = ir.OpTupleGet
)

// sharedOp reports whether an operation touches state other ranks can see:
// window memory, signal cells or host tensors. pl.read and pl.write of a
// tile are local.
func sharedOp(k opKind, op *ir.Op) bool {
	switch k {
	case opLoad, opStore, opNotify, opWait, opRemoteLoad, opRemoteStore, opPut, opGet:
		return true
	case opRead, opWrite:
		if len(op.Args) > 0 {
			if v, ok := op.Args[0].(*ir.Var); ok {
				if _, isTile := v.Type.(*ir.Tile); isTile {
					return false
				}
			}
		}
		return true
	}
	return false
}

// opRun holds, by kind, the method that runs each operation done by one
// call with nothing else to set: execOp calls it through the table (an
// OpKind is a byte, so the index needs no bounds check) and switches only
// over the rest, those that set a value themselves or may block.
var opRun = [256]func(*machine, *node) *failure{
	opLoad: (*machine).load, opStore: (*machine).store, opRead: (*machine).read, opWrite: (*machine).write,
	opCast: (*machine).cast, opFull: (*machine).full, opMove: (*machine).move, opMatmul: (*machine).matmul,
	opAdd: (*machine).elementwise, opSub: (*machine).elementwise, opMul: (*machine).elementwise,
	opDiv: (*machine).elementwise, opMax: (*machine).elementwise, opMin: (*machine).elementwise,
	opNotify: (*machine).notify, opAlloc: (*machine).alloc, opWindow: (*machine).window, opView: (*machine).view,
	opRemoteLoad: (*machine).remoteLoad, opRemoteStore: (*machine).remoteStore,
	opPut: (*machine).putGet, opGet: (*machine).putGet, opCreate: (*machine).createTensor,
}

// execOp executes one operation.
func (m *machine) execOp(n *node) (bool, *failure) {
	if run := opRun[n.op]; run != nil {
		return false, run(m, n)
	}
	switch n.op {
	case opWorldSize:
		return m.setInstant(n, val{i: int64(m.s.P)})
	case opCommCtx:
		return m.setInstant(n, val{o: m.commCtxOf(n)})
	case opRank, opNRanks:
		ctx, _ := m.eval(n.args[0]).o.(commCtx)
		v, f := m.rankIn(n, ctx)
		if f != nil {
			return false, f
		}
		return m.setInstant(n, val{i: v})
	case opWait:
		return m.waitOp(n)
	case ir.OpTaskDrain:
		m.drain()
		return false, nil
	case opArrayCreate, opArrayGet, opArrayUpdate, opTileCreate, opRowSum, opReshape:
		f, _ := m.execArrayOp(n)
		return false, f
	case opTupleMake:
		elems := make(tupleVal, len(n.args))
		for i, a := range n.args {
			elems[i] = m.eval(a)
		}
		m.set(n, val{o: elems})
		return false, nil
	case opTupleGet:
		// A host dispatch is asynchronous and hands the host no result
		// (its single results stay unset too); the elements are then
		// unset, as a single result would be.
		var v val
		if t, ok := m.eval(n.args[0]).o.(tupleVal); ok {
			if i, _ := n.irop.Attr("index").(ir.IntAttr); int(i) < len(t) {
				v = t[i]
			}
		}
		m.set(n, v)
		return false, nil
	case opBlockIdx:
		return m.setInstant(n, val{i: int64(m.block)})
	}
	if n.op.Category() == ir.CatCollective {
		return false, m.fail(n, codeCollective, "",
			"%s is a builtin collective; the emulator runs it once the lowering passes land (issue 4) — write it by hand with notify/wait for now", n.irop.Name)
	}
	return false, m.fail(n, codeUnsupported, "", "%s is not an operation the emulator runs", n.irop.Name)
}

// tupleVal is the value of tuple.make: a function's several results.
type tupleVal []val

// commCtx is the value of pld.get_comm_ctx: the whole world (pld-spec
// §5.3), or the ranks of its window's domain (domain.go).
type commCtx struct{ domain []int }

// setInstant sets n's result to v and emits its event, a point at the
// machine's clock: the operations that only read where the run stands.
func (m *machine) setInstant(n *node, v val) (bool, *failure) {
	m.set(n, v)
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return false, nil
}

func (m *machine) set(n *node, v val) {
	if n.res >= 0 {
		m.setSlot(n.res, v)
	}
}

// tracing reports whether events are delivered (so optional fields are
// worth allocating).
func (m *machine) tracing() bool { return m.s.onEvent != nil }

// ref returns argument i as a memory view of a dtype the emulator holds.
func (m *machine) ref(n *node, i int) (*tref, *failure) {
	if i >= len(n.args) {
		return nil, m.fail(n, codeInternal, "", "%s is missing argument %d", n.irop.Name, i+1)
	}
	t, ok := m.evalp(&n.args[i]).o.(*tref)
	if !ok {
		return nil, m.fail(n, codeInternal, "", "%s argument %s is not a tensor", n.irop.Name, n.args[i].name)
	}
	if !supported(t.dt) {
		return nil, m.fail(n, codeUnsupported, "use FP32, FP16, BF16 or an integer dtype", "%s: dtype %s is not supported by the emulator", n.irop.Name, t.dt)
	}
	return t, nil
}

// tileArg returns argument i as a tile.
func (m *machine) tileArg(n *node, i int) (*tile, *failure) {
	t, ok := m.eval(n.args[i]).o.(*tile)
	if !ok {
		return nil, m.fail(n, codeInternal, "", "%s argument %s is not a tile", n.irop.Name, n.args[i].name)
	}
	return t, nil
}

// given reports whether optional argument i was passed.
func given(n *node, i int) bool { return i >= 0 && i < len(n.args) && n.args[i].k != oNone }

func boolAttr(op *ir.Op, key string) bool {
	b, ok := op.Attr(key).(ir.BoolAttr)
	return ok && bool(b)
}

func enumMember(op *ir.Op, key string) string {
	if e, ok := op.Attr(key).(ir.EnumAttr); ok {
		return e.Member
	}
	return ""
}

// validShape returns the valid extents of a tile of shape ext: argument i
// when given (each within [0, ext]), else ext itself.
func (m *machine) validShape(n *node, i int, ext []int) ([]int, *failure) {
	valid := append(m.s.newInts(len(ext))[:0], ext...)
	if !given(n, i) {
		return valid, nil
	}
	v := m.ints(n.args[i])
	if len(v) != len(ext) {
		return nil, m.fail(n, codeShape, "", "%s valid_shape has %d extents, want %d", n.irop.Name, len(v), len(ext))
	}
	for k := range v {
		if v[k] < 0 || v[k] > ext[k] {
			return nil, m.fail(n, codeShape, "", "%s valid_shape %v does not fit in the tile %v", n.irop.Name, dims(v), dims(ext))
		}
	}
	return v, nil
}

func (m *machine) boundsFail(n *node, verb string, off, ext []int, t string) *failure {
	return m.fail(n, codeBounds, "offsets and shapes must stay inside the tensor: check the index arithmetic",
		"%s %s %s of %s, which is outside it", n.irop.Name, verb, regionText(off, ext), t)
}

// load is pl.load(tensor, offsets, shapes, valid_shape, target_memory, clamp).
func (m *machine) load(n *node) *failure {
	t, f := m.ref(n, 0)
	if f != nil {
		return f
	}
	offs, shape := m.ints(n.args[1]), m.ints(n.args[2])
	valid, f := m.validShape(n, 3, shape)
	if f != nil {
		return f
	}
	if boolAttr(n.irop, "clamp") && len(valid) == len(t.shape) {
		for i := range valid {
			valid[i] = max(0, min(valid[i], t.shape[i]-offs[i]))
		}
	}
	if !inBounds(t.shape, offs, valid) {
		return m.boundsFail(n, "reads", offs, valid, t.what())
	}
	tl := m.makeTile(n, t.dt, shape, valid, !slices.Equal(shape, valid))
	esz := t.dt.Bytes()
	copyBlock(tl.data, shape, zeros(len(shape)), m.s.bytesOf(t, m.rank), t.shape, offs, valid, esz, nil)
	m.touch(n, t, m.rank, offs, valid, accRead)
	bytes := numElems(valid) * esz
	m.s.stats.LocalBytes += int64(bytes)
	start := m.localMove(bytes)
	m.set(n, val{o: tl})
	m.s.emit(m, n, trace.Event{Bytes: int64(bytes), StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// storeExtent returns the block of tile tl a store writes (its valid
// region, narrowed by shapes when given) and the shape to read tl as.
func (m *machine) storeExtent(n *node, tl *tile, shapesArg int, rank int) (ext, src []int, f *failure) {
	ext, src = tl.valid, tl.shape
	if !given(n, shapesArg) {
		if len(ext) < rank {
			// A lower-rank tile fills the trailing dimensions (PyPTO's
			// store of a [1, N] tile at [0, r, 0] of a [1, P, N] tensor).
			pad := make([]int, rank-len(ext))
			for i := range pad {
				pad[i] = 1
			}
			return append(append([]int{}, pad...), ext...), append(append([]int{}, pad...), src...), nil
		}
		if len(ext) != rank {
			return nil, nil, m.fail(n, codeShape, "", "%s writes a tile %v into a tensor of rank %d", n.irop.Name, dims(tl.shape), rank)
		}
		return ext, src, nil
	}
	sh := m.ints(n.args[shapesArg])
	if len(sh) == len(tl.shape) {
		ext = make([]int, len(sh))
		for i := range sh {
			ext[i] = min(sh[i], tl.valid[i])
		}
		return ext, src, nil
	}
	// A tile of another rank: its bytes, read row-major as shapes.
	if !slices.Equal(tl.valid, tl.shape) || numElems(sh) > numElems(tl.shape) {
		return nil, nil, m.fail(n, codeShape, "", "%s shapes %v do not fit the tile %v (valid %v)", n.irop.Name, dims(sh), dims(tl.shape), dims(tl.valid))
	}
	return sh, sh, nil
}

// store is pl.store(tile, offsets, output_tensor, shapes, atomic=).
func (m *machine) store(n *node) *failure {
	tl, f := m.tileArg(n, 0)
	if f != nil {
		return f
	}
	out, f := m.ref(n, 2)
	if f != nil {
		return f
	}
	if tl.dt != out.dt {
		return m.fail(n, codeShape, "pl.cast the tile to the output's dtype first", "pl.store writes a %s tile into %s", tl.dt, out.what())
	}
	offs := m.ints(n.args[1])
	ext, src, f := m.storeExtent(n, tl, 3, len(out.shape))
	if f != nil {
		return f
	}
	if !inBounds(out.shape, offs, ext) {
		return m.boundsFail(n, "writes", offs, ext, out.what())
	}
	var acc accFunc
	if enumMember(n.irop, "atomic") == "Add" {
		acc = accumulator(out.dt)
	}
	esz := out.dt.Bytes()
	copyBlock(m.s.bytesFor(out, m.rank), out.shape, offs, tl.data, src, zeros(len(src)), ext, esz, acc)
	m.touch(n, out, m.rank, offs, ext, writeKind(acc != nil))
	bytes := numElems(ext) * esz
	m.s.stats.LocalBytes += int64(bytes)
	start := m.localMove(bytes)
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{Bytes: int64(bytes), StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// element returns the bytes, dtype and flat element index that pl.read
// and pl.write address: one index per dimension, or a single flat index.
func (m *machine) element(n *node) (data []byte, dt ir.DType, at int, what string, f *failure) {
	var shape []int
	switch x := m.eval(n.args[0]).o.(type) {
	case *tref:
		if !supported(x.dt) {
			return nil, 0, 0, "", m.fail(n, codeUnsupported, "", "%s: dtype %s is not supported by the emulator", n.irop.Name, x.dt)
		}
		data, dt, shape, what = m.s.bytesOf(x, m.rank), x.dt, x.shape, x.what()
		if n.op == opWrite {
			data = m.s.bytesFor(x, m.rank)
		}
	case *tile:
		data, dt, shape, what = x.data, x.dt, x.shape, fmt.Sprintf("tile %v %s", dims(x.shape), x.dt)
	default:
		return nil, 0, 0, "", m.fail(n, codeInternal, "", "%s argument is not a tensor or a tile", n.irop.Name)
	}
	idx := m.ints(n.args[1])
	switch {
	case len(idx) == len(shape):
		at = flatIndex(shape, idx)
	case len(idx) == 1:
		at = idx[0]
		if at < 0 || at >= numElems(shape) {
			at = -1
		}
	default:
		at = -1
	}
	if at < 0 {
		return nil, 0, 0, "", m.fail(n, codeBounds, "", "%s index %v is outside %s", n.irop.Name, dims(idx), what)
	}
	return data, dt, at, what, nil
}

// read is pl.read(src, offset).
func (m *machine) read(n *node) *failure {
	data, dt, at, _, f := m.element(n)
	if f != nil {
		return f
	}
	v := getVal(data[at*dt.Bytes():], dt)
	m.touchElem(n, at, accRead)
	if n.resDT != ir.InvalidDType && n.resDT != dt {
		v = scalarVal(v, dt, n.resDT)
	}
	m.set(n, v)
	m.s.stats.LocalBytes += int64(dt.Bytes())
	start := m.localMove(dt.Bytes())
	m.s.emit(m, n, trace.Event{Bytes: int64(dt.Bytes()), StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// write is pl.write(dst, offset, value).
func (m *machine) write(n *node) *failure {
	data, dt, at, _, f := m.element(n)
	if f != nil {
		return f
	}
	putVal(data[at*dt.Bytes():], dt, m.eval(n.args[2]), n.args[2].dt)
	m.touchElem(n, at, accWrite)
	m.s.stats.LocalBytes += int64(dt.Bytes())
	start := m.localMove(dt.Bytes())
	m.s.emit(m, n, trace.Event{Bytes: int64(dt.Bytes()), StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// cast is pl.cast(input, target_type, mode).
func (m *machine) cast(n *node) *failure {
	to := ir.InvalidDType
	if d, ok := n.irop.Attr("target_type").(ir.DTypeAttr); ok {
		to = ir.DType(d)
	}
	if !supported(to) {
		return m.fail(n, codeUnsupported, "", "pl.cast to %s is not supported by the emulator", to)
	}
	in := m.eval(n.args[0])
	t, isTile := in.o.(*tile)
	if !isTile {
		m.set(n, scalarVal(in, n.args[0].dt, to))
		m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
		return nil
	}
	mode := castRound
	switch a := n.irop.Attr("mode").(type) {
	case ir.StrAttr:
		k, ok := castModeNames[string(a)]
		if !ok {
			return m.fail(n, codeUnsupported, "modes are none, rint, round, floor, ceil, trunc and odd", "pl.cast mode %q is not known", string(a))
		}
		mode = k
	case ir.IntAttr:
		if a < 0 || a > ir.IntAttr(castOdd) {
			return m.fail(n, codeUnsupported, "", "pl.cast mode %d is not known", int64(a))
		}
		mode = castMode(a)
	}
	out := castTile(m.makeTile(n, to, t.shape, t.valid, false), t, mode)
	start := m.compute(len(out.data))
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// elementwise is pl.add and friends on a tile and a tile or scalar.
func (m *machine) elementwise(n *node) *failure {
	a, ok := m.eval(n.args[0]).o.(*tile)
	if !ok {
		return m.fail(n, codeUnsupported, "", "%s needs a tile as its first operand", n.irop.Name)
	}
	dt := a.dt
	if t, ok := n.resT.(*ir.Tile); ok {
		dt = t.DType
	}
	rv := m.eval(n.args[1])
	b, _ := rv.o.(*tile)
	if b != nil {
		if _, ok := broadcastShape(a.shape, b.shape); !ok {
			return m.fail(n, codeShape, "", "%s tiles %v and %v do not broadcast", n.irop.Name, dims(a.shape), dims(b.shape))
		}
	} else {
		// The scalar is narrowed to the tile's dtype first (pld-spec §3.3).
		rv = scalarVal(rv, n.args[1].dt, a.dt)
	}
	// acc = pl.add(acc, x) computes in place when acc's tile is held by
	// no other variable: the reduction loop of every all-reduce.
	var into *tile
	if n.args[0].k == oSlot && n.res == n.args[0].slot && dt == a.dt && !a.pinned &&
		(b == nil || slices.Equal(a.shape, b.shape)) && m.soleHolder(m.top(), n.res, a) {
		into = a
	} else {
		shape := a.shape
		if b != nil {
			shape, _ = broadcastShape(a.shape, b.shape)
		}
		into = m.makeTile(n, dt, shape, m.s.newInts(len(shape)), false)
	}
	out, ok := tileBinary(n.op, dt, a, b, rv, a.dt, into)
	if !ok {
		return m.fail(n, codeDivZero, "", "%s divides an integer tile by zero", n.irop.Name)
	}
	start := m.compute(len(out.data))
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// view is pl.tensor.view(x, shape): x reinterpreted as another packed
// row-major shape of the same element count, without a copy.
func (m *machine) view(n *node) *failure {
	t, f := m.ref(n, 0)
	if f != nil {
		return f
	}
	shape := m.ints(n.args[1])
	if numElems(shape) != t.numel() {
		return m.fail(n, codeShape, "", "pl.tensor.view of %s as %v: %d elements, want %d", t.what(), dims(shape), numElems(shape), t.numel())
	}
	v := *t
	v.shape = shape
	m.set(n, val{o: &v})
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}
