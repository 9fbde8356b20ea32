package check

import (
	"fmt"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// mode says what a checked expression is.
type mode uint8

const (
	modeInvalid mode = iota // already reported; stay silent about it
	modeStatic              // a compile-time value (cv)
	modeValue               // a run-time value (x of type t)
	modeList                // a list display of operands (offsets, shapes)
	modeNoValue             // a call that returns nothing
	modeSelf                // self, in a @pl.program method
)

// operand is a checked expression.
type operand struct {
	mode  mode
	cv    meta.Value // modeStatic
	t     ir.Type    // modeValue
	x     ir.Operand // modeValue: a *ir.Var or *ir.Const
	elems []*operand // modeList
	// slot points at the Result field of the statement that just defined
	// x as a fresh temporary, so an assignment can name the result
	// directly instead of copying it.
	slot  **ir.Var
	known bool // the value is provably kv at check time
	kv    int64
	loop  *loopInfo // x is the variable of this pl.range loop
	buf   *alloc    // the window buffer behind a Ptr or a view
	// dim is the composite pl.dynamic dimension a run-time value computes
	// (NR % 4, NR * 2: a *meta.DynExpr), so a window or buffer shape can
	// take it as PyPTO does, as a symbolic extent.
	dim  meta.Value
	expr syntax.Expr
	sp   diag.Span
}

func invalidOp(e syntax.Expr) *operand { return &operand{mode: modeInvalid, expr: e, sp: exprSpan(e)} }

func staticOp(v meta.Value, e syntax.Expr) *operand {
	o := &operand{mode: modeStatic, cv: v, expr: e, sp: exprSpan(e)}
	if i, ok := v.(meta.Int); ok {
		o.known, o.kv = true, i.V
	}
	return o
}

func (o *operand) invalid() bool { return o.mode == modeInvalid }

// staticInt returns a compile-time Python int (not a bool).
func (o *operand) staticInt() (int64, bool) {
	if o.mode != modeStatic {
		return 0, false
	}
	i, ok := o.cv.(meta.Int)
	return i.V, ok
}

// scalars returns both operands of a binary operator as scalars; for the
// first that is none it reports "<want>, got <what it is>".
func (fc *funcChecker) scalars(x, y *operand, want string) (xo, yo ir.Operand, xt, yt ir.DType, ok bool) {
	xo, xt, ok1 := x.scalar()
	yo, yt, ok2 := y.scalar()
	if !ok1 || !ok2 {
		bad := x
		if ok1 {
			bad = y
		}
		fc.errorf(bad.sp, ErrArgKind, "", "%s, got %s", want, bad.describe())
		return nil, nil, xt, yt, false
	}
	return xo, yo, xt, yt, true
}

// scalar returns o as a scalar operand: a run-time scalar, or a
// compile-time number as a constant of its literal type (INDEX, FP32,
// BOOL). ok is false for anything else.
func (o *operand) scalar() (ir.Operand, ir.DType, bool) {
	switch o.mode {
	case modeValue:
		if s, ok := o.t.(*ir.Scalar); ok {
			return o.x, s.DType, true
		}
	case modeStatic:
		switch v := o.cv.(type) {
		case meta.Int:
			return ir.IntConst(v.V, ir.INDEX), ir.INDEX, true
		case meta.Float:
			return ir.FloatConst(v.V, ir.FP32), ir.FP32, true
		case meta.Bool:
			return ir.BoolConst(v.V), ir.BOOL, true
		case *meta.DynVar:
			// A dynamic dimension used as a number (pl.range(NR),
			// NR * SIZE): its value is bound per call, from the shapes
			// the function's tensors really have.
			return &ir.SymRef{Name: v.Name}, ir.INDEX, true
		}
	}
	return nil, ir.InvalidDType, false
}

// describe renders what o is for a message.
func (o *operand) describe() string {
	switch o.mode {
	case modeValue:
		return describeType(o.t)
	case modeStatic:
		switch v := o.cv.(type) {
		case meta.Int, meta.Float, meta.Bool:
			return fmt.Sprintf("the %s %s", v.TypeName(), meta.Repr(v))
		case *meta.DSLFunc:
			return "DSL function " + v.Def.Name
		case *meta.Builtin:
			return v.Path
		}
		return fmt.Sprintf("%s (a %s)", meta.Repr(o.cv), o.cv.TypeName())
	case modeList:
		return "a list of " + plural(len(o.elems), "element", "elements")
	case modeNoValue:
		return "no value"
	case modeSelf:
		return "self"
	}
	return "an invalid value"
}

// expr checks e and emits the statements that compute it.
func (fc *funcChecker) expr(e syntax.Expr) *operand {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		o := fc.expr(e.X)
		o.expr, o.sp = e, e.Pos
		return o
	case *syntax.NumberLit:
		if e.Kind == syntax.FloatNumber {
			return staticOp(meta.Float{V: e.Float}, e)
		}
		return staticOp(meta.Int{V: e.Int}, e)
	case *syntax.StringLit:
		return staticOp(meta.Str{V: e.Value}, e)
	case *syntax.ConstLit:
		switch e.Kind {
		case syntax.ConstTrue:
			return staticOp(meta.Bool{V: true}, e)
		case syntax.ConstFalse:
			return staticOp(meta.Bool{V: false}, e)
		case syntax.ConstNone:
			return staticOp(meta.None, e)
		}
	case *syntax.Ident:
		return fc.ident(e)
	case *syntax.AttrExpr:
		return fc.attr(e)
	case *syntax.ListLit:
		o := &operand{mode: modeList, expr: e, sp: e.Pos}
		for _, x := range e.Elts {
			el := fc.expr(x)
			if el.invalid() {
				o.mode = modeInvalid
			}
			o.elems = append(o.elems, el)
		}
		if o.mode == modeInvalid {
			o.elems = nil
		}
		return o
	case *syntax.BinaryExpr:
		x, y := fc.expr(e.X), fc.expr(e.Y)
		return fc.arith(e.Op, x, y, e, e.OpPos)
	case *syntax.CompareExpr:
		return fc.compare(e)
	case *syntax.BoolExpr:
		return fc.boolExpr(e)
	case *syntax.UnaryExpr:
		return fc.unary(e)
	case *syntax.IndexExpr:
		return fc.index(e)
	case *syntax.CallExpr:
		return fc.call(e)
	}
	fc.errorf(e.Span(), ErrUnsupportedExpr, "", "%s is not allowed in a DSL function", exprKind(e))
	return invalidOp(e)
}

