package check

import (
	"pldworkbench/engine/ir"
	"pldworkbench/engine/syntax"
)

// This file holds a rule of PyPTO's MaterializeCommDomainScopes pass: at
// the host, every window operand of a collective builtin (data, target,
// signal) must be a view made by pld.window, not the value a collective
// returned ("pld.tensor.barrier signal must be produced by
// pld.tensor.window", "data/target must be a window view Var"). The pass
// finds the window buffer, and from it the devices the collective spans,
// through that view. So a back-to-back reuse views the buffer again:
//
//	sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
//	sig = pld.tensor.barrier(sig)
//	sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
//	sig = pld.tensor.barrier(sig)
//
// and a collective inside a loop may not consume what it returned on the
// previous iteration.

// hostCollectives are the builtins the rule covers, by their last path
// segment under pld.tensor.
var hostCollectives = map[string]bool{
	"allreduce": true, "barrier": true, "broadcast": true, "allgather": true,
	"reduce_scatter": true, "all_to_all": true, "all_to_all_v": true,
}

// viewWalk tracks, for each name the host function assigns, whether its
// binding is a pld.window view, and if not, the line that bound it.
type viewWalk struct {
	c       *checker
	notView map[string]int // name -> line of its non-view binding
	quiet   bool
}

// checkHostViews applies the rule to every host function the check reached.
// It runs where PyPTO's pass does, after everything else: a program that
// already has errors is not judged, since a rejected collective leaves its
// result name behind as a follow-on.
func (c *checker) checkHostViews() {
	if c.diags.HasErrors() {
		return
	}
	for _, fi := range c.order {
		if fi.level != ir.Host || fi.dsl == nil || fi.dsl.Def == nil {
			continue
		}
		w := &viewWalk{c: c, notView: map[string]int{}}
		w.stmts(fi.dsl.Def.Body)
	}
}

func (w *viewWalk) stmts(list []syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *viewWalk) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		w.expr(s.Value)
		for _, t := range s.Targets {
			id, ok := t.(*syntax.Ident)
			if !ok {
				continue
			}
			if isCallOf(s.Value, "window") {
				delete(w.notView, id.Name)
			} else {
				w.notView[id.Name] = id.Pos.Start.Line
			}
		}
	case *syntax.ExprStmt:
		w.expr(s.X)
	case *syntax.ReturnStmt:
		w.expr(s.Value)
	case *syntax.IfStmt:
		w.expr(s.Cond)
		before := copyDead(w.notView)
		w.stmts(s.Body)
		then := w.notView
		w.notView = before
		w.stmts(s.Else)
		for k, v := range then {
			if _, ok := w.notView[k]; !ok {
				w.notView[k] = v
			}
		}
	case *syntax.ForStmt:
		w.expr(s.Iter)
		// The back edge: a non-view binding in the body reaches its start.
		sub := &viewWalk{c: w.c, notView: map[string]int{}, quiet: true}
		sub.stmts(s.Body)
		for k, v := range sub.notView {
			if _, ok := w.notView[k]; !ok {
				w.notView[k] = v
			}
		}
		w.stmts(s.Body)
	case *syntax.WithStmt:
		w.stmts(s.Body)
	}
}

func (w *viewWalk) expr(e syntax.Expr) {
	if e == nil || w.quiet {
		return
	}
	syntax.Walk(e, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		op, ok := tensorOp(call.Fn)
		if !ok || !hostCollectives[op] {
			return true
		}
		for _, a := range call.Args {
			id, ok := a.Value.(*syntax.Ident)
			if !ok {
				continue
			}
			if line, bad := w.notView[id.Name]; bad {
				w.c.errorf(id.Pos, ErrHostView, "",
					"pld.tensor.%s operand %s was bound at line %d by something other than pld.window: a HOST collective needs a view of its window buffer (PyPTO: MaterializeCommDomainScopes)",
					op, id.Name, line)
			}
		}
		return true
	})
}

// tensorOp reports the operation name of a pld.tensor.NAME callee.
func tensorOp(fn syntax.Expr) (string, bool) {
	at, ok := fn.(*syntax.AttrExpr)
	if !ok {
		return "", false
	}
	mid, ok := at.X.(*syntax.AttrExpr)
	if !ok || mid.Name != "tensor" {
		return "", false
	}
	root, ok := mid.X.(*syntax.Ident)
	return at.Name, ok && root.Name == "pld"
}

// isCallOf reports whether e calls pld.NAME or pld.tensor.NAME.
func isCallOf(e syntax.Expr, name string) bool {
	call, ok := e.(*syntax.CallExpr)
	if !ok {
		return false
	}
	at, ok := call.Fn.(*syntax.AttrExpr)
	if !ok || at.Name != name {
		return false
	}
	switch x := at.X.(type) {
	case *syntax.Ident:
		return x.Name == "pld"
	case *syntax.AttrExpr:
		id, ok := x.X.(*syntax.Ident)
		return ok && id.Name == "pld" && x.Name == "tensor"
	}
	return false
}
