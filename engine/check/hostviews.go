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
	// viewOf maps a name bound to a pld.window view to its buffer's name;
	// covered lists the buffers a view of which reaches a device= dispatch
	// (the pass's comm-domain coverage), barriers the HOST barriers'
	// signal views.
	viewOf   map[string]string
	covered  map[string]bool
	barriers []viewUse
}

// viewUse is a collective operand that is a view of buffer buf.
type viewUse struct {
	buf string
	id  *syntax.Ident
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
		w := &viewWalk{c: c, notView: map[string]int{}, viewOf: map[string]string{}, covered: map[string]bool{}}
		w.stmts(fi.dsl.Def.Body)
		if c.diags.HasErrors() {
			return // the pass stops at a view error before it judges coverage
		}
		// A barrier has no data buffer to take its chips from: its signal
		// buffer must reach a chip dispatch itself (a device= dispatch
		// handed a pld.window view of it, anywhere in the function).
		for _, b := range w.barriers {
			if !w.covered[b.buf] {
				c.errorf(b.id.Pos, ErrBarrierCover, "",
					"HOST pld.tensor.barrier signal %s: no pld.window view of its buffer %s is handed to a device= dispatch, so the barrier has no comm domain (PyPTO: MaterializeCommDomainScopes)",
					b.id.Name, b.buf)
			}
		}
	}
}

func (w *viewWalk) stmts(list []syntax.Stmt) { walkFlow(w, list) }

func (w *viewWalk) facts() *map[string]int { return &w.notView }

func (w *viewWalk) assign(s *syntax.AssignStmt) {
	w.expr(s.Value)
	for _, t := range s.Targets {
		id, ok := t.(*syntax.Ident)
		if !ok {
			continue
		}
		if isCallOf(s.Value, "window") {
			delete(w.notView, id.Name)
			delete(w.viewOf, id.Name)
			if call := s.Value.(*syntax.CallExpr); len(call.Args) > 0 {
				if buf, ok := call.Args[0].Value.(*syntax.Ident); ok {
					w.viewOf[id.Name] = buf.Name
				}
			}
		} else {
			w.notView[id.Name] = id.Pos.Start.Line
			delete(w.viewOf, id.Name)
		}
	}
}

// augAssign: x += y is not looked at; neither a pld.window view nor a
// collective's result is bound that way.
func (w *viewWalk) augAssign(*syntax.AugAssignStmt) {}

func (w *viewWalk) loop(s *syntax.ForStmt) {
	// The back edge: a non-view binding in the body reaches its start.
	sub := &viewWalk{c: w.c, notView: map[string]int{}, quiet: true, viewOf: map[string]string{}, covered: map[string]bool{}}
	sub.stmts(s.Body)
	joinDead(w.notView, sub.notView)
	w.stmts(s.Body)
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
			for _, a := range call.Args {
				if a.Name == "device" {
					w.cover(call)
					break
				}
			}
			return true
		}
		if op == "barrier" && len(call.Args) > 0 {
			if id, ok := call.Args[0].Value.(*syntax.Ident); ok {
				if buf, ok := w.viewOf[id.Name]; ok {
					w.barriers = append(w.barriers, viewUse{buf: buf, id: id})
				}
			}
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

// cover records the buffers whose views the device= dispatch call hands
// its callee.
func (w *viewWalk) cover(call *syntax.CallExpr) {
	for _, a := range call.Args {
		if id, ok := a.Value.(*syntax.Ident); ok && a.Name != "device" {
			if buf, ok := w.viewOf[id.Name]; ok {
				w.covered[buf] = true
			}
		}
	}
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