// exprKind names an expression node for messages.
func exprKind(e syntax.Expr) string {
	switch e := e.(type) {
	case *syntax.TupleLit:
		return "a tuple"
	case *syntax.DictLit:
		return "a dict"
	case *syntax.SetLit:
		return "a set"
	case *syntax.CompExpr:
		return "a comprehension"
	case *syntax.FStringLit:
		return "an f-string"
	case *syntax.LambdaExpr:
		return "a lambda"
	case *syntax.CondExpr:
		return "a conditional expression (x if c else y)"
	case *syntax.StarExpr:
		return "a starred expression"
	case *syntax.SliceExpr:
		return "a slice"
	case *syntax.ConstLit:
		if e.Kind == syntax.ConstEllipsis {
			return "..."
		}
	}
	return "this expression"
}

func (fc *funcChecker) ident(e *syntax.Ident) *operand {
	if b, ok := fc.lookupLocal(e.Name, e.Pos); ok {
		if _, bad := b.v.Type.(*ir.Invalid); bad {
			return invalidOp(e)
		}
		return &operand{mode: modeValue, t: b.v.Type, x: b.v, known: b.known, kv: b.kv,
			loop: b.loop, buf: b.buf, expr: e, sp: e.Pos}
	}
	if e.Name == "self" && fc.dsl.Program != nil {
		return &operand{mode: modeSelf, expr: e, sp: e.Pos}
	}
	if v, ok := fc.dsl.Env.Lookup(e.Name); ok {
		if fc.jitDynValue(e, v) {
			return invalidOp(e)
		}
		return staticOp(v, e)
	}
	hint := ""
	if near := fc.closestName(e.Name); near != "" {
		hint = fmt.Sprintf("did you mean %s?", near)
	}
	fc.errorf(e.Pos, ErrUndefined, hint, "undefined name %s", e.Name)
	return invalidOp(e)
}

// closestName suggests a local or constant spelled like name.
func (fc *funcChecker) closestName(name string) string {
	var cands []string
	for n := range fc.scope.vars {
		cands = append(cands, n)
	}
	for env := fc.dsl.Env; env != nil && env.Parent != nil; env = env.Parent {
		cands = append(cands, env.Order...)
	}
	return closest(name, cands)
}

