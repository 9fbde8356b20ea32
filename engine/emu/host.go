package emu

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// The host orchestrator: its inputs, window allocation, views, x[r] and
// the dispatch of ranks (pld-spec §5.1–5.3).

// Param describes one parameter of a program's host orchestrator, with
// symbolic dimensions bound to the program's rank count: what a caller
// must put in Options.Inputs or Options.Scalars.
type Param struct {
	Name   string
	Dir    ir.Dir
	DType  ir.DType
	Shape  []int // nil for a scalar
	Scalar bool
}

// HostParams lists the parameters of prog's entry in order. A symbolic
// dimension (pl.dynamic("NR")) is given the rank count, which is what
// PyPTO binds it to when the host tensor's leading dimension is the rank.
func HostParams(prog *ir.Program) []Param {
	if prog == nil || prog.Entry == nil {
		return nil
	}
	var out []Param
	for _, p := range prog.Entry.Params {
		q := Param{Name: p.Var.Name, Dir: p.Dir}
		switch t := p.Var.Type.(type) {
		case *ir.Scalar:
			q.DType, q.Scalar = t.DType, true
		default:
			shape, dt, ok := ir.ShapeOf(t)
			if !ok {
				continue
			}
			q.DType = dt
			for _, d := range shape {
				n := int(d.N)
				if !d.IsStatic() {
					n = prog.Ranks
				}
				q.Shape = append(q.Shape, n)
			}
		}
		out = append(out, q)
	}
	return out
}

// bindInputs turns Options.Inputs and Options.Scalars into the entry's
// arguments: host tensors as raw bytes, symbolic dimensions bound from the
// inputs' shapes or Options.Dims (the rank count when nothing binds them).
func (s *sim) bindInputs(opts Options) *RunError {
	entry := s.prog.Entry
	syms := map[string]int64{}
	for name, v := range opts.Dims {
		syms[name] = v
	}
	s.hostArgs = make([]val, len(entry.Params))
	s.hostTensors = make([]*hostTensor, len(entry.Params))
	bad := func(format string, args ...any) *RunError {
		return &RunError{Rank: -1, Line: entry.Span.Line, Code: codeInput, Message: fmt.Sprintf(format, args...)}
	}
	// Inputs first, so that their shapes bind the symbols Out tensors use.
	order := make([]int, len(entry.Params))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return entry.Params[order[a]].Dir != ir.Out && entry.Params[order[b]].Dir == ir.Out
	})
	for _, i := range order {
		p := entry.Params[i]
		name := p.Var.Name
		if sc, ok := p.Var.Type.(*ir.Scalar); ok {
			v, given := opts.Scalars[name]
			if !given {
				return bad("missing scalar argument %s (%s)", name, sc.DType)
			}
			s.hostArgs[i] = scalarVal(val{f: v}, anyFloat, sc.DType)
			continue
		}
		t, ok := p.Var.Type.(*ir.Tensor)
		if !ok {
			return bad("host parameter %s has type %s, which the emulator cannot pass in", name, p.Var.Type)
		}
		if !supported(t.DType) {
			return bad("host tensor %s is %s, which the emulator does not support", name, t.DType)
		}
		in := opts.Inputs[name]
		if in == nil && p.Dir != ir.Out {
			return bad("missing input tensor %s %s", name, t.Shape)
		}
		var shape []int
		if in != nil {
			if in.DType != t.DType {
				return bad("input %s is %s, want %s", name, in.DType, t.DType)
			}
			if want, ok := matchShape(t.Shape, in.Shape, syms); !ok {
				return bad("input %s has shape %v, want %s", name, dims(in.Shape), want)
			}
			if n := in.storedElems(); n != numElems(in.Shape) {
				return bad("input %s has %d values for shape %v", name, n, dims(in.Shape))
			}
			shape = append([]int(nil), in.Shape...)
		} else {
			for _, d := range t.Shape {
				n := d.N
				if !d.IsStatic() {
					// An unbound symbol is the rank count; a composite
					// dimension (M * 2) is its arithmetic on its symbols,
					// each the rank count when nothing bound it.
					for _, name := range ir.DimSymbols(d.Sym) {
						if _, ok := syms[name]; !ok {
							syms[name] = int64(s.P)
						}
					}
					v, ok := ir.DimValue(d.Sym, syms)
					if !ok || v <= 0 {
						return bad("host tensor %s has dimension %s = %d at %d ranks, want > 0", name, d.Sym, v, s.P)
					}
					n = v
				}
				shape = append(shape, int(n))
			}
		}
		elems, okSize := checkedElems(shape)
		// The tensor's bytes: the result hands them back as they are.
		want := elems * int64(t.DType.Bytes())
		if !okSize || !s.meter.Reserve(want) {
			return &RunError{Rank: -1, Line: entry.Span.Line, Code: codeMemory,
				Message: fmt.Sprintf("host tensor %s %v wants %s; the limit is %s", name, dims(shape), limits.Bytes(want), limits.Bytes(s.meter.Budget.Memory)),
				Hint:    "use smaller host tensors, or raise the limit (workbench --mem-limit)"}
		}
		ht := &hostTensor{name: name, dt: t.DType, shape: shape}
		if in != nil && p.Dir != ir.Out {
			// A byte-form input is read where it is, and copied only if
			// the program writes it (hostTensor.own).
			ht.data, ht.shared = in.bytes()
		} else {
			ht.data = make([]byte, numElems(shape)*t.DType.Bytes())
		}
		s.hostTensors[i] = ht
		s.hostArgs[i] = val{o: &tref{name: name, dt: t.DType, shape: shape, host: ht}}
	}
	// A symbol no input binds, such as NR in a signal window's shape of a
	// host without per-rank tensors, is the rank count.
	ir.Walk(entry.Body, func(st ir.Stmt) bool {
		if op, ok := st.(*ir.Op); ok {
			for _, a := range op.Args {
				bindSymRefs(a, syms, int64(s.P))
			}
		}
		return true
	})
	s.hostSyms = syms
	return nil
}

