package check

import (
	"fmt"
	"sort"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// This file holds tasks in a chip orchestration, the form upstream's
// deferred-completion program writes:
//
//	with pl.manual_scope():
//	    for slot in pl.range(N):
//	        with pl.at(level=pl.Level.CORE_GROUP, name_hint="wait") as wait_tid:
//	            pld.system.defer_wait(signal=sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
//	        with pl.at(level=pl.Level.CORE_GROUP, deps=[wait_tid]):
//	            out = pl.store(pl.load(payload, [0, 0], [1, 8]), [slot, 0], out)
//
// Each pl.at(CORE_GROUP) scope is outlined into a kernel (as PyPTO's
// OutlineHierarchyScopes does) and called from the orchestration as a
// task: `as name` binds its task id, deps= names the task ids it waits
// for. pl.manual_scope ends with a task.drain (ir/task.go): the tasks
// the emulator deferred — a waiter whose kernel registers a
// pld.system.defer_wait, and its dependents — run there (emu/task.go).
// The rules mirror PyPTO's: defer_wait only in a top-level pl.at(CORE_GROUP)
// task, not with allow_early_resolve=True, only with cmp=pld.WaitCmp.Ge on
// an INT32 signal, and a waiter holds nothing but scalar bookkeeping,
// pl.read before its registrations and the registrations themselves
// (src/ir/transforms/utils/scope_outline_utils.cpp, src/ir/op/distributed/
// system.cpp).

// taskKernel is what the checker of an outlined task kernel knows of the
// scope it came from.
type taskKernel struct {
	earlyResolve bool      // allow_early_resolve=True
	registered   diag.Span // the first pld.system.defer_wait, once seen
	// other is the first operation other than pl.read, which makes the
	// task no deferred waiter (waiterOp).
	other     diag.Span
	otherPath string
}

// taskWith checks s when it is a pl.manual_scope or a task scope of a
// chip orchestration; false leaves s to withStmt.
func (fc *funcChecker) taskWith(s *syntax.WithStmt) bool {
	if len(s.Items) != 1 {
		return false
	}
	call, ok := s.Items[0].X.(*syntax.CallExpr)
	if !ok {
		return false
	}
	fv, d := meta.EvalExpr(fc.c.mod, call.Fn, fc.dsl.Env)
	b, ok := fv.(*meta.Builtin)
	if d != nil || !ok {
		return false
	}
	switch {
	case b.Path == "pl.manual_scope":
		fc.manualScope(s, call)
		return true
	case b.Path == "pl.at" && fc.level == ir.Orchestration:
		fc.outlineTask(s, call)
		return true
	}
	return false
}

// manualScope checks `with pl.manual_scope():` and closes it with a drain.
func (fc *funcChecker) manualScope(s *syntax.WithStmt, call *syntax.CallExpr) {
	switch {
	case fc.level != ir.Orchestration:
		fc.errorf(s.Pos, ErrUnsupportedStmt, "open the manual scope in the chip orchestration (@pl.function(type=pl.FunctionType.Orchestration)) whose pl.at tasks it orders",
			"pl.manual_scope in %s is not supported by the workbench", describeFunc(fc.dsl))
		return
	case fc.manual:
		fc.errorf(s.Pos, ErrUnsupportedStmt, "one manual scope holds all the tasks it orders", "a pl.manual_scope inside a pl.manual_scope is not supported by the workbench")
		return
	case len(call.Args) > 0 || s.Items[0].Target != nil:
		fc.errorf(s.Pos, ErrUnsupportedStmt, "write `with pl.manual_scope():`", "this form of pl.manual_scope is not supported by the workbench")
		return
	}
	fc.taskWarn(s.Pos)
	fc.manual = true
	fc.suite(s.Body)
	fc.manual = false
	fc.emit(&ir.Op{Name: ir.TaskDrainOp, Site: irSite(s.Pos)})
}

// taskWarn says once per program what the emulator does not model of
// task scheduling.
func (fc *funcChecker) taskWarn(sp diag.Span) {
	if fc.c.taskWarned {
		return
	}
	fc.c.taskWarned = true
	fc.errorf(sp, WarnTaskOrder, "", "the emulator runs these tasks one at a time, in an order their deps= allow: tasks with a pld.system.defer_wait, and the tasks that depend on them, run at the end of the scope, after the others; independent tasks do not overlap here, so no race between them is reported, and AIV cores are not counted")
}

// taskOpts are the options of a task's pl.at(...).
type taskOpts struct {
	nameHint     string
	deps         []ir.Operand
	earlyResolve bool
}

// taskAt reads a task scope's pl.at options; ok is false after an error.
func (fc *funcChecker) taskAt(s *syntax.WithStmt, call *syntax.CallExpr) (taskOpts, bool) {
	var o taskOpts
	level := ""
	for i, arg := range call.Args {
		name := arg.Name
		if name == "" && i == 0 {
			name = "level"
		}
		switch name {
		case "level", "name_hint", "allow_early_resolve":
			v, d := meta.EvalExpr(fc.c.mod, arg.Value, fc.dsl.Env)
			if d != nil {
				fc.errorf(arg.Value.Span(), ErrNeedConst, "", "pl.at %s must be a compile-time value", name)
				return o, false
			}
			switch name {
			case "level":
				level = meta.Repr(v)
			case "name_hint":
				if sv, ok := v.(meta.Str); ok {
					o.nameHint = sv.V
				}
			default:
				o.earlyResolve = meta.Repr(v) == "True"
			}
		case "deps":
			list, ok := arg.Value.(*syntax.ListLit)
			if !ok {
				fc.errorf(arg.Value.Span(), ErrArgKind, "write deps=[tid, ...] with the `as` names of earlier pl.at scopes", "pl.at deps= must be a list of task ids")
				return o, false
			}
			for _, e := range list.Elts {
				x := fc.expr(e)
				if x.mode == modeInvalid {
					return o, false
				}
				if _, ok := x.t.(*ir.TaskID); !ok || x.mode != modeValue {
					fc.errorf(e.Span(), ErrArgKind, "deps= lists the `as` names of earlier pl.at scopes", "pl.at deps= element is %s, want a task id", x.describe())
					return o, false
				}
				o.deps = append(o.deps, x.x)
			}
		default:
			fc.errorf(arg.Value.Span(), ErrUnsupportedStmt, "a task scope takes level=, name_hint=, deps= and allow_early_resolve=",
				"pl.at option %s in a chip orchestration is not supported by the workbench", name)
			return o, false
		}
	}
	if level != "pl.Level.CORE_GROUP" {
		fc.errorf(s.Pos, ErrUnsupportedStmt, "a chip orchestration's pl.at scopes are tasks: pl.at(level=pl.Level.CORE_GROUP)",
			"pl.at(level=%s) in a chip orchestration is not supported by the workbench", level)
		return o, false
	}
	return o, true
}

// outlineTask outlines the task scope w of a chip orchestration into a
// kernel and emits its call, with its task id and deps.
func (fc *funcChecker) outlineTask(w *syntax.WithStmt, call *syntax.CallExpr) {
	opts, ok := fc.taskAt(w, call)
	if !ok {
		return
	}
	line := w.Pos.Start.Line
	name := fmt.Sprintf("%s_task_l%d", fc.dsl.Def.Name, line)
	if opts.nameHint != "" {
		name = fmt.Sprintf("%s_%s_l%d", fc.dsl.Def.Name, opts.nameHint, line)
	}
	caps, dirs := fc.captures(w.Body)
	// Tensors first, as PyPTO's outliner passes them: a task's arguments
	// are tensors, then scalars (the runtime's TaskArgs order).
	sort.SliceStable(caps, func(i, j int) bool {
		_, si := fc.scope.vars[caps[i]].v.Type.(*ir.Scalar)
		_, sj := fc.scope.vars[caps[j]].v.Type.(*ir.Scalar)
		return !si && sj
	})
	tk := &taskKernel{earlyResolve: opts.earlyResolve}
	kfi, args, outs := fc.outlineKernel(w, name, caps, dirs, func(k *funcChecker) { k.task = tk })
	fc.c.order = append(fc.c.order, kfi)
	if tk.registered.IsValid() && !fc.manual {
		fc.taskWarn(w.Pos)
		fc.drainAtReturn = true
	}
	c := &ir.Call{Callee: kfi.fn, Args: args, Deps: opts.deps, Site: irSite(w.Pos)}
	if t := w.Items[0].Target; t != nil {
		id, ok := t.(*syntax.Ident)
		if !ok {
			fc.errorf(t.Span(), ErrAssignTarget, "", "the task id of a pl.at scope is bound to one name")
			return
		}
		c.Task = fc.temp(&ir.TaskID{})
		fc.assign(id.Name, t.Span(), &operand{mode: modeValue, t: c.Task.Type, x: c.Task, slot: &c.Task, sp: t.Span()}, nil)
	}
	if kfi.fn.Result == nil {
		fc.emit(c)
		return
	}
	c.Result = fc.temp(kfi.fn.Result)
	fc.emit(c)
	// A tensor the task stores into in place is the caller's own; only the
	// tensors the scope makes are bound anew.
	o := &operand{mode: modeValue, t: c.Result.Type, x: c.Result, slot: &c.Result, sp: w.Pos}
	for i, name := range outs {
		if dirs[name] != ir.In && contains(caps, name) {
			continue
		}
		if len(outs) == 1 {
			fc.assign(name, w.Pos, o, nil)
			continue
		}
		fc.assign(name, w.Pos, fc.tupleGet(o, kfi.fn.Result.(*ir.Tuple), i, nil, w.Pos), nil)
	}
}

// checkDeferWait checks where a pld.system.defer_wait stands and records
// the registration.
func checkDeferWait(a *opCall) {
	fc := a.fc
	switch {
	case fc.task == nil:
		a.errorf("", ErrDeferPlace, "", "pld.system.defer_wait must be in a task-level pl.at(level=pl.Level.CORE_GROUP) scope of a chip orchestration")
		return
	case fc.task.earlyResolve:
		a.errorf("", ErrDeferPlace, "drop allow_early_resolve=True: a waiter's dependents must start only after its condition holds",
			"a pl.at scope containing pld.system.defer_wait cannot use allow_early_resolve=True")
		return
	}
	if m := a.attrEnum("cmp"); m != "" && m != "Ge" {
		a.errorf("cmp", ErrDeferCmp, "", "pld.system.defer_wait only supports cmp=pld.WaitCmp.Ge, got pld.WaitCmp.%s", m)
		return
	}
	if _, d, _ := ir.ShapeOf(a.typeOf("signal")); d != ir.INT32 {
		a.errorf("signal", ErrSignalDType, "", "pld.system.defer_wait signal dtype must be INT32, got %s", d)
		return
	}
	checkSignalOffsets("signal")(a)
	if fc.task.registered.IsValid() {
		return
	}
	fc.task.registered = a.e.Pos
	if fc.task.other.IsValid() {
		fc.errorf(fc.task.other, ErrDeferAfter, "", "%s in a deferred waiter (pld.system.defer_wait at line %d): a waiter only reads scalars with pl.read and registers its conditions",
			fc.task.otherPath, a.e.Pos.Start.Line)
	}
}

// waiterOp records or refuses an operation of a task kernel: a deferred
// waiter is registration-only (PyPTO's DeferredWaitContractValidator):
// scalar bookkeeping, pl.read before its first registration, and
// pld.system.defer_wait. The kernel is never resumed when its condition
// holds, so the work that needs the signal belongs to a dependent task.
// Whether a task is a waiter shows only at its first defer_wait, so an
// earlier operation is recorded and refused there.
func (fc *funcChecker) waiterOp(k ir.OpKind, sp diag.Span, path string) {
	t := fc.task
	if t == nil || k == ir.OpDeferWait {
		return
	}
	switch {
	case t.registered.IsValid():
		fc.errorf(sp, ErrDeferAfter, "", "%s after pld.system.defer_wait (line %d): a deferred waiter ends at its registrations", path, t.registered.Start.Line)
	case k != ir.OpRead && !t.other.IsValid():
		t.other, t.otherPath = sp, path
	}
}
