package check

import (
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// This file holds tuple results, as PyPTO writes them: a result annotation
// `-> tuple[A, B]` (or pl.Tuple[A, B]), `return a, b`, and unpacking the
// call's result into names, `a, b = self.k(...)`. The IR builds the tuple
// with tuple.make and takes it apart with one tuple.get per name (PyPTO's
// MakeTuple and TupleGetItem).

// tupleType converts the arguments of tuple[...] into an ir.Tuple.
func (c *checker) tupleType(v *meta.Generic, sp diag.Span) (ir.Type, bool) {
	if len(v.Args) < 2 {
		c.errorf(sp, ErrAnnotation, "write the element's type alone when there is one result",
			"%s[...] takes two or more types, got %d", v.Base.Path, len(v.Args))
		return &ir.Invalid{}, false
	}
	t := &ir.Tuple{Elems: make([]ir.Type, len(v.Args))}
	for i, a := range v.Args {
		et, _, ok := c.typeFromValue(a, sp, false)
		if !ok {
			return &ir.Invalid{}, false
		}
		if _, nested := et.(*ir.Tuple); nested {
			c.errorf(sp, ErrAnnotation, "flatten the result into one tuple", "%s element %d is itself a tuple", v.Base.Path, i)
			return &ir.Invalid{}, false
		}
		t.Elems[i] = et
	}
	return t, true
}

// tupleValue checks `return a, b`: each element is a run-time value, and
// the operand is the tuple tuple.make builds of them.
func (fc *funcChecker) tupleValue(lit *syntax.TupleLit) *operand {
	t := &ir.Tuple{}
	var args []ir.Operand
	ok := true
	for _, e := range lit.Elts {
		o := fc.expr(e)
		switch o.mode {
		case modeInvalid:
			ok = false
			continue
		case modeValue:
		default:
			x, dt, good := o.scalar()
			if !good {
				fc.errorf(o.sp, ErrNotRuntime, "return run-time values: tensors, tiles and scalars",
					"cannot return %s in a tuple", o.describe())
				ok = false
				continue
			}
			o = &operand{mode: modeValue, t: &ir.Scalar{DType: dt}, x: x, sp: o.sp, expr: o.expr}
		}
		if _, nested := o.t.(*ir.Tuple); nested {
			fc.errorf(o.sp, ErrNotRuntime, "unpack it first: x, y = ...", "a tuple inside a returned tuple")
			ok = false
			continue
		}
		t.Elems = append(t.Elems, o.t)
		args = append(args, o.x)
	}
	if !ok {
		return invalidOp(lit)
	}
	res := fc.temp(t)
	op := &ir.Op{Name: ir.TupleMakeOp, Args: args, Result: res, Site: irSite(lit.Pos)}
	fc.emit(op)
	return &operand{mode: modeValue, t: t, x: res, slot: &op.Result, expr: lit, sp: lit.Pos}
}

// unpackAssign checks `a, b = value`, where value is a tuple of as many
// elements that a DSL function returned (the call, or a name holding it).
func (fc *funcChecker) unpackAssign(s *syntax.AssignStmt, lit *syntax.TupleLit) {
	var ids []*syntax.Ident
	for _, e := range lit.Elts {
		id, ok := e.(*syntax.Ident)
		if !ok {
			fc.errorf(e.Span(), ErrAssignTarget, "unpack into plain names", "cannot unpack into %s", fc.c.text(e))
			return
		}
		ids = append(ids, id)
	}
	if _, pair := s.Value.(*syntax.TupleLit); pair {
		fc.errorf(lit.Pos, ErrAssignTarget, "unpack only a tuple a DSL function returns (-> tuple[...]); assign other names each on its own line",
			"tuple unpacking is not allowed in a DSL function")
		return
	}
	if s.Annotation != nil {
		fc.errorf(s.Pos, ErrAssignTarget, "", "an unpacking assignment cannot carry an annotation")
		return
	}
	o := fc.expr(s.Value)
	bindInvalid := func() {
		for _, id := range ids {
			_, nb := fc.bindName(id.Name, &ir.Invalid{}, id.Pos)
			fc.scope.vars[id.Name] = nb
		}
	}
	if o.mode == modeInvalid {
		bindInvalid()
		return
	}
	t, ok := o.t.(*ir.Tuple)
	if o.mode != modeValue || !ok {
		fc.errorf(o.sp, ErrAssignTarget, "unpack the result of a DSL function declared -> tuple[...]",
			"cannot unpack %s into %d names", o.describe(), len(ids))
		bindInvalid()
		return
	}
	if len(t.Elems) != len(ids) {
		fc.errorf(lit.Pos, ErrAssignTarget, "", "%s returns %d values (%s), unpacked into %d names",
			fc.c.text(calleeExpr(o.expr)), len(t.Elems), describeTuple(t), len(ids))
		bindInvalid()
		return
	}
	for i, id := range ids {
		fc.assign(id.Name, id.Pos, fc.tupleGet(o, t, i, s.Value, id.Pos), nil)
	}
}

// tupleGet emits tuple.get of element i of the tuple operand o.
func (fc *funcChecker) tupleGet(o *operand, t *ir.Tuple, i int, e syntax.Expr, sp diag.Span) *operand {
	res := fc.temp(t.Elems[i])
	op := &ir.Op{Name: ir.TupleGetOp, Args: []ir.Operand{o.x}, Attrs: []ir.Attr{{Key: "index", Value: ir.IntAttr(i)}},
		Result: res, Site: irSite(sp)}
	fc.emit(op)
	return &operand{mode: modeValue, t: res.Type, x: res, slot: &op.Result, expr: e, sp: sp}
}

// tupleIndex checks t[i] of a tuple value: i is a compile-time int inside
// the tuple (PyPTO's TupleGetItemExpr).
func (fc *funcChecker) tupleIndex(x *operand, t *ir.Tuple, e *syntax.IndexExpr) *operand {
	i := fc.expr(e.Index)
	if i.invalid() {
		return invalidOp(e)
	}
	n, ok := i.cv.(meta.Int)
	if i.mode != modeStatic || !ok {
		fc.errorf(e.Index.Span(), ErrNeedConst, "index a tuple with a number: t[0]", "indexing %s needs a compile-time int, got %s", describeType(t), i.describe())
		return invalidOp(e)
	}
	if n.V < 0 || n.V >= int64(len(t.Elems)) {
		fc.errorf(e.Index.Span(), ErrHostIndex, "", "index %d is outside %s, which has %d elements", n.V, describeType(t), len(t.Elems))
		return invalidOp(e)
	}
	return fc.tupleGet(x, t, int(n.V), e, e.Pos)
}

func describeTuple(t *ir.Tuple) string {
	parts := make([]string, len(t.Elems))
	for i, e := range t.Elems {
		parts[i] = describeType(e)
	}
	return strings.Join(parts, ", ")
}
