package check

import (
	"pldworkbench/engine/syntax"
)

// Loop-carried values, PyPTO's SSA loop form:
//
//	for i, (acc, buf) in pl.range(lo, hi, step, init_values=(a0, b0)):
//	    ...
//	    acc_out, buf_out = pl.yield_(acc2, buf2)
//
// The carried names start as the init values; pl.yield_ at the end of the
// body hands the next iteration its values, and the names it assigns hold
// the last iteration's (the init values when the loop runs no iteration).
// The checker's variables are mutable across iterations already, so the
// form is rewritten to the plain loop it means before it is checked, with
// the user's own nodes (every diagnostic keeps its position):
//
//	acc = a0
//	buf = b0
//	for i in pl.range(lo, hi, step):
//	    ...
//	    acc = acc2
//	    buf = buf2
//	acc_out = acc
//	buf_out = buf
//
// The rewrite assigns the carried names one by one: a yield that swaps two
// carried values (pl.yield_(b, a)) would see the first one already
// written, so it is refused (E0411) rather than silently wrong.

// carriedLoop checks s when it is the carried form; it reports whether it
// was.
func (fc *funcChecker) carriedLoop(s *syntax.ForStmt) bool {
	tl, ok := s.Target.(*syntax.TupleLit)
	call, isCall := s.Iter.(*syntax.CallExpr)
	if !ok || !isCall || len(tl.Elts) != 2 {
		return false
	}
	initAt := -1
	for i, a := range call.Args {
		if a.Name == "init_values" {
			initAt = i
		}
	}
	if initAt < 0 {
		return false
	}
	iv, ok := tl.Elts[0].(*syntax.Ident)
	if !ok {
		fc.errorf(tl.Elts[0].Span(), ErrForIter, "write for i, (x, y) in pl.range(n, init_values=(x0, y0))", "the loop variable must be one name")
		return true
	}
	var carried []*syntax.Ident
	switch c := unparenExpr(tl.Elts[1]).(type) {
	case *syntax.TupleLit:
		for _, e := range c.Elts {
			id, ok := e.(*syntax.Ident)
			if !ok {
				fc.errorf(e.Span(), ErrForIter, "name each carried value", "a loop-carried value must be one name")
				return true
			}
			carried = append(carried, id)
		}
	case *syntax.Ident:
		carried = []*syntax.Ident{c}
	default:
		fc.errorf(tl.Elts[1].Span(), ErrForIter, "write for i, (x, y) in pl.range(n, init_values=(x0, y0))", "the loop-carried values must be a tuple of names")
		return true
	}
	var inits []syntax.Expr
	switch v := unparenExpr(call.Args[initAt].Value).(type) {
	case *syntax.TupleLit:
		inits = v.Elts
	case *syntax.ListLit:
		inits = v.Elts
	default:
		inits = []syntax.Expr{v}
	}
	if len(inits) != len(carried) {
		fc.errorf(call.Args[initAt].Value.Span(), ErrForIter, "give one init value per carried name",
			"pl.range has %d init_values for %d loop-carried names", len(inits), len(carried))
		return true
	}
	body, results, ok := fc.yieldBody(s.Body, carried)
	if !ok {
		return true
	}
	for i, id := range carried {
		fc.stmt(&syntax.AssignStmt{Targets: []syntax.Expr{id}, Value: inits[i], StmtNode: syntax.StmtNode{Pos: joinSpan(id.Pos, inits[i].Span())}})
	}
	args := append(append([]syntax.Arg{}, call.Args[:initAt]...), call.Args[initAt+1:]...)
	iter := &syntax.CallExpr{Fn: call.Fn, Args: args, Lparen: call.Lparen, Rparen: call.Rparen, ExprNode: call.ExprNode}
	fc.carryNext = true
	fc.forStmt(&syntax.ForStmt{Target: iv, Iter: iter, Body: body, Else: s.Else, StmtNode: s.StmtNode})
	for i, r := range results {
		if r != nil {
			fc.stmt(&syntax.AssignStmt{Targets: []syntax.Expr{r}, Value: carried[i], StmtNode: syntax.StmtNode{Pos: r.Span()}})
		}
	}
	return true
}

// yieldBody rewrites the pl.yield_ that ends a carried loop's body into
// assignments of the carried names, and returns the names its result is
// bound to (nil entries where it binds none).
func (fc *funcChecker) yieldBody(body []syntax.Stmt, carried []*syntax.Ident) ([]syntax.Stmt, []syntax.Expr, bool) {
	results := make([]syntax.Expr, len(carried))
	out := make([]syntax.Stmt, 0, len(body)+len(carried))
	found := false
	for _, st := range body {
		var yc *syntax.CallExpr
		var targets []syntax.Expr
		switch x := st.(type) {
		case *syntax.ExprStmt:
			yc = fc.yieldCall(x.X)
		case *syntax.AssignStmt:
			if yc = fc.yieldCall(x.Value); yc != nil && len(x.Targets) == 1 {
				if t, ok := x.Targets[0].(*syntax.TupleLit); ok {
					targets = t.Elts
				} else {
					targets = []syntax.Expr{x.Targets[0]}
				}
			}
		}
		if yc == nil {
			out = append(out, st)
			continue
		}
		found = true
		if len(yc.Args) != len(carried) {
			fc.errorf(yc.Pos, ErrForIter, "yield one value per carried name, in the order of the loop's tuple",
				"pl.yield_ gives %d values for %d loop-carried names", len(yc.Args), len(carried))
			return nil, nil, false
		}
		if targets != nil && len(targets) != len(carried) {
			fc.errorf(st.Span(), ErrForIter, "bind one name per carried value",
				"pl.yield_ of %d values is assigned to %d names", len(carried), len(targets))
			return nil, nil, false
		}
		written := map[string]bool{}
		for i, a := range yc.Args {
			if mentionsAny(a.Value, written) {
				fc.errorf(a.Value.Span(), ErrForIter, "compute the value into a new name first, then yield the names",
					"pl.yield_ reads a carried value it already replaced")
				return nil, nil, false
			}
			written[carried[i].Name] = true
			out = append(out, &syntax.AssignStmt{Targets: []syntax.Expr{carried[i]}, Value: a.Value, StmtNode: syntax.StmtNode{Pos: a.Value.Span()}})
			if targets != nil {
				results[i] = targets[i]
			}
		}
	}
	if !found {
		// A body without pl.yield_ carries its names unchanged.
		return out, results, true
	}
	return out, results, true
}

// yieldCall is x when it is a call of pl.yield_.
func (fc *funcChecker) yieldCall(x syntax.Expr) *syntax.CallExpr {
	c, ok := x.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	if p, _ := fc.libPath(c.Fn); p == "pl.yield_" {
		return c
	}
	return nil
}

func mentionsAny(e syntax.Expr, names map[string]bool) bool {
	hit := false
	syntax.Walk(e, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && names[id.Name] && id.Name != "" {
			hit = true
		}
		return !hit
	})
	return hit
}

func unparenExpr(e syntax.Expr) syntax.Expr {
	for {
		p, ok := e.(*syntax.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
