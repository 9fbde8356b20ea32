package check

import (
	"pldworkbench/engine/syntax"
)

// Early returns, as upstream's kernels write them:
//
//	if my_rank == ROOT:
//	    ...
//	    return pl.store(t, [0, 0], data)
//	return data
//
// The IR has one return, at the end of a function. A function whose early
// returns end the branch they are in is rewritten, before it is checked,
// to the one-exit form it means: the statements after an if whose body
// ends in a return become its else, and every return at the end of a
// branch assigns the result to a name the single final return reads:
//
//	if my_rank == ROOT:
//	    ...
//	    __return = pl.store(t, [0, 0], data)
//	else:
//	    __return = data
//	return __return
//
// A return anywhere else (in a loop, or in the middle of a branch) is
// still E0409.

// retName is the result's name; no Python program spells it.
const retName = "__return"

// liftReturns rewrites stmts to the one-exit form when it has early
// returns that end their branches; it returns stmts unchanged otherwise.
func liftReturns(stmts []syntax.Stmt) []syntax.Stmt {
	if !hasBranchReturn(stmts) {
		return stmts
	}
	nested := restructure(stmts)
	if !allPathsReturn(nested) {
		return stmts
	}
	last := nested[len(nested)-1]
	var value syntax.Expr
	if r, ok := last.(*syntax.ReturnStmt); ok {
		value = r.Value
	} else {
		value = firstReturnValue(nested)
	}
	if value == nil {
		// Bare returns: the branches just end.
		return dropReturns(nested)
	}
	ret := &syntax.Ident{Name: retName, ExprNode: syntax.ExprNode{Pos: last.Span()}}
	out := assignReturns(nested, ret)
	return append(out, &syntax.ReturnStmt{Value: ret, StmtNode: syntax.StmtNode{Pos: last.Span()}})
}

func hasBranchReturn(stmts []syntax.Stmt) bool {
	for _, s := range stmts {
		if ifs, ok := s.(*syntax.IfStmt); ok && (containsReturn(ifs.Body) || containsReturn(ifs.Else)) {
			return true
		}
	}
	return false
}

func containsReturn(stmts []syntax.Stmt) bool {
	found := false
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.ReturnStmt:
				found = true
			case *syntax.FuncDef, *syntax.ClassDef:
				return false
			}
			return !found
		})
	}
	return found
}

// restructure moves the statements after an if whose branches end in a
// return into its else (and, recursively, inside the branches).
func restructure(stmts []syntax.Stmt) []syntax.Stmt {
	for i, s := range stmts {
		ifs, ok := s.(*syntax.IfStmt)
		if !ok || i == len(stmts)-1 {
			continue
		}
		if endsInReturn(ifs.Body) && ifs.Else == nil {
			rest := restructure(stmts[i+1:])
			n := &syntax.IfStmt{Cond: ifs.Cond, Body: restructure(ifs.Body), Else: rest, StmtNode: ifs.StmtNode}
			return append(append([]syntax.Stmt{}, stmts[:i]...), n)
		}
	}
	out := append([]syntax.Stmt{}, stmts...)
	if n := len(out); n > 0 {
		if ifs, ok := out[n-1].(*syntax.IfStmt); ok {
			out[n-1] = &syntax.IfStmt{Cond: ifs.Cond, Body: restructure(ifs.Body), Else: restructure(ifs.Else), Elif: ifs.Elif, StmtNode: ifs.StmtNode}
		}
	}
	return out
}

func endsInReturn(stmts []syntax.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	_, ok := stmts[len(stmts)-1].(*syntax.ReturnStmt)
	return ok
}

// allPathsReturn: the list ends in a return, or in an if/else whose
// branches all do, and no return appears anywhere else.
func allPathsReturn(stmts []syntax.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	if containsReturn(stmts[:len(stmts)-1]) {
		return false
	}
	switch s := stmts[len(stmts)-1].(type) {
	case *syntax.ReturnStmt:
		return true
	case *syntax.IfStmt:
		return s.Else != nil && allPathsReturn(s.Body) && allPathsReturn(s.Else)
	}
	return false
}

func firstReturnValue(stmts []syntax.Stmt) syntax.Expr {
	var v syntax.Expr
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			if r, ok := n.(*syntax.ReturnStmt); ok && v == nil {
				v = r.Value
			}
			return v == nil
		})
	}
	return v
}

// assignReturns turns every terminal return into ret = value.
func assignReturns(stmts []syntax.Stmt, ret *syntax.Ident) []syntax.Stmt {
	out := append([]syntax.Stmt{}, stmts...)
	n := len(out) - 1
	switch s := out[n].(type) {
	case *syntax.ReturnStmt:
		if s.Value == nil {
			out = out[:n]
		} else {
			out[n] = &syntax.AssignStmt{Targets: []syntax.Expr{&syntax.Ident{Name: ret.Name, ExprNode: syntax.ExprNode{Pos: s.Pos}}}, Value: s.Value, StmtNode: s.StmtNode}
		}
	case *syntax.IfStmt:
		out[n] = &syntax.IfStmt{Cond: s.Cond, Body: assignReturns(s.Body, ret), Else: assignReturns(s.Else, ret), Elif: s.Elif, StmtNode: s.StmtNode}
	}
	return out
}

func dropReturns(stmts []syntax.Stmt) []syntax.Stmt {
	out := append([]syntax.Stmt{}, stmts...)
	n := len(out) - 1
	switch s := out[n].(type) {
	case *syntax.ReturnStmt:
		out = out[:n]
	case *syntax.IfStmt:
		out[n] = &syntax.IfStmt{Cond: s.Cond, Body: dropReturns(s.Body), Else: dropReturns(s.Else), Elif: s.Elif, StmtNode: s.StmtNode}
	}
	if len(out) == 0 {
		out = append(out, &syntax.BranchStmt{Tok: "pass", StmtNode: syntax.StmtNode{Pos: stmts[len(stmts)-1].Span()}})
	}
	return out
}