func bindSymRefs(o ir.Operand, syms map[string]int64, p int64) {
	switch o := o.(type) {
	case *ir.SymRef:
		// A composite extent (NR % 4) is computed from its symbols, never
		// bound whole.
		for _, name := range ir.DimSymbols(o.Name) {
			if _, ok := syms[name]; !ok {
				syms[name] = p
			}
		}
	case *ir.ListOp:
		for _, e := range o.Elems {
			bindSymRefs(e, syms, p)
		}
	}
}

// runHost runs the entry to its end, flushing dispatches as it goes.
func (s *sim) runHost() *failure {
	if s.prog.Entry.Level == ir.Orchestration {
		return s.runChip()
	}
	h := s.host
	h.pushFrame(s.funcs[s.prog.Entry], s.hostArgs, s.hostSyms, -1)
	for {
		n, f := h.next()
		if f != nil {
			return f
		}
		if n == nil {
			break
		}
		// Dispatches outside any loop run before the host's next statement.
		if s.pending && len(h.frames) == 1 && len(h.frames[0].cursors) == 1 && !(n.kind == nCall && n.dev.k != oNone) {
			if f := s.flush(); f != nil {
				return f
			}
		}
		s.execRank, s.execLine, s.execCol = -1, n.span.Line, n.span.Col
		if _, f := h.exec(n); f != nil {
			return f
		}
	}
	if s.pending {
		return s.flush()
	}
	return nil
}

// runChip runs a program with no host level (an L2-only program): its
// entry, a chip orchestration, runs on the one rank with the host's
// tensors as its arguments, as PyPTO's single-chip CompiledProgram calls
// it; there is no host statement before or after it.
func (s *sim) runChip() *failure {
	r := s.ranks[0]
	r.queue = append(r.queue, task{fn: s.funcs[s.prog.Entry], args: slices.Clone(s.hostArgs), syms: maps.Clone(s.hostSyms)})
	s.pending = true
	return s.flush()
}

