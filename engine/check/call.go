package check

import (
	"fmt"
	"strings"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// compileTimeCalls are library functions a DSL body may call on
// compile-time arguments; they run in meta like any Python call.
var compileTimeCalls = map[string]bool{"pl.dynamic": true}

// call checks a call expression: a pl/pld operation, a dispatch of another
// DSL function, or a compile-time call (pl.FP32.get_byte(), a helper on
// constants) folded by meta.
func (fc *funcChecker) call(e *syntax.CallExpr) *operand {
	if op, ok := fc.synth[e]; ok {
		return fc.opCall(lookupOp(op), op, e)
	}
	if path, ok := fc.libPath(e.Fn); ok {
		if o, done := fc.tensorLevelCall(path, e); done {
			return o
		}
		if spec := lookupOp(path); spec != nil {
			return fc.opCall(spec, path, e)
		}
		if path == "pl.range" {
			fc.errorf(e.Pos, ErrForIter, "", "pl.range(...) only drives a for loop")
			return invalidOp(e)
		}
		if isDSLNamespace(path) && !compileTimeCalls[path] {
			if v, d := meta.EvalExpr(fc.c.mod, e.Fn, fc.dsl.Env); d != nil || isBuiltin(v) {
				fc.unknownOp(path, e.Fn.Span())
				return invalidOp(e)
			}
		}
	}
	fn := fc.expr(e.Fn)
	switch fn.mode {
	case modeInvalid:
		return invalidOp(e)
	case modeStatic:
		switch v := fn.cv.(type) {
		case *meta.DSLFunc:
			return fc.dispatch(v, e)
		case *meta.Func:
			if v.SubWorker {
				return fc.subWorkerCall(v, e)
			}
		case *meta.Builtin:
			if isDSLNamespace(v.Path) && !compileTimeCalls[v.Path] {
				if spec := lookupOp(v.Path); spec != nil {
					return fc.opCall(spec, v.Path, e)
				}
				fc.unknownOp(v.Path, e.Fn.Span())
				return invalidOp(e)
			}
		}
		return fc.staticCall(fn, e)
	}
	fc.errorf(e.Fn.Span(), ErrNotCallable, "", "%s is not callable", fn.describe())
	return invalidOp(e)
}

func isBuiltin(v meta.Value) bool {
	_, ok := v.(*meta.Builtin)
	return ok
}

// isDSLNamespace reports whether path is under pl or pld.
func isDSLNamespace(path string) bool {
	return strings.HasPrefix(path, "pl.") || strings.HasPrefix(path, "pld.")
}

// libPath resolves an attribute chain rooted at a library symbol (pld,
// pl, or anything imported from them) to its dotted path without
// evaluating it: pld.system.notify → "pld.system.notify", even when the
// symbol does not exist.
func (fc *funcChecker) libPath(e syntax.Expr) (string, bool) {
	var names []string
	for {
		switch x := e.(type) {
		case *syntax.AttrExpr:
			names = append(names, x.Name)
			e = x.X
			continue
		case *syntax.ParenExpr:
			e = x.X
			continue
		case *syntax.Ident:
			if _, local := fc.scope.vars[x.Name]; local || len(names) == 0 {
				return "", false
			}
			v, ok := fc.dsl.Env.Lookup(x.Name)
			if !ok {
				return "", false
			}
			b, ok := v.(*meta.Builtin)
			if !ok || !(b.Path == "pl" || b.Path == "pld" || isDSLNamespace(b.Path)) {
				return "", false
			}
			path := b.Path
			for i := len(names) - 1; i >= 0; i-- {
				path += "." + names[i]
			}
			return path, true
		}
		return "", false
	}
}

// staticCall folds a call whose callee and arguments are all compile-time
// values (pl.FP32.get_byte(), min(nr, 4), a plain helper function).
func (fc *funcChecker) staticCall(fn *operand, e *syntax.CallExpr) *operand {
	for _, a := range e.Args {
		o := fc.expr(a.Value)
		if o.invalid() {
			return invalidOp(e)
		}
		if o.mode != modeStatic {
			fc.errorf(o.sp, ErrNotCallable, "a plain Python function runs while compiling and only sees constants; to run it on the device, decorate it (@pl.jit.incore, @pl.jit, or @pl.function(...))",
				"%s runs at compile time and cannot take %s", fc.c.text(e.Fn), o.describe())
			return invalidOp(e)
		}
	}
	v, d := meta.EvalExpr(fc.c.mod, e, fc.dsl.Env)
	if d != nil {
		fc.c.report(*d)
		return invalidOp(e)
	}
	return staticOp(v, e)
}

// dispatch checks a call of another DSL function: the level rules, device=,
// and the arguments against the callee's annotated parameters.
func (fc *funcChecker) dispatch(d *meta.DSLFunc, e *syntax.CallExpr) *operand {
	callee := fc.c.instantiate(d, e.Pos)
	if callee.state == stateChecking {
		return invalidOp(e) // recursion, reported by instantiate
	}
	var device *syntax.Arg
	var args []syntax.Arg
	for i := range e.Args {
		if e.Args[i].Name == "device" {
			device = &e.Args[i]
			continue
		}
		args = append(args, e.Args[i])
	}
	caller, target := fc.level, callee.level
	levelOK := true
	switch {
	case caller == ir.Host && target == ir.Orchestration:
		if device == nil && fc.c.opts.Ranks != 1 {
			fc.errorf(e.Rparen, ErrMissingDevice, "", "host dispatch of %s has no device=", describeFunc(d))
		}
	case caller == ir.Host && target == ir.InCore:
		fc.errorf(e.Fn.Span(), ErrHostCallsKern, "",
			"host orchestrator %q dispatches %s directly", fc.dsl.Def.Name, describeFunc(d))
		levelOK = false
	case caller == ir.Orchestration && target == ir.InCore:
		if device != nil {
			fc.errorf(device.NamePos, ErrDeviceKwarg, "the orchestration function already runs on its device",
				"device= on a call of %s", describeFunc(d))
		}
	default:
		fc.errorf(e.Fn.Span(), ErrCallLevel, "", "%s cannot call %s", describeFunc(fc.dsl), describeFunc(d))
		levelOK = false
	}

	params := callee.fn.Params
	bound := make([]*operand, len(params))
	ok, arityOK := true, true
	npos := 0
	for _, a := range args {
		if a.Star || a.DoubleStar {
			fc.errorf(a.Value.Span(), ErrArgCount, "pass each argument by itself", "%s in a DSL call", argLabel(a))
			ok = false
			continue
		}
		o := fc.expr(a.Value)
		idx := -1
		if a.Name == "" {
			if npos < len(params) {
				idx = npos
			} else {
				fc.errorf(a.Value.Span(), ErrArgCount, "", "%s takes %s, got more", describeFunc(d),
					plural(len(params), "argument", "arguments"))
				ok, arityOK = false, false
			}
			npos++
		} else {
			for i, p := range params {
				if p.Var.Name == a.Name {
					idx = i
				}
			}
			switch {
			case idx < 0:
				fc.errorf(a.NamePos, ErrBadKeyword, "", "%s has no parameter %s", describeFunc(d), a.Name)
				ok = false
			case bound[idx] != nil:
				fc.errorf(a.NamePos, ErrBadKeyword, "", "%s gets parameter %s twice", describeFunc(d), a.Name)
				ok = false
				idx = -1
			}
		}
		if idx >= 0 {
			bound[idx] = o
		}
		if o.invalid() {
			ok = false
		}
	}
	for i, p := range params {
		if bound[i] == nil && ok {
			fc.errorf(e.Rparen, ErrMissingArg, "", "%s is missing argument %s", describeFunc(d), p.Var.Name)
			ok, arityOK = false, false
		}
	}
	var dev ir.Operand
	if device == nil && caller == ir.Host && target == ir.Orchestration && fc.c.opts.Ranks == 1 {
		// A single-chip L3 program (device_ids=[d]) dispatches its one
		// chip without device=: the only device there is.
		dev = ir.IntConst(0, ir.INDEX)
	}
	var devs []int64 // the devices the dispatch reaches; nil for every rank
	if device != nil {
		dv := fc.expr(device.Value)
		if caller == ir.Host && target == ir.Orchestration && !dv.invalid() {
			dev = fc.deviceOperand(dv)
			devs = fc.dispatchDevices(dv)
		}
	}

	call := &ir.Call{Callee: callee.fn, Site: irSite(e.Pos)}
	binds := map[string]ir.Dim{}
	bindAt := map[string]string{}
	for i, p := range params {
		o := bound[i]
		if o == nil || o.invalid() || !arityOK {
			continue
		}
		x, good := fc.callArg(d, callee, p, o, binds, bindAt)
		if !good {
			ok = false
			continue
		}
		call.Args = append(call.Args, x)
		if _, arr := p.Var.Type.(*ir.Array); arr && fc.level == ir.Host {
			// PyPTO's host codegen has no worker argument for an array.
			fc.errorf(o.sp, ErrHostArrayArg, "", "%s passes pl.Array %s to %s: a host dispatch carries tensors and scalars, not arrays",
				describeFunc(fc.dsl), p.Var.Name, describeFunc(d))
		} else if arr {
			fc.errorf(o.sp, WarnArrayArg, "", "%s passes pl.Array %s to %s, which PyPTO compiles but cannot yet hand to the kernel",
				describeFunc(fc.dsl), p.Var.Name, describeFunc(d))
		}
		if fc.level == ir.Host && o.buf != nil {
			o.buf.dispatched = true
			o.buf.addDevices(devs)
			if p.Dir != ir.In && mayWriteParam(callee.fn, i) {
				fc.kernelWrites(o.buf, o.sp, describeFunc(d))
			}
		}
	}
	if !ok || !levelOK || !callee.sigOK || callee.state == stateChecking {
		if callee.fn.Result != nil || callee.state == stateChecking {
			return invalidOp(e)
		}
		return &operand{mode: modeNoValue, expr: e, sp: e.Pos}
	}
	call.Device = dev
	for sym, dim := range binds {
		call.Binds = append(call.Binds, ir.Bind{Sym: sym, Dim: dim})
	}
	sortBinds(call.Binds)
	if callee.fn.Result == nil {
		fc.emit(call)
		return &operand{mode: modeNoValue, expr: e, sp: e.Pos}
	}
	res := fc.temp(callee.fn.Result)
	call.Result = res
	fc.emit(call)
	return &operand{mode: modeValue, t: res.Type, x: res, slot: &call.Result, expr: e, sp: e.Pos}
}

// callArg checks one argument of a dispatch against its parameter and
// returns the IR operand to pass. Symbolic dimensions of the parameter bind
// to the argument's extents in binds.
func (fc *funcChecker) callArg(d *meta.DSLFunc, callee *funcInfo, p *ir.Param, o *operand, binds map[string]ir.Dim, bindAt map[string]string) (ir.Operand, bool) {
	want := p.Var.Type
	if _, bad := want.(*ir.Invalid); bad {
		return nil, false
	}
	bad := func(hint, format string, args ...any) (ir.Operand, bool) {
		fc.errorf(o.sp, ErrCallArg, hint, format, args...)
		return nil, false
	}
	label := fmt.Sprintf("argument %s of %s", p.Var.Name, d.Def.Name)
	if o.mode != modeValue {
		x, dt, ok := o.scalar()
		ws, wantScalar := want.(*ir.Scalar)
		if !ok || !wantScalar {
			return bad("", "%s is %s, want %s", label, o.describe(), describeType(want))
		}
		if dt.IsFloat() && !ws.DType.IsFloat() || dt == ir.BOOL && ws.DType != ir.BOOL {
			return bad("", "%s is %s, want %s", label, o.describe(), describeType(want))
		}
		return convertConst(x.(*ir.Const), ws.DType), true
	}
	got := o.t
	switch w := want.(type) {
	case *ir.Scalar:
		if !ir.Compatible(w, got) {
			return bad("", "%s is %s, want %s", label, describeType(got), describeType(want))
		}
		return o.x, true
	case *ir.Tensor, *ir.DistributedTensor, *ir.Tile:
		ws, wd, _ := ir.ShapeOf(want)
		gs, gd, gok := ir.ShapeOf(got)
		if !gok || kindName(want) != kindName(got) {
			hint := ""
			switch got.(type) {
			case *ir.Tensor:
				if _, isDT := want.(*ir.DistributedTensor); isDT {
					hint = "pass a window view made with pld.window(buf, shape, dtype=...)"
				}
			case *ir.DistributedTensor:
				if _, isT := want.(*ir.Tensor); isT {
					hint = "a window view is a pld.DistributedTensor: annotate the parameter that way"
				}
			}
			return bad(hint, "%s is %s, want %s", label, describeType(got), describeType(want))
		}
		if gd != wd {
			return bad("", "%s has dtype %s, want %s", label, gd, wd)
		}
		if fc.level == ir.Host && ir.WindowReshapes(want, got) {
			// The kernel reads the view's buffer in its own shape, as PyPTO
			// passes it (domains.go); one past the buffer fails at run time.
			return o.x, true
		}
		if len(gs) != len(ws) {
			return bad("", "%s has shape %s, want %s", label, gs, ws)
		}
		for i := range ws {
			wdim, gdim := ws[i], gs[i]
			switch {
			case !wdim.IsStatic():
				if prev, ok := binds[wdim.Sym]; ok && prev.IsStatic() && gdim.IsStatic() && prev.N != gdim.N {
					return bad("one dynamic dimension has one extent per call",
						"%s binds %s to %d, but %s bound it to %d", label, wdim.Sym, gdim.N, bindAt[wdim.Sym], prev.N)
				}
				if _, ok := binds[wdim.Sym]; !ok && gdim != wdim {
					binds[wdim.Sym], bindAt[wdim.Sym] = gdim, p.Var.Name
				}
			case gdim.IsStatic() && gdim.N != wdim.N:
				return bad("", "%s has shape %s, want %s", label, gs, ws)
			}
		}
		return o.x, true
	}
	if !ir.Identical(want, got) {
		return bad("", "%s is %s, want %s", label, describeType(got), describeType(want))
	}
	return o.x, true
}

// deviceOperand checks device= of a host dispatch: a constant rank in
// [0, P), or the variable of a pl.range loop over exactly the P ranks.
func (fc *funcChecker) deviceOperand(o *operand) ir.Operand {
	p := int64(fc.c.opts.Ranks)
	x, dt, ok := o.scalar()
	if !ok || !dt.IsInt() {
		fc.errorf(o.sp, ErrDeviceValue, "", "device= must be a rank number, got %s", o.describe())
		return nil
	}
	if o.known {
		if o.kv < 0 || o.kv >= p {
			fc.errorf(o.sp, ErrDeviceValue, "", "device=%d is not a rank of this %d-rank program (ranks 0..%d)", o.kv, p, p-1)
		}
		return x
	}
	li := o.loop
	if li != nil && x != ir.Operand(li.v) {
		// A name bound to the loop variable (d = r) is another variable
		// to PyPTO, which infers devices from the loop variable itself.
		li = nil
	}
	if li != nil && li.broken {
		return x // its pl.range already has an error
	}
	if !isName(o.expr) {
		fc.errorf(o.sp, ErrDeviceValue, "name the rank first: d = "+fc.c.text(o.expr)+", then device=d",
			"device=%s is an expression: PyPTO's host codegen takes device= as a constant rank or a variable", fc.c.text(o.expr))
		return x
	}
	if li == nil || !li.known {
		// PyPTO dispatches to any run-time rank number; only a host that
		// allocates window buffers needs device= it can read (domains.go).
		fc.looseDevices = append(fc.looseDevices, looseDevice{sp: o.sp, text: fc.c.text(o.expr), loop: li})
		return x
	}
	if li.countChecked {
		return x
	}
	li.countChecked = true
	trip := li.trip()
	if trip > 0 {
		lo, hi := min(li.start, li.last()), max(li.start, li.last())
		if lo < 0 || hi >= p {
			bad := hi
			if lo < 0 {
				bad = lo
			}
			fc.errorf(o.sp, ErrDeviceValue, "", "device=%s reaches rank %d, but the program runs on %d ranks (0..%d)",
				fc.c.text(o.expr), bad, p, p-1)
			return x
		}
	}
	fc.checkDeviceStep(o) // a loop over some of the ranks dispatches a device subset (domains.go)
	return x
}

// subWorkerCall checks a host's call of a pl.Role.SubWorker callback.
// PyPTO runs it on the host between dispatches as plain Python; the
// checker checks the arguments (the DSL values it is handed) and emits
// nothing, and says so: the run does not execute it.
func (fc *funcChecker) subWorkerCall(f *meta.Func, e *syntax.CallExpr) *operand {
	if fc.level != ir.Host {
		fc.errorf(e.Fn.Span(), ErrLevel, "call it from the host orchestrator",
			"SubWorker callback %s is called from %s; only the host runs it", f.Def.Name, describeFunc(fc.dsl))
		return invalidOp(e)
	}
	var args []*operand
	for _, a := range e.Args {
		o := fc.expr(a.Value)
		if o.invalid() {
			return invalidOp(e)
		}
		if a.Name == "" {
			args = append(args, o)
		}
	}
	o, why := fc.runSubWorker(f, e, args) // subworker.go
	if why == "" {
		return o
	}
	fc.errorf(e.Fn.Span(), WarnSubWorker, "",
		"SubWorker callback %s is plain Python that PyPTO runs on the host; the emulator does not run it (it uses %s, outside the elementwise subset the workbench runs)", f.Def.Name, why)
	if o := fc.subWorkerResult(f, args); o != nil {
		return o
	}
	return &operand{mode: modeNoValue, expr: e, sp: e.Pos}
}

// subWorkerResult is the value of a callback declared to return a tensor:
// PyPTO's callbacks write a pl.Out parameter and return it (f[:] = ...;
// return f), so the result is the argument passed there, holding what the
// run left in it, since the callback is not run. nil when the callback
// declares no result or has no such parameter.
func (fc *funcChecker) subWorkerResult(f *meta.Func, args []*operand) *operand {
	if f.Def.Result == nil {
		return nil
	}
	want, _, ok := fc.c.annotation(f.Def.Result, f.Env, false)
	if !ok {
		return nil
	}
	for i, p := range f.Def.Params {
		if i >= len(args) || p.Annotation == nil {
			break
		}
		t, dir, ok := fc.c.annotation(p.Annotation, f.Env, true)
		if ok && dir != ir.In && ir.Compatible(want, t) && args[i].mode == modeValue && ir.Compatible(want, args[i].t) {
			o := *args[i]
			o.slot = nil
			return &o
		}
	}
	return nil
}