func (fc *funcChecker) attr(e *syntax.AttrExpr) *operand {
	x := fc.expr(e.X)
	switch x.mode {
	case modeInvalid:
		return invalidOp(e)
	case modeSelf:
		p := fc.dsl.Program
		if m := p.Method(e.Name); m != nil {
			return staticOp(m, e)
		}
		if v, ok := p.Attrs[e.Name]; ok {
			return staticOp(v, e)
		}
		fc.errorf(e.NamePos, ErrUndefined, "", "program %s has no method or attribute %s", p.Name, e.Name)
		return invalidOp(e)
	case modeStatic:
		v, d := meta.EvalExpr(fc.c.mod, e, fc.dsl.Env)
		if d != nil {
			fc.c.report(*d)
			return invalidOp(e)
		}
		return staticOp(v, e)
	}
	fc.errorf(e.NamePos, ErrUnsupportedExpr, "", "attribute .%s of a run-time %s is not supported", e.Name, kindName(x.t))
	return invalidOp(e)
}

// binOps maps Python arithmetic operators to IR operators and the pl
// operation that does the same on tiles.
var binOps = map[string]struct {
	op   ir.BinOp
	tile string
}{
	"+":  {ir.Add, "pl.add"},
	"-":  {ir.Sub, "pl.sub"},
	"*":  {ir.Mul, "pl.mul"},
	"/":  {ir.Div, "pl.div"},
	"//": {ir.FloorDiv, ""},
	"%":  {ir.Mod, ""},
	// pl.min and pl.max of two scalars (no Python operator spells them).
	"min": {ir.Min, ""},
	"max": {ir.Max, ""},
}

// arith checks x op y. Two compile-time operands fold with Python's
// semantics; otherwise both must be scalars of one numeric category and a
// Bin is emitted.
func (fc *funcChecker) arith(op string, x, y *operand, e syntax.Expr, opPos diag.Span) *operand {
	if x.invalid() || y.invalid() {
		return invalidOp(e)
	}
	if x.mode == modeStatic && y.mode == modeStatic && (op == "min" || op == "max") {
		if v, ok := staticMinMax(op, x.cv, y.cv); ok {
			return staticOp(v, e)
		}
	}
	if x.mode == modeStatic && y.mode == modeStatic && !isDynVar(x.cv) && !isDynVar(y.cv) {
		v, err := meta.Binary(op, x.cv, y.cv)
		if err != nil {
			fc.foldError(exprSpan(e), err)
			return invalidOp(e)
		}
		return staticOp(v, e)
	}
	info, ok := binOps[op]
	if !ok {
		fc.errorf(opPos, ErrUnsupportedExpr, "", "operator %s is not supported on run-time values", op)
		return invalidOp(e)
	}
	for _, o := range []*operand{x, y} {
		if o.mode == modeValue {
			switch o.t.(type) {
			case *ir.Tile, *ir.Tensor, *ir.DistributedTensor:
				hint := "tensor arithmetic happens on tiles through pl operations"
				if info.tile != "" {
					hint = fmt.Sprintf("write %s(a, b)", info.tile)
				}
				fc.errorf(opPos, ErrArgKind, hint, "operator %s on a %s is not supported", op, describeType(o.t))
				return invalidOp(e)
			}
		}
	}
	xo, yo, xt, yt, ok := fc.scalars(x, y, fmt.Sprintf("operator %s needs numbers", op))
	if !ok {
		return invalidOp(e)
	}
	rt, ok := fc.promote(op, xt, yt, opPos)
	if !ok {
		return invalidOp(e)
	}
	if info.op == ir.Div && rt.IsInt() {
		fc.errorf(opPos, ErrTrueDiv, "", "/ on %s scalars", rt)
		return invalidOp(e)
	}
	if rt.IsFloat() && fc.level == ir.InCore {
		fc.errorf(opPos, ErrFloatInCore, "", "%s of %s values in %s", op, rt, describeFunc(fc.dsl))
		return invalidOp(e)
	}
	res := fc.temp(&ir.Scalar{DType: rt})
	b := &ir.Bin{Op: info.op, X: xo, Y: yo, Result: res, Site: irSite(exprSpan(e))}
	fc.emit(b)
	out := &operand{mode: modeValue, t: res.Type, x: res, slot: &b.Result, expr: e, sp: exprSpan(e)}
	if x.known && y.known && rt.IsInt() {
		out.kv, out.known = ir.IntArith(info.op, x.kv, y.kv)
	}
	out.dim = dimArith(op, x, y)
	return out
}