// dispatch queues a host call with device=r on rank r.
func (m *machine) dispatch(n *node) *failure {
	d := m.intOf(n.dev)
	if d < 0 || d >= int64(m.s.P) {
		return m.fail(n, codeDevice, "dispatch each rank with device=r for r in pl.range(pld.world_size())",
			"device=%d is out of range [0, %d)", d, m.s.P)
	}
	args := make([]val, len(n.args))
	for i, a := range n.args {
		args[i] = m.eval(a)
	}
	syms, f := m.bindSyms(n)
	if f != nil {
		return f
	}
	if f := m.checkArgs(n, n.callee, args, syms); f != nil {
		return f
	}
	r := m.s.ranks[d]
	r.queue = append(r.queue, task{fn: n.callee, args: args, syms: syms})
	depth := m.loopDepth()
	if !m.s.pending || depth < m.s.pendingLoopDepth {
		m.s.pendingLoopDepth = depth
	}
	m.s.pending = true
	e := trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000}
	if m.tracing() {
		e.Peer = trace.Int(int(d))
	}
	m.s.emit(m, n, e)
	return nil
}

// alloc is pld.alloc_window_buffer(size) or (shape, dtype=): every rank's
// window grows by the buffer, padded to 32 bytes, zero-filled.
func (m *machine) alloc(n *node) *failure {
	var size int64
	if n.args[0].k == oList {
		dt := ir.InvalidDType
		if d, ok := n.irop.Attr("dtype").(ir.DTypeAttr); ok {
			dt = ir.DType(d)
		}
		size = int64(dt.Bytes())
		for _, e := range n.args[0].list {
			size *= m.intOf(e)
		}
	} else {
		size = m.intOf(n.args[0])
	}
	if size <= 0 || size > math.MaxInt32 {
		return m.fail(n, codeWindowSize, "", "pld.alloc_window_buffer of %d bytes; want a size in [1, 2^31)", size)
	}
	name := "window"
	if n.irop.Result != nil {
		name = n.irop.Result.Name
	}
	padded := (int(size) + windowAlign - 1) / windowAlign * windowAlign
	if want := int64(padded) * int64(m.s.P); !m.s.meter.Reserve(want) {
		return m.memoryFail(n, fmt.Sprintf("alloc_window_buffer wants %s across %d ranks", limits.Bytes(want), m.s.P))
	}
	b := &bufDesc{name: name, off: len(m.s.windows[0]), size: int(size), domain: allocDomain(n.irop)}
	for r, w := range m.s.windows {
		if cap(w)-len(w) < padded {
			// Not in the layout made before the run (a size only known
			// now): grow, copying what is there.
			w = slices.Grow(w, padded)
		}
		w = w[:len(w)+padded]
		clear(w[len(w)-padded:])
		m.s.windows[r] = w
	}
	m.s.bufs = append(m.s.bufs, b)
	m.set(n, val{o: b})
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}

// window is pld.window(buf, shape, dtype=): a view of every rank's copy.
func (m *machine) window(n *node) *failure {
	b, ok := m.eval(n.args[0]).o.(*bufDesc)
	if !ok {
		return m.fail(n, codeInternal, "", "pld.window of something that is not a window buffer")
	}
	dt := ir.InvalidDType
	if d, ok := n.irop.Attr("dtype").(ir.DTypeAttr); ok {
		dt = ir.DType(d)
	}
	if !supported(dt) {
		return m.fail(n, codeUnsupported, "", "pld.window dtype %s is not supported by the emulator", dt)
	}
	// The shape is built on the stack: mostly it is the buffer's last
	// view's (below), and a new view takes a copy.
	var shapeBuf [4]int
	shape := shapeBuf[:0]
	for _, e := range n.args[1].list {
		if e.k == oSym && !m.hasSym(e) {
			return m.fail(n, codeShape, "", "pld.window shape uses %s, which has no value here", e.sym)
		}
		shape = append(shape, int(m.intOf(e)))
	}
	name := b.name
	if n.irop.Result != nil {
		name = n.irop.Result.Name
	}
	// A host makes its window once per rank (pld.window in its dispatch
	// loop): a view equal to the one the buffer's last pld.window made is
	// that one (a tref is never written), so the ranks' signal ops meet
	// the view their node remembers by its address (signalFast) and one
	// view's lines, not one per rank.
	t := b.view
	if t == nil || t.name != name || t.dt != dt || !slices.Equal(t.shape, shape) {
		t = &tref{name: name, dt: dt, shape: append([]int(nil), shape...), buf: b}
		b.view = t
	}
	for _, d := range shape {
		if d <= 0 {
			return m.fail(n, codeWindowSize, "", "pld.window shape %v has an extent <= 0", dims(t.shape))
		}
	}
	if t.nbytes() > b.size {
		return m.fail(n, codeWindowSize, "allocate the buffer with the view's shape and dtype: pld.alloc_window_buffer(shape, dtype=...)",
			"pld.window %v %s needs %d bytes, but %s has %d", dims(t.shape), dt, t.nbytes(), b.name, b.size)
	}
	m.set(n, val{o: t})
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}

