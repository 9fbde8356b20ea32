package check

import (
	"fmt"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// This file checks window buffers (pld-spec §4.4): pld.alloc_window_buffer
// must be the right-hand side of a plain assignment at the host, its name
// unique in the program, in one of its two forms; pld.window views fit in
// their buffer; and every buffer is both viewed and handed to a device=
// dispatch (else it is a dead alloc).

// allocTarget is the `name = ...` an expression is the right-hand side of.
type allocTarget struct {
	name string
	span diag.Span
	call *syntax.CallExpr
}

// alloc is one pld.alloc_window_buffer of the program.
type alloc struct {
	name       string
	span       diag.Span
	bytes      ir.Dim // per rank; symbolic when not known at compile time
	windowed   bool   // some pld.window views it
	dispatched bool   // some view of it reaches a device= dispatch or a host collective
	// hostSignal is where a HOST collective first used a view of this
	// buffer as its signal, kernelWrite where the host first passed a view
	// to a dispatch as pl.InOut or pl.Out (zero Spans when none has);
	// sharedWarned says W0302 was reported for the buffer.
	hostSignal   diag.Span
	kernelWrite  diag.Span
	sharedWarned bool
	// shadowed marks a buffer whose name was reused by a later (rejected)
	// allocation: its uses are lost to that error, so it is not dead.
	shadowed bool
	// devices are the ranks its views are dispatched to, in order; world
	// is set once a dispatch reaches every rank (domains.go).
	devices []int64
	world   bool
}

// allocBytes computes the size of the buffer the call allocates.
func (a *opCall) allocBytes() ir.Dim {
	if shape, ok := a.shapes["size"]; ok {
		d, _ := dtypeFromValue(a.staticArg("dtype"))
		if n, ok := shape.NumElems(); ok && d != ir.InvalidDType {
			return ir.ConstDim(n * int64(d.Bytes()))
		}
		return ir.SymDim("?")
	}
	if o := a.args["size"]; o != nil && o.known {
		return ir.ConstDim(o.kv)
	}
	return ir.SymDim("?")
}

func (a *opCall) allocType() ir.Type { return &ir.Ptr{Bytes: a.allocBytes()} }

func checkAlloc(a *opCall) {
	fc := a.fc
	t := fc.allocTarget
	if t == nil || t.call != a.e {
		a.errorf("size", ErrAllocPlace, "",
			"pld.alloc_window_buffer must be assigned straight to a name: buf = pld.alloc_window_buffer(...)")
		return
	}
	if fc.inLoop() {
		a.errorf("size", ErrAllocPlace, "allocate once before the loop; call pld.window inside it",
			"pld.alloc_window_buffer inside a loop would allocate %s again on every iteration", t.name)
		return
	}
	if prev, dup := fc.c.allocIDs[t.name]; dup {
		fc.errorf(t.span, ErrAllocName, "", "window buffer name %s is already used at line %d", t.name, prev.span.Start.Line)
		prev.shadowed = true
		a.fail()
		return
	}
	_, shapeForm := a.shapes["size"]
	switch {
	case shapeForm && !a.given("dtype"):
		a.errorf("size", ErrAllocForm, "",
			"pld.alloc_window_buffer of a shape needs dtype=: pld.alloc_window_buffer(%s, dtype=pl.FP32)", fc.c.text(a.exprs["size"]))
		return
	case !shapeForm && a.given("dtype"):
		a.errorf("dtype", ErrAllocForm, "for a typed buffer pass its shape: pld.alloc_window_buffer([n], dtype=...)",
			"pld.alloc_window_buffer of a byte count takes no dtype=")
		return
	case !shapeForm:
		if o := a.args["size"]; o.known && o.kv <= 0 {
			a.errorf("size", ErrAllocForm, "", "pld.alloc_window_buffer size is %d bytes, want > 0", o.kv)
			return
		}
	}
	if fc.dsl.Program == nil && !checkJitAllocSize(a, shapeForm) {
		return
	}
	al := &alloc{name: t.name, span: t.span, bytes: a.allocBytes()}
	fc.c.allocs = append(fc.c.allocs, al)
	if fc.firstAlloc == nil {
		fc.firstAlloc = al
	}
	fc.c.allocIDs[t.name] = al
	a.resBuf = al
}

func windowResult(a *opCall) ir.Type {
	d, _ := dtypeFromValue(a.staticArg("dtype"))
	return &ir.DistributedTensor{Shape: a.shapeOf("shape"), DType: d}
}

func checkWindow(a *opCall) {
	al := a.args["buf"].buf
	a.resBuf = al
	if al == nil {
		return
	}
	al.windowed = true
	if a.fc.dsl.Program == nil && !checkJitWindowShape(a) {
		return
	}
	d, _ := dtypeFromValue(a.staticArg("dtype"))
	shape := a.shapeOf("shape")
	n, ok := shape.NumElems()
	if !ok || !al.bytes.IsStatic() {
		return
	}
	if need := n * int64(d.Bytes()); need > al.bytes.N {
		a.errorf("shape", ErrWindowSize, "",
			"view %s %s needs %d bytes, but %s has %d", shape, d, need, al.name, al.bytes.N)
	}
}

// checkJitAllocSize refuses a pl.dynamic dimension in the size of a
// @pl.jit host's buffer, plain or in arithmetic (NR, NR % 4, NR * 64): the
// size lowers to tensor.dim, which PyPTO's distributed codegen does not
// emit. A @pl.program host sizes buffers from them (ok/computed_window.py).
func checkJitAllocSize(a *opCall, shapeForm bool) bool {
	terms := []*operand{a.args["size"]}
	if shapeForm {
		terms = a.lists["size"]
	}
	for i, el := range terms {
		if el == nil || dimValue(el) == nil || el.known {
			continue
		}
		what := "size"
		if shapeForm {
			what = fmt.Sprintf("size dimension %d", i)
		}
		a.fc.errorf(el.sp, ErrJitDynWindow, "",
			"pld.alloc_window_buffer %s is %s, computed from a pl.dynamic dimension: a @pl.jit host cannot size a buffer from it (DistributedCodegen does not support op 'tensor.dim')",
			what, a.fc.c.text(el.expr))
		a.fail()
		return false
	}
	return true
}

// checkJitWindowShape holds PyPTO's two limits on a window's shape in a
// @pl.jit host function (pld-spec, HEAD section, ruling 12 narrowed): the
// jit specializer infers each window's tensor metadata before the world
// size exists, so a pld.world_size() extent is "missing inferred tensor
// metadata", and a pl.dynamic extent lowers to tensor.dim, which the
// distributed codegen does not emit. In @pl.program form both are fine.
func checkJitWindowShape(a *opCall) bool {
	for i, el := range a.lists["shape"] {
		switch {
		case el.mode == modeStatic && isDynVar(el.cv):
			a.fc.errorf(el.sp, ErrJitDynWindow, "",
				"pld.window shape dimension %d is the pl.dynamic dimension %s: a @pl.jit host cannot size a window from it (DistributedCodegen does not support op 'tensor.dim')",
				i, el.cv.(*meta.DynVar).Name)
			a.fail()
			return false
		case el.mode != modeStatic:
			a.fc.errorf(el.sp, ErrJitWorldWindow, "",
				"pld.window shape dimension %d is %s, computed when the program runs: a @pl.jit host needs a constant extent (missing inferred tensor metadata)",
				i, a.fc.c.text(el.expr))
			a.fail()
			return false
		}
	}
	return true
}

// checkAllocs reports dead allocs once the whole program is checked. A
// program that already has errors is not judged: a dispatch with a bad
// argument, or a view whose name became invalid, would otherwise make
// every buffer look dead.
func (c *checker) checkAllocs() {
	if c.diags.HasErrors() {
		return
	}
	for _, al := range c.allocs {
		switch {
		case al.shadowed:
		case !al.windowed:
			c.errorf(al.span, ErrDeadAlloc, "", "dead alloc: %s is never viewed with pld.window", al.name)
		case !al.dispatched:
			c.errorf(al.span, ErrDeadAlloc, "", "dead alloc: no view of %s reaches a device= dispatch", al.name)
		}
	}
}
