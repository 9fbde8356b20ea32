package check

import (
	"pldworkbench/engine/ir"
	"pldworkbench/engine/syntax"
)

// Slice subscripts of tensors in an InCore kernel, as upstream writes
// them:
//
//	out[0:HALF, 0:W] = win[HALF:N, 0:W]
//
// A slice read x[l0:h0, l1:h1] is the tile pl.load(x, [l0, l1], [h0-l0,
// h1-l1]); a slice assignment x[l0:h0, ...] = t is pl.store(t, [l0, ...],
// x), rebinding x (PyPTO's tensor.slice and tensor.assemble, which its
// compiler turns into the same tile operations). Every bound must be
// given and the extents compile-time; a step is refused.

// sliceParts returns the offsets and extents of a slice subscript, or
// ok=false when e is no slice subscript.
func sliceParts(e *syntax.IndexExpr) (offs, exts []syntax.Expr, ok bool) {
	var elts []syntax.Expr
	switch ix := e.Index.(type) {
	case *syntax.SliceExpr:
		elts = []syntax.Expr{ix}
	case *syntax.TupleLit:
		elts = ix.Elts
	default:
		return nil, nil, false
	}
	for _, el := range elts {
		sl, isSlice := el.(*syntax.SliceExpr)
		if !isSlice || sl.Hi == nil || sl.Step != nil {
			return nil, nil, false
		}
		lo := sl.Lo
		if lo == nil {
			lo = &syntax.NumberLit{Kind: syntax.IntNumber, Raw: "0", ExprNode: sl.ExprNode}
		}
		offs = append(offs, lo)
		if sl.Lo == nil {
			exts = append(exts, sl.Hi)
		} else {
			exts = append(exts, &syntax.BinaryExpr{Op: "-", OpPos: sl.Pos, X: sl.Hi, Y: sl.Lo, ExprNode: sl.ExprNode})
		}
	}
	return offs, exts, true
}

// sliceRead checks x[l:h, ...] in a kernel as the pl.load it is.
func (fc *funcChecker) sliceRead(e *syntax.IndexExpr) (*operand, bool) {
	if fc.level != ir.InCore {
		return nil, false
	}
	offs, exts, ok := sliceParts(e)
	if !ok {
		return nil, false
	}
	call := &syntax.CallExpr{Fn: e.X, Args: []syntax.Arg{
		{Value: e.X},
		{Value: &syntax.ListLit{Elts: offs, ExprNode: syntax.ExprNode{Pos: e.Index.Span()}}},
		{Value: &syntax.ListLit{Elts: exts, ExprNode: syntax.ExprNode{Pos: e.Index.Span()}}},
	}, Lparen: e.Index.Span(), Rparen: e.Pos, ExprNode: e.ExprNode}
	return fc.opCall(lookupOp("pl.load"), "a slice of "+fc.c.text(e.X), call), true
}

// sliceAssign checks x[l:h, ...] = v in a kernel as x = pl.store(v, [l,
// ...], x); it reports false when the target is no slice subscript.
func (fc *funcChecker) sliceAssign(s *syntax.AssignStmt) bool {
	if fc.level != ir.InCore || len(s.Targets) != 1 || s.Value == nil {
		return false
	}
	t, ok := s.Targets[0].(*syntax.IndexExpr)
	if !ok {
		return false
	}
	id, isName := t.X.(*syntax.Ident)
	offs, _, isSlice := sliceParts(t)
	if !isName || !isSlice {
		return false
	}
	call := &syntax.CallExpr{Fn: t.X, Args: []syntax.Arg{
		{Value: s.Value},
		{Value: &syntax.ListLit{Elts: offs, ExprNode: syntax.ExprNode{Pos: t.Index.Span()}}},
		{Value: id},
	}, Lparen: t.Index.Span(), Rparen: s.Pos, ExprNode: syntax.ExprNode{Pos: s.Pos}}
	o := fc.opCall(lookupOp("pl.store"), "a slice assignment to "+id.Name, call)
	fc.assign(id.Name, id.Pos, o, nil)
	return true
}

func hasSlice(elts []syntax.Expr) bool {
	for _, e := range elts {
		if _, ok := e.(*syntax.SliceExpr); ok {
			return true
		}
	}
	return false
}