// index is x[i] at the host: a view of x without its leading dimension.
func (m *machine) index(n *node) *failure {
	x, ok := m.eval(n.x).o.(*tref)
	if !ok || len(x.shape) == 0 {
		return m.fail(n, codeInternal, "", "%s[...] of something that is not a tensor", n.x.name)
	}
	i := m.intOf(n.y)
	if i < 0 || i >= int64(x.shape[0]) {
		return m.fail(n, codeBounds, "", "%s[%d] is outside %s, whose leading dimension is %d", n.x.name, i, x.name, x.shape[0])
	}
	row := numElems(x.shape[1:]) * x.dt.Bytes()
	v := &tref{name: x.name + "[" + strconv.FormatInt(i, 10) + "]", dt: x.dt, shape: x.shape[1:], host: x.host, off: x.off + int(i)*row, buf: x.buf}
	if x.buf != nil {
		return m.fail(n, codeUnsupported, "", "indexing window view %s at the host is not supported", x.name)
	}
	m.set(n, val{o: v})
	return nil
}

// layoutWindows gives every rank's window, before the run, the capacity of
// the buffers the host allocates with constant sizes outside any loop (all
// of them in the lessons), so that alloc never copies a window to grow it
// (a mesh all-reduce of 1 Mi FP32 per rank copied 63 MB a run). The memory
// is charged, and zeroed, when each buffer is allocated; the capacity made
// here is untouched until then.
func (s *sim) layoutWindows() {
	total := 0
	var walk func(b []*node)
	walk = func(b []*node) {
		for _, n := range b {
			switch {
			case n.kind == nOp && n.op == opAlloc:
				if size, ok := constAllocSize(n); ok {
					total += (size + windowAlign - 1) / windowAlign * windowAlign
				}
			case n.kind == nIf:
				walk(n.body)
				walk(n.els)
			}
		}
	}
	walk(s.funcs[s.prog.Entry].body)
	if total == 0 || int64(total)*int64(s.P) > s.meter.Left() && s.meter.Left() >= 0 {
		return // nothing planned, or more than the budget allows: alloc reports it
	}
	for r := range s.windows {
		s.windows[r] = make([]byte, 0, total)
	}
}

// constAllocSize is the byte size of an alloc_window_buffer whose operands
// are all constants.
func constAllocSize(n *node) (int, bool) {
	cint := func(o opnd) (int64, bool) {
		if o.k != oConst {
			return 0, false
		}
		return o.c.integer(o.dt), true
	}
	if len(n.args) == 0 {
		return 0, false
	}
	var size int64
	if n.args[0].k == oList {
		d, ok := n.irop.Attr("dtype").(ir.DTypeAttr)
		if !ok {
			return 0, false
		}
		size = int64(ir.DType(d).Bytes())
		for _, e := range n.args[0].list {
			v, ok := cint(e)
			if !ok || v <= 0 {
				return 0, false
			}
			size *= v
		}
	} else {
		v, ok := cint(n.args[0])
		if !ok {
			return 0, false
		}
		size = v
	}
	if size <= 0 || size > math.MaxInt32 {
		return 0, false
	}
	return int(size), true
}