// dimArith is x op y as a composite pl.dynamic dimension, or nil when the
// two are not dimensions (an int and a dimension, or two dimensions, with
// one of the integer operators a shape's arithmetic has).
func dimArith(op string, x, y *operand) meta.Value {
	switch op {
	case "+", "-", "*", "//", "%":
	default:
		return nil
	}
	dx, dy := dimValue(x), dimValue(y)
	if dx == nil || dy == nil {
		return nil
	}
	_, ix := dx.(meta.Int)
	_, iy := dy.(meta.Int)
	if ix && iy {
		return nil
	}
	return &meta.DynExpr{Op: op, X: dx, Y: dy}
}

// dimValue is o as a term of a dimension: a Python int, a pl.dynamic
// dimension or a composite one; nil for anything else.
func dimValue(o *operand) meta.Value {
	if o.dim != nil {
		return o.dim
	}
	if o.mode == modeStatic {
		switch o.cv.(type) {
		case meta.Int, *meta.DynVar:
			return o.cv
		}
	}
	return nil
}

// foldError reports a failed compile-time fold with Python's exception
// name ("ZeroDivisionError: integer division or modulo by zero") and meta's
// hint when it has one.
func (fc *funcChecker) foldError(sp diag.Span, err error) {
	hint := ""
	if me, ok := err.(*meta.Error); ok {
		hint = me.Hint
	}
	fc.errorf(sp, ErrCompileTime, hint, "%s", err.Error())
}

// promote returns the type of a binary scalar operation (pld-spec §2.5):
// the wider of two types of one category, INDEX when either side is INDEX.
// BOOL operands and int/float mixes are errors.
func (fc *funcChecker) promote(op string, a, b ir.DType, sp diag.Span) (ir.DType, bool) {
	if a == ir.BOOL || b == ir.BOOL {
		fc.errorf(sp, ErrMixedArith, "compare or branch on a bool; do not compute with it",
			"operator %s on a BOOL value", op)
		return ir.InvalidDType, false
	}
	if a.IsInt() != b.IsInt() {
		fc.errorf(sp, ErrMixedArith, "", "operator %s mixes %s and %s", op, a, b)
		return ir.InvalidDType, false
	}
	switch {
	case a == b:
		return a, true
	case a == ir.INDEX || b == ir.INDEX:
		return ir.INDEX, true
	case a.Bits() > b.Bits():
		return a, true
	case b.Bits() > a.Bits():
		return b, true
	case a.IsFloat():
		return ir.FP32, true // FP16 with BF16
	}
	return a, true
}

var cmpOps = map[string]ir.BinOp{"==": ir.Eq, "!=": ir.Ne, "<": ir.Lt, "<=": ir.Le, ">": ir.Gt, ">=": ir.Ge}

func (fc *funcChecker) compare(e *syntax.CompareExpr) *operand {
	if len(e.Ops) != 1 {
		fc.errorf(e.OpPos[1], ErrChainedCompare, "", "chained comparison %s ... %s", e.Ops[0], e.Ops[1])
		return invalidOp(e)
	}
	x, y := fc.expr(e.X), fc.expr(e.Ys[0])
	if x.invalid() || y.invalid() {
		return invalidOp(e)
	}
	op := e.Ops[0]
	if x.mode == modeStatic && y.mode == modeStatic {
		b, err := meta.Compare(op, x.cv, y.cv)
		if err != nil {
			fc.foldError(e.Pos, err)
			return invalidOp(e)
		}
		return staticOp(meta.Bool{V: b}, e)
	}
	bop, ok := cmpOps[op]
	if !ok {
		fc.errorf(e.OpPos[0], ErrUnsupportedExpr, "", "%s is not supported on run-time values", op)
		return invalidOp(e)
	}
	xo, yo, xt, yt, ok := fc.scalars(x, y, op+" compares scalars")
	if !ok {
		return invalidOp(e)
	}
	if (xt == ir.BOOL) != (yt == ir.BOOL) || (xt == ir.BOOL && bop != ir.Eq && bop != ir.Ne) || (xt != ir.BOOL && xt.IsInt() != yt.IsInt()) {
		fc.errorf(e.OpPos[0], ErrMixedArith, "", "%s compares %s with %s", op, xt, yt)
		return invalidOp(e)
	}
	res := fc.temp(ir.Bool)
	b := &ir.Bin{Op: bop, X: xo, Y: yo, Result: res, Site: irSite(e.Pos)}
	fc.emit(b)
	return &operand{mode: modeValue, t: res.Type, x: res, slot: &b.Result, expr: e, sp: e.Pos}
}

