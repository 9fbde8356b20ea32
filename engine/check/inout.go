package check

import (
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// This file holds PyPTO's InOut use discipline (its InOutUseDiscipline
// check, run on every function before the dependency analysis): a
// variable passed as pl.InOut or pl.Out to a call of a DSL function is
// dead for reads from the call on, until it is assigned again. The call
// wrote the tensor and returned it, so later code reads the result
// (y = self.kernel(x, y)), never the name from before the call. Branches
// are joined (dead after the if when dead in either branch); a loop body's
// kills are dead at its start too, because the next iteration sees them.

// inoutWalk is the state of the discipline over one function body.
type inoutWalk struct {
	c        *checker
	fi       *funcInfo
	dead     map[string]int // name -> line of the call that passed it
	reported map[string]bool
}

// checkInOutUse applies the discipline to every function the check reached.
func (c *checker) checkInOutUse() {
	for _, fi := range c.order {
		if fi.dsl == nil || fi.dsl.Def == nil {
			continue
		}
		w := &inoutWalk{c: c, fi: fi, dead: map[string]int{}, reported: map[string]bool{}}
		w.stmts(fi.dsl.Def.Body)
	}
}

func (w *inoutWalk) stmts(list []syntax.Stmt) { walkFlow(w, list) }

func (w *inoutWalk) facts() *map[string]int { return &w.dead }

func (w *inoutWalk) assign(s *syntax.AssignStmt) {
	w.expr(s.Value)
	for _, t := range s.Targets {
		w.define(t)
	}
}

func (w *inoutWalk) augAssign(s *syntax.AugAssignStmt) {
	w.expr(s.Value)
	w.expr(s.Target)
	w.define(s.Target)
}

func (w *inoutWalk) loop(s *syntax.ForStmt) {
	// The back edge: what the body kills is dead when it starts again.
	sub := &inoutWalk{c: w.c, fi: w.fi, dead: map[string]int{}, reported: map[string]bool{"": true}}
	sub.quiet(s.Body)
	carried := names(s.Target)
	for k := range carried {
		delete(sub.dead, k)
	}
	joinDead(w.dead, sub.dead)
	w.define(s.Target)
	w.stmts(s.Body)
	for k := range carried {
		delete(w.dead, k)
	}
}

// quiet walks a body only to learn what it kills.
func (w *inoutWalk) quiet(list []syntax.Stmt) {
	saved := w.reported
	w.reported = nil
	w.stmts(list)
	w.reported = saved
}

func (w *inoutWalk) define(t syntax.Expr) {
	for n := range names(t) {
		delete(w.dead, n)
	}
}

// expr reports reads of dead names in e, then marks the InOut/Out
// arguments of the DSL calls in it (arguments are read before the call
// takes effect, so f(t, t) and t = f(t) stay legal).
func (w *inoutWalk) expr(e syntax.Expr) {
	if e == nil {
		return
	}
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			w.expr(n.Fn)
			for _, a := range n.Args {
				w.expr(a.Value)
			}
			w.kill(n)
			return false
		case *syntax.Ident:
			w.read(n)
		}
		return true
	})
}

func (w *inoutWalk) read(id *syntax.Ident) {
	line, dead := w.dead[id.Name]
	if !dead || w.reported == nil || w.reported[id.Name] {
		return
	}
	w.reported[id.Name] = true
	w.c.errorf(id.Pos, ErrInOutUse, "",
		"%s was passed as InOut/Out at line %d; read the call's result instead of the variable from before the call (PyPTO: InOutUseDiscipline)",
		id.Name, line)
}

// kill marks the plain-name arguments call passes to pl.InOut or pl.Out
// parameters of a DSL function.
func (w *inoutWalk) kill(call *syntax.CallExpr) {
	callee := w.callee(call.Fn)
	if callee == nil {
		return
	}
	fi, ok := w.c.funcs[callee]
	if !ok || fi.fn == nil {
		return
	}
	pos := 0
	for _, a := range call.Args {
		if a.Star || a.DoubleStar {
			return
		}
		var p *ir.Param
		if a.Name == "" {
			if pos < len(fi.fn.Params) {
				p = fi.fn.Params[pos]
			}
			pos++
		} else {
			for _, q := range fi.fn.Params {
				if q.Var.Name == a.Name {
					p = q
				}
			}
		}
		id, isName := a.Value.(*syntax.Ident)
		if p == nil || !isName || (p.Dir != ir.Out && p.Dir != ir.InOut) {
			continue
		}
		if _, already := w.dead[id.Name]; !already {
			w.dead[id.Name] = call.Pos.Start.Line
		}
	}
}

// callee resolves the DSL function a call names: a module function or
// closure (kernel(...)) or a method of the program (self.kernel(...)).
func (w *inoutWalk) callee(fn syntax.Expr) *meta.DSLFunc {
	d := w.fi.dsl
	switch f := fn.(type) {
	case *syntax.Ident:
		if d.Env == nil {
			return nil
		}
		v, _ := d.Env.Lookup(f.Name)
		df, _ := v.(*meta.DSLFunc)
		return df
	case *syntax.AttrExpr:
		if id, ok := f.X.(*syntax.Ident); ok && id.Name == "self" && d.Program != nil {
			return d.Program.Method(f.Name)
		}
	}
	return nil
}

// names lists the plain names an assignment target binds.
func names(t syntax.Expr) map[string]bool {
	out := map[string]bool{}
	if t == nil {
		return out
	}
	syntax.Walk(t, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Ident:
			out[n.Name] = true
		case *syntax.IndexExpr, *syntax.AttrExpr:
			return false
		}
		return true
	})
	return out
}

func copyDead(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// flowWalk is a forward walk over a function body that keeps facts, a
// name -> line map, through straight-line code, both arms of an if
// (joined) and a loop's back edge: the inout and host-view rules.
type flowWalk interface {
	expr(syntax.Expr)
	assign(*syntax.AssignStmt)
	augAssign(*syntax.AugAssignStmt)
	loop(*syntax.ForStmt) // after the iterable: the back edge and the body
	facts() *map[string]int
}

// walkFlow walks list in order; an if walks both arms, each from the facts
// before it, and leaves what either arm leaves (joinDead).
func walkFlow(w flowWalk, list []syntax.Stmt) {
	for _, s := range list {
		switch s := s.(type) {
		case *syntax.AssignStmt:
			w.assign(s)
		case *syntax.AugAssignStmt:
			w.augAssign(s)
		case *syntax.ExprStmt:
			w.expr(s.X)
		case *syntax.ReturnStmt:
			w.expr(s.Value)
		case *syntax.IfStmt:
			w.expr(s.Cond)
			facts := w.facts()
			before := copyDead(*facts)
			walkFlow(w, s.Body)
			then := *facts
			*facts = before
			walkFlow(w, s.Else)
			joinDead(*facts, then)
		case *syntax.ForStmt:
			w.expr(s.Iter)
			w.loop(s)
		case *syntax.WhileStmt:
			// A while loop is a loop without a variable; its condition is
			// read before every iteration, the first included.
			w.expr(s.Cond)
			w.loop(&syntax.ForStmt{Body: s.Body, StmtNode: s.StmtNode})
		case *syntax.WithStmt:
			walkFlow(w, s.Body)
		}
	}
}

// joinDead adds to dst the names of src it lacks, with their lines: after
// an if, a name dead on either branch is dead, and the line kept is the
// else branch's when both have it.
func joinDead(dst, src map[string]int) {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
}
