package check

import (
	"fmt"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// This file holds `with pl.at(...)` scopes in a host orchestrator, in the
// form upstream's programs write all levels inline:
//
//	with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
//	    with pl.at(level=pl.Level.CORE_GROUP):
//	        out = pl.add(a, b)
//	        out_sum = pl.assemble(sum_buf, out, [0, 0])
//
// PyPTO's OutlineHierarchyScopes pass outlines each CORE_GROUP scope into
// an InCore kernel and each CHIP scope into a chip orchestration that calls
// them; the host calls the orchestration. The checker does the same: a
// kernel per inner scope, whose parameters are the host names the body
// reads (the ones it assembles or stores into are InOut), whose results
// are the tensors the body names, bound again at the host after the scope.
// PyPTO's runtime places an outlined chip task on any chip; the emulator
// runs it on device 0 and says so when the program has more than one rank.

// atArgs are the level and role a pl.at(...) names.
type atArgs struct {
	level, role string
}

// atCall reads `pl.at(level=..., role=...)`; ok is false when e is not a
// call of pl.at.
func (fc *funcChecker) atCall(e syntax.Expr) (atArgs, bool) {
	call, ok := e.(*syntax.CallExpr)
	if !ok {
		return atArgs{}, false
	}
	fv, d := meta.EvalExpr(fc.c.mod, call.Fn, fc.dsl.Env)
	if d != nil {
		return atArgs{}, false
	}
	if b, ok := fv.(*meta.Builtin); !ok || b.Path != "pl.at" {
		return atArgs{}, false
	}
	var a atArgs
	for i, arg := range call.Args {
		name := arg.Name
		if name == "" {
			name = [2]string{"level", "role"}[min(i, 1)]
		}
		if name != "level" && name != "role" {
			a.role += " " + name // any other option: not the modelled form
			continue
		}
		v, d := meta.EvalExpr(fc.c.mod, arg.Value, fc.dsl.Env)
		if d != nil {
			continue
		}
		switch name {
		case "level":
			a.level = meta.Repr(v)
		case "role":
			a.role = meta.Repr(v) + a.role
		}
	}
	return a, true
}

// withStmt checks a with statement: a host orchestrator's pl.at(CHIP)
// scope of pl.at(CORE_GROUP) scopes, or an error saying what is not
// modelled.
func (fc *funcChecker) withStmt(s *syntax.WithStmt) {
	unsupported := func(sp diag.Span, what string) {
		fc.errorf(sp, ErrUnsupportedStmt, "write the kernels as @pl.function(type=pl.FunctionType.InCore) and call them from a chip orchestration",
			"%s is not supported by the workbench", what)
	}
	if fc.taskWith(s) {
		return
	}
	if len(s.Items) != 1 {
		fc.errorf(s.Pos, ErrUnsupportedStmt, "", "with is not allowed in a DSL function")
		return
	}
	chip, ok := fc.atCall(s.Items[0].X)
	if !ok {
		fc.errorf(s.Pos, ErrUnsupportedStmt, "", "with is not allowed in a DSL function")
		return
	}
	if fc.level != ir.Host || chip.level != "pl.Level.CHIP" || chip.role != "pl.Role.Orchestrator" || s.Items[0].Target != nil || fc.depth > 0 {
		unsupported(s.Pos, "this pl.at scope (the workbench models pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator) at the top of a host orchestrator, holding pl.at(level=pl.Level.CORE_GROUP) scopes)")
		return
	}
	var inner []*syntax.WithStmt
	for _, st := range s.Body {
		w, ok := st.(*syntax.WithStmt)
		if !ok || len(w.Items) != 1 || w.Items[0].Target != nil {
			unsupported(st.Span(), "a statement in a pl.at(CHIP) scope other than a pl.at(level=pl.Level.CORE_GROUP) scope")
			return
		}
		core, ok := fc.atCall(w.Items[0].X)
		if !ok || core.level != "pl.Level.CORE_GROUP" || core.role != "" {
			unsupported(w.Pos, "this pl.at scope inside pl.at(CHIP) (the workbench models pl.at(level=pl.Level.CORE_GROUP) with no options)")
			return
		}
		inner = append(inner, w)
	}
	for _, w := range inner {
		fc.outlineCore(s, w)
	}
}

// outlineCore outlines one CORE_GROUP scope w of the CHIP scope chip into
// a kernel and its chip orchestration, and emits the host's call.
func (fc *funcChecker) outlineCore(chip, w *syntax.WithStmt) {
	line := w.Pos.Start.Line
	caps, dirs := fc.captures(w.Body)
	kfi, hostArgs, outs := fc.outlineKernel(w, fmt.Sprintf("%s_core_l%d", fc.dsl.Def.Name, line), caps, dirs, nil)

	if fc.c.opts.Ranks > 1 && !fc.c.atWarned {
		fc.c.atWarned = true
		fc.errorf(chip.Pos, WarnAtPlacement, "", "the pl.at(CHIP) scopes run on device 0 here; PyPTO's runtime places each outlined chip task on any of the %d chips", fc.c.opts.Ranks)
	}
	fc.chipTask(chip.Pos, w.Pos, fmt.Sprintf("%s_chip_l%d", fc.dsl.Def.Name, line), kfi, hostArgs, outs)
}

// chipTask wraps the outlined kernel kfi in a chip orchestration called
// name that forwards its parameters, dispatches it on device 0 with the
// host's arguments, and binds the kernel's results to the host names outs.
func (fc *funcChecker) chipTask(chipPos, corePos diag.Span, name string, kfi *funcInfo, hostArgs []ir.Operand, outs []string) {
	ofi := &funcInfo{level: ir.Orchestration, sigOK: true, state: stateDone}
	ofi.fn = &ir.Func{Name: name, Level: ir.Orchestration, Span: irSpan(chipPos), Body: &ir.Block{}, Result: kfi.fn.Result}
	kcall := &ir.Call{Callee: kfi.fn, Site: irSite(corePos)}
	for _, p := range kfi.fn.Params {
		op := &ir.Param{Var: &ir.Var{Name: p.Var.Name, Type: p.Var.Type}, Dir: p.Dir}
		ofi.fn.Params = append(ofi.fn.Params, op)
		kcall.Args = append(kcall.Args, op.Var)
	}
	if kfi.fn.Result != nil {
		kcall.Result = &ir.Var{Name: "%0", Type: kfi.fn.Result, Temp: true}
	}
	ofi.fn.Body.Add(kcall)
	ret := &ir.Return{Site: irSite(chipPos)}
	if kcall.Result != nil {
		ret.Value = kcall.Result
	}
	ofi.fn.Body.Add(ret)
	fc.c.order = append(fc.c.order, kfi, ofi)

	call := &ir.Call{Callee: ofi.fn, Args: hostArgs, Device: ir.IntConst(0, ir.INDEX), Site: irSite(chipPos)}
	if kfi.fn.Result == nil {
		fc.emit(call)
		return
	}
	res := fc.temp(kfi.fn.Result)
	call.Result = res
	fc.emit(call)
	o := &operand{mode: modeValue, t: res.Type, x: res, slot: &call.Result, sp: corePos}
	if len(outs) == 1 {
		fc.assign(outs[0], corePos, o, nil)
		return
	}
	for i, name := range outs {
		fc.assign(name, corePos, fc.tupleGet(o, kfi.fn.Result.(*ir.Tuple), i, nil, corePos), nil)
	}
}

// outlineKernel checks the body of the pl.at(CORE_GROUP) scope w as the
// kernel name whose parameters are caps (directions dirs), setup preparing
// the kernel's checker; it returns the kernel, the caller's arguments and
// the names of the tensors the scope yields, the kernel's results.
func (fc *funcChecker) outlineKernel(w *syntax.WithStmt, name string, caps []string, dirs map[string]ir.Dir, setup func(*funcChecker)) (*funcInfo, []ir.Operand, []string) {
	line := w.Pos.Start.Line
	kfi := &funcInfo{level: ir.InCore, sigOK: true, state: stateChecking}
	kfi.fn = &ir.Func{Name: name, Level: ir.InCore, Span: irSpan(w.Pos), Body: &ir.Block{}}
	var hostArgs []ir.Operand
	for _, name := range caps {
		b := fc.scope.vars[name]
		kfi.fn.Params = append(kfi.fn.Params, &ir.Param{Var: &ir.Var{Name: name, Type: b.v.Type}, Dir: dirs[name]})
		hostArgs = append(hostArgs, b.v)
		if b.buf != nil { // a window the outlined chip task receives, as a dispatch's argument
			b.buf.dispatched = true
			if dirs[name] != ir.In {
				fc.kernelWrites(b.buf, w.Pos, "the pl.at scope at line "+fmt.Sprint(line))
			}
		}
	}
	kfc := newFuncChecker(fc.c, kfi)
	kfc.dsl = fc.dsl // the body's names and errors are the host's
	if setup != nil {
		setup(kfc)
	}
	kfc.suite(w.Body)
	// The scope's results: the tensors it names, in order of assignment.
	var outs []string
	var outVars []ir.Operand
	var outTypes []ir.Type
	for _, name := range scopeResults(w.Body) {
		b, ok := kfc.scope.vars[name]
		if !ok || b.v == nil {
			continue
		}
		if _, _, tensor := ir.ShapeOf(b.v.Type); !tensor {
			continue
		}
		if _, tile := b.v.Type.(*ir.Tile); tile {
			continue
		}
		outs, outVars, outTypes = append(outs, name), append(outVars, b.v), append(outTypes, b.v.Type)
	}
	switch len(outs) {
	case 0:
		kfc.emit(&ir.Return{Site: irSite(w.Pos)})
	case 1:
		kfi.fn.Result = outTypes[0]
		kfc.emit(&ir.Return{Value: outVars[0], Site: irSite(w.Pos)})
	default:
		t := &ir.Tuple{Elems: outTypes}
		kfi.fn.Result = t
		res := kfc.temp(t)
		kfc.emit(&ir.Op{Name: ir.TupleMakeOp, Args: outVars, Result: res, Site: irSite(w.Pos)})
		kfc.emit(&ir.Return{Value: res, Site: irSite(w.Pos)})
	}
	kfc.finish()
	kfi.state = stateDone

	return kfi, hostArgs, outs
}

// captures lists the host names body reads, in order of first use, that
// hold run-time tensors or scalars; the ones it assembles or stores into
// are InOut (PyPTO's outliner classifies them so).
func (fc *funcChecker) captures(body []syntax.Stmt) ([]string, map[string]ir.Dir) {
	var names []string
	dirs := map[string]ir.Dir{}
	local := map[string]bool{}
	read := func(root syntax.Node) {
		syntax.Walk(root, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CallExpr:
				var target syntax.Expr
				switch fc.c.text(n.Fn) {
				case "pl.assemble", "pl.tensor.assemble":
					if len(n.Args) > 0 {
						target = n.Args[0].Value
					}
				case "pl.store":
					if len(n.Args) > 2 {
						target = n.Args[2].Value
					}
				}
				if id, ok := target.(*syntax.Ident); ok && !local[id.Name] {
					dirs[id.Name] = ir.InOut
				}
			case *syntax.Ident:
				b, ok := fc.scope.vars[n.Name]
				if ok && b.v != nil && !local[n.Name] && !contains(names, n.Name) {
					switch b.v.Type.(type) {
					case *ir.Tensor, *ir.DistributedTensor, *ir.Scalar:
						names = append(names, n.Name)
					}
				}
			}
			return true
		})
	}
	for _, st := range body {
		if a, ok := st.(*syntax.AssignStmt); ok && a.Value != nil {
			read(a.Value)
			for _, t := range a.Targets {
				for _, name := range targetNames(t) {
					local[name] = true
				}
			}
			continue
		}
		read(st)
	}
	for n := range dirs {
		if !contains(names, n) {
			delete(dirs, n)
		}
	}
	return names, dirs
}

// targetNames lists the plain names an assignment target binds, in order.
func targetNames(t syntax.Expr) []string {
	switch t := t.(type) {
	case *syntax.Ident:
		return []string{t.Name}
	case *syntax.TupleLit:
		var out []string
		for _, e := range t.Elts {
			out = append(out, targetNames(e)...)
		}
		return out
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scopeResults lists the names body assigns, in order of first
// assignment.
func scopeResults(body []syntax.Stmt) []string {
	var out []string
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			if a, ok := n.(*syntax.AssignStmt); ok {
				for _, t := range a.Targets {
					for _, name := range targetNames(t) {
						if !contains(out, name) {
							out = append(out, name)
						}
					}
				}
			}
			return true
		})
	}
	return out
}