func (fc *funcChecker) boolExpr(e *syntax.BoolExpr) *operand {
	x, y := fc.expr(e.X), fc.expr(e.Y)
	if x.invalid() || y.invalid() {
		return invalidOp(e)
	}
	if x.mode == modeStatic && y.mode == modeStatic {
		if meta.Truth(x.cv) == (e.Op == "and") {
			return staticOp(y.cv, e)
		}
		return staticOp(x.cv, e)
	}
	xo, xt, ok1 := x.scalar()
	yo, yt, ok2 := y.scalar()
	if !ok1 || !ok2 || xt != ir.BOOL || yt != ir.BOOL {
		fc.errorf(e.OpPos, ErrCondition, "", "%s needs comparisons on both sides", e.Op)
		return invalidOp(e)
	}
	op := ir.And
	if e.Op == "or" {
		op = ir.Or
	}
	res := fc.temp(ir.Bool)
	b := &ir.Bin{Op: op, X: xo, Y: yo, Result: res, Site: irSite(e.Pos)}
	fc.emit(b)
	return &operand{mode: modeValue, t: res.Type, x: res, slot: &b.Result, expr: e, sp: e.Pos}
}

func (fc *funcChecker) unary(e *syntax.UnaryExpr) *operand {
	x := fc.expr(e.X)
	if x.invalid() {
		return invalidOp(e)
	}
	if x.mode == modeStatic {
		v, err := meta.Unary(e.Op, x.cv)
		if err != nil {
			fc.foldError(e.Pos, err)
			return invalidOp(e)
		}
		return staticOp(v, e)
	}
	xo, xt, ok := x.scalar()
	if !ok {
		fc.errorf(e.OpPos, ErrArgKind, "", "unary %s needs a scalar, got %s", e.Op, x.describe())
		return invalidOp(e)
	}
	var op ir.UnOp
	switch e.Op {
	case "+":
		if xt == ir.BOOL {
			break
		}
		return x
	case "-":
		if xt == ir.BOOL {
			fc.errorf(e.OpPos, ErrMixedArith, "", "unary - on a BOOL value")
			return invalidOp(e)
		}
		if xt.IsFloat() && fc.level == ir.InCore {
			fc.errorf(e.OpPos, ErrFloatInCore, "", "negation of a %s value in %s", xt, describeFunc(fc.dsl))
			return invalidOp(e)
		}
		op = ir.Neg
	case "not":
		if xt != ir.BOOL {
			fc.errorf(e.OpPos, ErrCondition, "", "not needs a comparison, got %s", x.describe())
			return invalidOp(e)
		}
		op = ir.Not
	default:
		fc.errorf(e.OpPos, ErrUnsupportedExpr, "", "operator %s is not supported on run-time values", e.Op)
		return invalidOp(e)
	}
	res := fc.temp(&ir.Scalar{DType: xt})
	u := &ir.Unary{Op: op, X: xo, Result: res, Site: irSite(e.Pos)}
	fc.emit(u)
	out := &operand{mode: modeValue, t: res.Type, x: res, slot: &u.Result, expr: e, sp: e.Pos}
	if op == ir.Neg && x.known {
		out.known, out.kv = true, -x.kv
	}
	return out
}

