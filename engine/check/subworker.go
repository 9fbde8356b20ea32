package check

import (
	"fmt"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// SubWorker callbacks the emulator runs. A pl.Role.SubWorker function is
// plain Python (torch) that PyPTO runs on the host between dispatches.
// The workbench runs the small subset that is elementwise arithmetic over
// whole tensors, as upstream's parallel_reduce callback is:
//
//	result = torch.add(sum_ab, diff_ab)
//	f[:] = result
//	return f
//
// by translating it into the DSL it means — torch.add/sub/mul and + - *
// of tensors become pl.add/pl.sub/pl.mul, `f[:] = x` becomes
// f = pl.assemble(f, x, [0, ...]) — and running that as a chip task on
// device 0, outlined like a pl.at(CHIP) scope. Anything else (torch.full,
// torch.allclose, if, raise, loops, methods) is outside the subset: the
// callback is not run, and W0304 names the first construct that is not.
// The translation is an interpretation with a bound by construction: no
// loops, no calls but the three operations, every value a tensor the host
// already holds or one the statements before made.

// swOps maps the torch calls and operators of the subset to DSL ops.
var swOps = map[string]string{
	"torch.add": "add", "torch.sub": "sub", "torch.mul": "mul",
	"+": "add", "-": "sub", "*": "mul",
}

// swTranslator rewrites one callback body.
type swTranslator struct {
	fc     *funcChecker
	rename map[string]string // callback names to DSL names: parameters to the host's arguments, locals prefixed
	ranks  map[string]int    // tensor rank of each DSL name
	prefix string
}

// runSubWorker translates and runs the callback f called at e with the
// host names args (one per parameter); it returns the result operand, or
// why not: the construct outside the subset.
func (fc *funcChecker) runSubWorker(f *meta.Func, e *syntax.CallExpr, args []*operand) (*operand, string) {
	if len(args) != len(f.Def.Params) {
		return nil, "its arguments are not one per parameter"
	}
	t := &swTranslator{fc: fc, rename: map[string]string{}, ranks: map[string]int{}, prefix: f.Def.Name + "_"}
	for i, p := range f.Def.Params {
		id, ok := e.Args[i].Value.(*syntax.Ident)
		shape, _, tensor := ir.ShapeOf(args[i].t)
		if !ok || !tensor || args[i].mode != modeValue || e.Args[i].Name != "" {
			return nil, fmt.Sprintf("argument %d is not a host tensor named by a plain name", i+1)
		}
		name := fc.dispatchOut(id.Name)
		t.rename[p.Name] = name
		t.ranks[name] = len(shape)
	}
	var body []syntax.Stmt
	result := ""
	for i, st := range f.Def.Body {
		switch st := st.(type) {
		case *syntax.ExprStmt:
			if _, doc := st.X.(*syntax.StringLit); doc && i == 0 {
				continue
			}
		case *syntax.AssignStmt:
			s, why := t.assign(st)
			if why != "" {
				return nil, why
			}
			body = append(body, s)
			continue
		case *syntax.ReturnStmt:
			if i != len(f.Def.Body)-1 {
				return nil, fmt.Sprintf("return before its end (line %d)", st.Pos.Start.Line)
			}
			if st.Value != nil {
				id, ok := st.Value.(*syntax.Ident)
				if !ok || t.rename[id.Name] == "" {
					return nil, fmt.Sprintf("it returns an expression, not a name (line %d)", st.Pos.Start.Line)
				}
				result = t.rename[id.Name]
			}
			continue
		}
		return nil, fmt.Sprintf("%s at line %d", stmtKind(st), st.Span().Start.Line)
	}
	w := &syntax.WithStmt{Body: body, StmtNode: syntax.StmtNode{Pos: e.Pos}}
	caps, dirs := fc.captures(body)
	for _, s := range body {
		if a := s.(*syntax.AssignStmt); contains(caps, a.Targets[0].(*syntax.Ident).Name) {
			dirs[a.Targets[0].(*syntax.Ident).Name] = ir.InOut
		}
	}
	line := e.Pos.Start.Line
	kfi, hostArgs, outs := fc.outlineKernel(w, fmt.Sprintf("%s_l%d", f.Def.Name, line), caps, dirs, nil)
	var kept []string // the callback's locals stay its own
	for _, name := range outs {
		if contains(caps, name) {
			kept = append(kept, name)
		}
	}
	if len(kept) != len(outs) {
		return nil, "it keeps a tensor of its own past its end"
	}
	fc.chipTask(e.Pos, e.Pos, fmt.Sprintf("%s_chip_l%d", f.Def.Name, line), kfi, hostArgs, outs)
	fc.errorf(e.Fn.Span(), WarnSubWorkerRun, "",
		"SubWorker callback %s runs here as the DSL it means (torch.add/sub/mul as pl.add/sub/mul, f[:] = x as pl.assemble), a chip task on device 0; PyPTO runs it as Python on the host", f.Def.Name)
	if result == "" {
		return &operand{mode: modeNoValue, expr: e, sp: e.Pos}, ""
	}
	return fc.expr(&syntax.Ident{Name: result, ExprNode: e.ExprNode}), ""
}

// assign translates `name = <arith>` and `name[:] = <arith>`.
func (t *swTranslator) assign(st *syntax.AssignStmt) (syntax.Stmt, string) {
	line := st.Pos.Start.Line
	if len(st.Targets) != 1 {
		return nil, fmt.Sprintf("a chained assignment at line %d", line)
	}
	x, why := t.expr(st.Value)
	if why != "" {
		return nil, why
	}
	switch tg := st.Targets[0].(type) {
	case *syntax.Ident:
		name := t.prefix + tg.Name
		if _, param := t.rename[tg.Name]; param {
			return nil, fmt.Sprintf("it rebinds its parameter %s (line %d)", tg.Name, line)
		}
		t.rename[tg.Name] = name
		t.ranks[name] = t.rankOf(x)
		return &syntax.AssignStmt{Targets: []syntax.Expr{&syntax.Ident{Name: name, ExprNode: tg.ExprNode}}, Value: x, StmtNode: st.StmtNode}, ""
	case *syntax.IndexExpr:
		id, ok := tg.X.(*syntax.Ident)
		sl, whole := tg.Index.(*syntax.SliceExpr)
		if !ok || !whole || sl.Lo != nil || sl.Hi != nil || sl.Step != nil || t.rename[id.Name] == "" {
			return nil, fmt.Sprintf("a subscript assignment other than name[:] = ... at line %d", line)
		}
		dst := t.rename[id.Name]
		zeros := &syntax.ListLit{ExprNode: tg.ExprNode}
		for i := 0; i < t.ranks[dst]; i++ {
			zeros.Elts = append(zeros.Elts, &syntax.NumberLit{Kind: syntax.IntNumber, Raw: "0", ExprNode: tg.ExprNode})
		}
		call := t.call("assemble", st.Pos, &syntax.Ident{Name: dst, ExprNode: tg.ExprNode}, x, zeros)
		return &syntax.AssignStmt{Targets: []syntax.Expr{&syntax.Ident{Name: dst, ExprNode: tg.ExprNode}}, Value: call, StmtNode: st.StmtNode}, ""
	}
	return nil, fmt.Sprintf("an assignment to %s at line %d", t.fc.c.text(st.Targets[0]), line)
}

// expr translates a name or an elementwise operation of two translated
// expressions.
func (t *swTranslator) expr(e syntax.Expr) (syntax.Expr, string) {
	line := e.Span().Start.Line
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return t.expr(e.X)
	case *syntax.Ident:
		if n, ok := t.rename[e.Name]; ok {
			return &syntax.Ident{Name: n, ExprNode: e.ExprNode}, ""
		}
		return nil, fmt.Sprintf("the name %s at line %d, which is not a tensor it was handed or made", e.Name, line)
	case *syntax.BinaryExpr:
		if op, ok := swOps[e.Op]; ok {
			return t.binary(op, e.Pos, e.X, e.Y)
		}
	case *syntax.CallExpr:
		if op, ok := swOps[t.fc.c.text(e.Fn)]; ok && len(e.Args) == 2 && e.Args[0].Name == "" && e.Args[1].Name == "" {
			return t.binary(op, e.Pos, e.Args[0].Value, e.Args[1].Value)
		}
		return nil, fmt.Sprintf("%s(...) at line %d", t.fc.c.text(e.Fn), line)
	}
	return nil, fmt.Sprintf("the expression %s at line %d", t.fc.c.text(e), line)
}

