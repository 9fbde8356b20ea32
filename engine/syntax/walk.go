package syntax

// Walk visits n and then, in source order, every node below it (pre-order).
// If fn returns false for a node, its children are skipped. Besides the Expr
// and Stmt nodes, Walk visits each *Param, *Decorator and *ExceptClause.
func Walk(n Node, fn func(Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	w := func(c Node) { Walk(c, fn) }
	exprs := func(xs []Expr) {
		for _, x := range xs {
			if x != nil {
				Walk(x, fn)
			}
		}
	}
	stmts := func(ss []Stmt) {
		for _, s := range ss {
			Walk(s, fn)
		}
	}
	opt := func(x Expr) {
		if x != nil {
			Walk(x, fn)
		}
	}
	params := func(ps []*Param) {
		for _, p := range ps {
			Walk(p, fn)
		}
	}
	args := func(as []Arg) {
		for _, a := range as {
			opt(a.Value)
		}
	}
	switch n := n.(type) {
	case *File:
		stmts(n.Body)

	// Expressions.
	case *Ident, *NumberLit, *StringLit, *ConstLit:
	case *FStringLit:
		for _, p := range n.Parts {
			opt(p.Expr)
		}
	case *ListLit:
		exprs(n.Elts)
	case *TupleLit:
		exprs(n.Elts)
	case *SetLit:
		exprs(n.Elts)
	case *DictLit:
		for i := range n.Keys {
			opt(n.Keys[i])
			opt(n.Values[i])
		}
	case *CompExpr:
		opt(n.Key)
		opt(n.Elt)
		for _, f := range n.Fors {
			opt(f.Target)
			opt(f.Iter)
			exprs(f.Ifs)
		}
	case *ParenExpr:
		w(n.X)
	case *AttrExpr:
		w(n.X)
	case *IndexExpr:
		w(n.X)
		opt(n.Index)
	case *SliceExpr:
		opt(n.Lo)
		opt(n.Hi)
		opt(n.Step)
	case *CallExpr:
		w(n.Fn)
		args(n.Args)
	case *UnaryExpr:
		w(n.X)
	case *BinaryExpr:
		w(n.X)
		w(n.Y)
	case *BoolExpr:
		w(n.X)
		w(n.Y)
	case *CompareExpr:
		w(n.X)
		exprs(n.Ys)
	case *CondExpr:
		w(n.Then)
		w(n.Cond)
		w(n.Else)
	case *LambdaExpr:
		params(n.Params)
		w(n.Body)
	case *StarExpr:
		w(n.X)

	// Statements and their parts.
	case *ImportStmt, *FromImportStmt, *BranchStmt, *GlobalStmt:
	case *Param:
		opt(n.Annotation)
		opt(n.Default)
	case *Decorator:
		w(n.X)
	case *FuncDef:
		for _, d := range n.Decorators {
			w(d)
		}
		params(n.Params)
		opt(n.Result)
		stmts(n.Body)
	case *ClassDef:
		for _, d := range n.Decorators {
			w(d)
		}
		args(n.Bases)
		stmts(n.Body)
	case *AssignStmt:
		exprs(n.Targets)
		opt(n.Annotation)
		opt(n.Value)
	case *AugAssignStmt:
		w(n.Target)
		w(n.Value)
	case *ExprStmt:
		w(n.X)
	case *IfStmt:
		w(n.Cond)
		stmts(n.Body)
		stmts(n.Else)
	case *ForStmt:
		w(n.Target)
		w(n.Iter)
		stmts(n.Body)
		stmts(n.Else)
	case *WhileStmt:
		w(n.Cond)
		stmts(n.Body)
		stmts(n.Else)
	case *WithStmt:
		for _, it := range n.Items {
			w(it.X)
			opt(it.Target)
		}
		stmts(n.Body)
	case *TryStmt:
		stmts(n.Body)
		for _, c := range n.Excepts {
			w(c)
		}
		stmts(n.Else)
		stmts(n.Finally)
	case *ExceptClause:
		opt(n.Type)
		stmts(n.Body)
	case *ReturnStmt:
		opt(n.Value)
	case *YieldStmt:
		opt(n.Value)
	case *RaiseStmt:
		opt(n.X)
		opt(n.Cause)
	case *AssertStmt:
		w(n.Cond)
		opt(n.Msg)
	case *DelStmt:
		exprs(n.Targets)
	}
}