// index checks x[i]: at the host, rank i's slice of a host tensor.
func (fc *funcChecker) index(e *syntax.IndexExpr) *operand {
	if o, ok := fc.sliceRead(e); ok {
		return o
	}
	if ix, ok := e.Index.(*syntax.TupleLit); ok && len(ix.Elts) > 0 && !hasSlice(ix.Elts) {
		// x[a, b] is x[a][b]: each index drops the leading dimension
		// (upstream's x[round, r] picks round a, then rank r's slice).
		var nested syntax.Expr = e.X
		for _, el := range ix.Elts {
			nested = &syntax.IndexExpr{X: nested, Index: el, ExprNode: syntax.ExprNode{Pos: joinSpan(e.X.Span(), el.Span())}}
		}
		nested.(*syntax.IndexExpr).Pos = e.Pos
		return fc.index(nested.(*syntax.IndexExpr))
	}
	x := fc.expr(e.X)
	if x.invalid() {
		return invalidOp(e)
	}
	switch e.Index.(type) {
	case *syntax.TupleLit:
		fc.errorf(e.Index.Span(), ErrHostIndex, "", "an empty index: x[r] picks rank r's slice")
		return invalidOp(e)
	case *syntax.SliceExpr:
		fc.errorf(e.Index.Span(), ErrHostIndex, "", "slices are not supported: x[r] picks rank r's slice")
		return invalidOp(e)
	}
	if x.mode == modeStatic {
		i := fc.expr(e.Index)
		if i.invalid() {
			return invalidOp(e)
		}
		if i.mode != modeStatic {
			fc.errorf(e.Index.Span(), ErrNeedConst, "", "indexing %s needs a compile-time index, got %s", x.describe(), i.describe())
			return invalidOp(e)
		}
		v, d := meta.EvalExpr(fc.c.mod, e, fc.dsl.Env)
		if d != nil {
			fc.c.report(*d)
			return invalidOp(e)
		}
		return staticOp(v, e)
	}
	if x.mode != modeValue {
		fc.errorf(e.Pos, ErrHostIndex, "", "%s cannot be indexed", x.describe())
		return invalidOp(e)
	}
	if tup, ok := x.t.(*ir.Tuple); ok {
		return fc.tupleIndex(x, tup, e)
	}
	if o, ok := fc.arrayIndex(e, x); ok {
		return o
	}
	tt, ok := x.t.(*ir.Tensor)
	if !ok {
		fc.errorf(e.Pos, ErrHostIndex, "", "only host tensors can be indexed, got %s", describeType(x.t))
		return invalidOp(e)
	}
	if fc.level != ir.Host {
		fc.errorf(e.Pos, ErrHostIndex, "", "tensor indexing is host-only, got it in %s", describeFunc(fc.dsl))
		return invalidOp(e)
	}
	i := fc.expr(e.Index)
	if i.invalid() {
		return invalidOp(e)
	}
	io, it, ok := i.scalar()
	if !ok || !it.IsInt() {
		fc.errorf(i.sp, ErrHostIndex, "", "index of %s must be an integer, got %s", fc.c.text(e.X), i.describe())
		return invalidOp(e)
	}
	if len(tt.Shape) < 2 {
		fc.errorf(e.Pos, ErrHostIndex, "index host tensors of rank >= 2 ([P, ...]) by rank",
			"%s has shape %s; x[r] must leave at least one dimension", fc.c.text(e.X), tt.Shape)
		return invalidOp(e)
	}
	if lead := tt.Shape[0]; lead.IsStatic() {
		lo, hi, ok := int64(0), int64(0), false
		switch {
		case i.known:
			lo, hi, ok = i.kv, i.kv, true
		case i.loop != nil && i.loop.trip() > 0:
			lo, hi, ok = min(i.loop.start, i.loop.last()), max(i.loop.start, i.loop.last()), true
		}
		if ok && (lo < 0 || hi >= lead.N) {
			bad := hi
			if lo < 0 {
				bad = lo
			}
			// PyPTO compiles this (its host slice takes any offset), so it is
			// a warning here and a run-time error in the emulator, where
			// the row is reached.
			fc.errorf(e.Pos, WarnHostRows, "",
				"%s reaches row %d, but %s has %d rows (shape %s)", fc.c.text(e), bad, fc.c.text(e.X), lead.N, tt.Shape)
		}
	}
	res := fc.temp(&ir.Tensor{Shape: tt.Shape[1:], DType: tt.DType})
	st := &ir.Index{X: x.x.(*ir.Var), Index: io, Result: res, Site: irSite(e.Pos)}
	fc.emit(st)
	return &operand{mode: modeValue, t: res.Type, x: res, slot: &st.Result, expr: e, sp: e.Pos}
}

// text returns the source text of e as written, or a short placeholder
// when the span is not in the module's file.
func (c *checker) text(e syntax.Expr) string {
	sp := exprSpan(e)
	f := c.mod.File()
	if f != nil && sp.File == f.Name && sp.Start.Offset >= 0 && sp.End.Offset <= len(f.Src) && sp.Start.Offset < sp.End.Offset {
		return string(f.Src[sp.Start.Offset:sp.End.Offset])
	}
	if id, ok := e.(*syntax.Ident); ok {
		return id.Name
	}
	return "the expression"
}

// staticMinMax folds pl.min or pl.max of two compile-time numbers.
func staticMinMax(op string, x, y meta.Value) (meta.Value, bool) {
	less, err := meta.Compare("<", x, y)
	if err != nil {
		return nil, false
	}
	if (op == "min") == less {
		return x, true
	}
	return y, true
}