func (t *swTranslator) binary(op string, sp diag.Span, x, y syntax.Expr) (syntax.Expr, string) {
	a, why := t.expr(x)
	if why != "" {
		return nil, why
	}
	b, why := t.expr(y)
	if why != "" {
		return nil, why
	}
	return t.call(op, sp, a, b), ""
}

// call builds pl.<op>(args...) at sp.
func (t *swTranslator) call(op string, sp diag.Span, args ...syntax.Expr) *syntax.CallExpr {
	c := &syntax.CallExpr{Fn: &syntax.AttrExpr{X: &syntax.Ident{Name: "pl", ExprNode: syntax.ExprNode{Pos: sp}}, Name: op, NamePos: sp, ExprNode: syntax.ExprNode{Pos: sp}}, ExprNode: syntax.ExprNode{Pos: sp}, Lparen: sp, Rparen: sp}
	for _, a := range args {
		c.Args = append(c.Args, syntax.Arg{Value: a})
	}
	return c
}

// rankOf is the tensor rank of a translated expression: its first name's.
func (t *swTranslator) rankOf(x syntax.Expr) int {
	r := 0
	syntax.Walk(x, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && r == 0 {
			r = t.ranks[id.Name]
		}
		return r == 0
	})
	return r
}

// dispatchOut returns the host name of the tensor a host name stands for:
// when it holds the result of a host dispatch, the Out or InOut argument
// the chip task wrote and returned (as PyPTO's chip task returns it). The
// emulator binds no dispatch results at the host, so the callback reads
// the argument itself.
func (fc *funcChecker) dispatchOut(name string) string {
	b, ok := fc.scope.vars[name]
	if !ok || b.v == nil {
		return name
	}
	found := name
	ir.Walk(fc.info.fn.Body, func(s ir.Stmt) bool {
		c, ok := s.(*ir.Call)
		if !ok || c.Result != b.v || c.Device == nil || c.Callee == nil {
			return true
		}
		for i, p := range c.Callee.Params {
			if i >= len(c.Args) || p.Dir == ir.In {
				continue
			}
			v, isVar := c.Args[i].(*ir.Var)
			if !isVar || !ir.Compatible(b.v.Type, v.Type) {
				continue
			}
			for n, hb := range fc.scope.vars {
				if hb.v == v {
					found = n
					return false
				}
			}
		}
		return true
	})
	return found
}
