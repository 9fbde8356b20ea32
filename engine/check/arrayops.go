package check

import (
	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// pl.array's on-core arrays and the tile ops of upstream's
// ep_dispatch_combine (pl.tile.create, pl.tile.row_sum,
// pl.tile.reshape), with the rules of PyPTO's type deduction:
// src/ir/op/array_ops/memory.cpp (DeduceArrayCreateType,
// DeduceArrayGetElementType, DeduceArrayUpdateElementType),
// src/ir/op/tile_ops/memory.cpp (DeduceTileCreateTileType),
// reduction.cpp (DeduceTileRowReductionType) and transform.cpp
// (DeduceTileReshapeType).
//
// An array is read as arr[i] (pl.array.get_element) and written as
// arr[i] = v, which PyPTO's parser turns into arr =
// pl.array.update_element(arr, i, v): the checker does the same, so a
// write inside a loop rebinds the name as any other assignment does.

var (
	arrayCreateSpec = &opSpec{kind: ir.OpArrayCreate,
		params: []param{
			{name: "extent", kind: kPyInt, attr: true, required: true},
			{name: "dtype", kind: kDType, attr: true, required: true},
		},
		result: func(a *opCall) ir.Type {
			dt, _ := dtypeFromValue(a.staticArg("dtype"))
			return &ir.Array{Extent: a.attrInt("extent"), DType: dt}
		},
		check: checkArrayCreate}
	arrayGetSpec = &opSpec{kind: ir.OpArrayGet,
		params: []param{
			{name: "array", kind: kArray, required: true},
			{name: "index", kind: kIntScalar, required: true},
		},
		result: func(a *opCall) ir.Type {
			if t, ok := a.typeOf("array").(*ir.Array); ok {
				return &ir.Scalar{DType: t.DType}
			}
			return &ir.Invalid{}
		}}
	arrayUpdateSpec = &opSpec{kind: ir.OpArrayUpdate,
		params: []param{
			{name: "array", kind: kArray, required: true},
			{name: "index", kind: kIntScalar, required: true},
			{name: "value", kind: kArrayValue, required: true},
		},
		result: func(a *opCall) ir.Type { return a.typeOf("array") },
		check:  checkArrayUpdate}
	tileCreateSpec = &opSpec{kind: ir.OpTileCreate,
		params: []param{
			{name: "shape", kind: kShapeList, required: true},
			{name: "dtype", kind: kDType, attr: true, required: true},
			{name: "target_memory", kind: kAnyStatic, attr: true},
			{name: "transpose", kind: kAnyStatic, attr: true, noneOK: true},
			{name: "flat_layout", kind: kAnyStatic, kwOnly: true, attr: true, noneOK: true},
		},
		result: fullResult, check: checkFull}
	rowSumSpec = &opSpec{kind: ir.OpRowSum,
		params: []param{
			{name: "tile", kind: kTile, required: true},
			{name: "tmp_tile", kind: kTile, required: true},
		},
		result: rowSumResult, check: checkRowSum}
	reshapeSpec = &opSpec{kind: ir.OpReshape,
		params: []param{
			{name: "tile", kind: kTile, required: true},
			{name: "shape", kind: kShapeList, required: true},
		},
		result: func(a *opCall) ir.Type {
			t, _ := a.typeOf("tile").(*ir.Tile)
			if t == nil {
				return &ir.Invalid{}
			}
			return &ir.Tile{Shape: a.shapeOf("shape"), DType: t.DType}
		},
		check: checkReshape}
)

// checkArrayCreate: a positive compile-time extent of an integer or BOOL
// dtype (PyPTO also admits its TASK_ID, which the workbench does not
// have).
func checkArrayCreate(a *opCall) {
	if n := a.attrInt("extent"); n <= 0 {
		a.errorf("extent", ErrArrayOp, "", "pl.array.create extent is %d, want > 0", n)
		return
	}
	dt, _ := dtypeFromValue(a.staticArg("dtype"))
	if !dt.IsInt() && dt != ir.BOOL {
		a.errorf("dtype", ErrArrayOp, "keep floats in a tile (pl.tile.full) or a tensor",
			"pl.array.create dtype is %s, want an integer dtype or BOOL", dt)
	}
}

// checkArrayUpdate: the value is a scalar whose dtype is the array's, or
// either side is INDEX and the other an integer (PyPTO's
// _dtypes_compatible); an int constant takes the array's dtype, a float
// one is FP32 and fits no array.
func checkArrayUpdate(a *opCall) {
	t, ok := a.typeOf("array").(*ir.Array)
	if !ok {
		return
	}
	v := a.args["value"]
	_, dt, _ := v.scalar() // the kind admits scalars only
	if v.mode == modeStatic && dt == ir.INDEX {
		return // an int takes the array's dtype
	}
	if dt == t.DType || dt == ir.INDEX && t.DType.IsInt() || t.DType == ir.INDEX && dt.IsInt() {
		return
	}
	a.errorf("value", ErrArrayOp, "cast the value first: pl.cast(v, "+dtypePath(t.DType)+")",
		"%s value is %s, want %s elements of %s", a.path, describeType(&ir.Scalar{DType: dt}), t.DType, describeType(t))
}

func dtypePath(dt ir.DType) string { return "pl." + dt.String() }

// rowSumResult is [..., rows, 1] of the input's dtype.
func rowSumResult(a *opCall) ir.Type {
	t, _ := a.typeOf("tile").(*ir.Tile)
	if t == nil || len(t.Shape) < 2 {
		return &ir.Invalid{}
	}
	shape := append(append(ir.Shape{}, t.Shape[:len(t.Shape)-1]...), ir.ConstDim(1))
	return &ir.Tile{Shape: shape, DType: t.DType}
}

// checkRowSum: a tile of rank 2 or more, and a scratch tile of its dtype
// and rank, at least as large in every dimension.
func checkRowSum(a *opCall) {
	t, _ := a.typeOf("tile").(*ir.Tile)
	tmp, _ := a.typeOf("tmp_tile").(*ir.Tile)
	if t == nil || tmp == nil {
		return
	}
	if len(t.Shape) < 2 {
		a.errorf("tile", ErrRowReduce, "", "%s of %s: the tile must have at least 2 dimensions", a.path, describeType(t))
		return
	}
	if tmp.DType != t.DType {
		a.errorf("tmp_tile", ErrRowReduce, "make the scratch tile with the input's dtype: pl.tile.create(shape, dtype="+dtypePath(t.DType)+")",
			"%s tmp_tile is %s, want the input's dtype %s", a.path, describeType(tmp), t.DType)
		return
	}
	if len(tmp.Shape) != len(t.Shape) {
		a.errorf("tmp_tile", ErrRowReduce, "", "%s tmp_tile is %s, want the rank of the input %s", a.path, describeType(tmp), describeType(t))
		return
	}
	for i := range t.Shape {
		if t.Shape[i].IsStatic() && tmp.Shape[i].IsStatic() && tmp.Shape[i].N < t.Shape[i].N {
			a.errorf("tmp_tile", ErrRowReduce, "give the scratch tile the input's shape",
				"%s tmp_tile %s is smaller than the input %s in dimension %d", a.path, tmp.Shape, t.Shape, i)
			return
		}
	}
}

// checkReshape: the new shape holds as many elements as the tile.
func checkReshape(a *opCall) {
	t, _ := a.typeOf("tile").(*ir.Tile)
	if t == nil {
		return
	}
	from, ok1 := t.Shape.NumElems()
	to, ok2 := a.shapeOf("shape").NumElems()
	if ok1 && ok2 && from != to {
		a.errorf("shape", ErrReshape, "", "%s of %s into %s: %d elements cannot become %d", a.path, describeType(t), a.shapeOf("shape"), from, to)
	}
}

// arrayIndex checks arr[i] for an array arr as pl.array.get_element(arr,
// i); done is false when x is no array.
func (fc *funcChecker) arrayIndex(e *syntax.IndexExpr, x *operand) (*operand, bool) {
	if x.mode != modeValue {
		return nil, false
	}
	if _, ok := x.t.(*ir.Array); !ok {
		return nil, false
	}
	call := &syntax.CallExpr{Fn: e.X, Args: []syntax.Arg{{Value: e.X}, {Value: e.Index}}, Lparen: e.Index.Span(), Rparen: e.Pos, ExprNode: e.ExprNode}
	fc.synthesize(call, ir.OpArrayGet)
	return fc.call(call), true
}

// arrayAssign checks arr[i] = v for an array arr as arr =
// pl.array.update_element(arr, i, v); it reports false when the target is
// no element of an array.
func (fc *funcChecker) arrayAssign(s *syntax.AssignStmt) bool {
	if len(s.Targets) != 1 || s.Value == nil {
		return false
	}
	t, ok := s.Targets[0].(*syntax.IndexExpr)
	if !ok {
		return false
	}
	id, ok := t.X.(*syntax.Ident)
	if !ok {
		return false
	}
	b, ok := fc.scope.vars[id.Name]
	if !ok {
		return false
	}
	if _, isArray := b.v.Type.(*ir.Array); !isArray {
		return false
	}
	call := &syntax.CallExpr{Fn: t.X, Args: []syntax.Arg{{Value: id}, {Value: t.Index}, {Value: s.Value}}, Lparen: t.Index.Span(), Rparen: s.Pos, ExprNode: syntax.ExprNode{Pos: s.Pos}}
	fc.synthesize(call, ir.OpArrayUpdate)
	o := fc.call(call)
	if !o.invalid() {
		// A refused write leaves the array as it was, so later uses of
		// the name are not follow-on errors.
		fc.assign(id.Name, id.Pos, o, nil)
	}
	return true
}

// arrayArg checks an argument of kind kArray.
func arrayArg(o *operand) bool {
	if o.mode != modeValue {
		return false
	}
	_, ok := o.t.(*ir.Array)
	return ok
}

// synthesize records a call the checker wrote itself as operation k.
func (fc *funcChecker) synthesize(call *syntax.CallExpr, k ir.OpKind) {
	if fc.synth == nil {
		fc.synth = map[*syntax.CallExpr]string{}
	}
	fc.synth[call] = k.String()
}

// arrayType is the annotation pl.Array[extent, dtype] of a local or a
// parameter. PyPTO compiles an orchestration function that fills an array
// and passes it to a kernel (pl.array.create and its element ops run in
// either), though its codegen does not carry the values to the core yet:
// the call warns W0310 (call.go), and the emulator passes the value.
func (c *checker) arrayType(v *meta.Generic, sp diag.Span) (ir.Type, ir.Dir, bool) {
	bad := func(format string, args ...any) (ir.Type, ir.Dir, bool) {
		c.errorf(sp, ErrAnnotation, "", format, args...)
		return &ir.Invalid{}, ir.In, false
	}
	if len(v.Args) != 2 {
		return bad("pl.Array takes [extent, dtype], got %d arguments", len(v.Args))
	}
	n, ok := v.Args[0].(meta.Int)
	if !ok || n.V <= 0 {
		return bad("pl.Array extent must be a positive int, got %s", meta.Repr(v.Args[0]))
	}
	dt, ok := dtypeFromValue(v.Args[1])
	if !ok {
		return bad("pl.Array dtype must be a pl dtype such as pl.INT32, got %s", meta.Repr(v.Args[1]))
	}
	return &ir.Array{Extent: n.V, DType: dt}, ir.In, true
}

// jitDynValue reports a pl.dynamic dimension used as a value in the body
// of a @pl.jit kernel or orchestrator (@pl.jit.incore, @pl.jit) none of
// whose parameters has it as a dimension of its own. PyPTO's jit
// specializer defines such a name in the body from the tensor whose
// dimension it is ([M, 8] binds M); one that only appears inside a
// composite dimension (M * 2) binds nothing, and PyPTO's parser finds no
// variable of that name (ast_parser.py parse_name: "Undefined variable
// 'M'"; checked with a PyPTO build on pl.range(M), with x: [M * 2, 8] and
// with x: [M, 8]). A @pl.jit.host body resolves it either way (E0231
// covers the window shape its codegen then refuses), and the @pl.program
// form takes pl.range(M) everywhere.
func (fc *funcChecker) jitDynValue(e *syntax.Ident, v meta.Value) bool {
	if _, dyn := v.(*meta.DynVar); !dyn || fc.dsl.Program != nil || fc.level == ir.Host {
		return false
	}
	for _, p := range fc.info.fn.Params {
		if shape, _, ok := ir.ShapeOf(p.Var.Type); ok {
			for _, d := range shape {
				if d.Sym == e.Name {
					return false
				}
			}
		}
	}
	fc.errorf(e.Pos, ErrJitDynValue, "give a parameter the dimension itself (x: pl.Tensor[["+e.Name+", 8], ...]), write the function as a @pl.program method, or pass the count as a pl.Scalar",
		"%s is a pl.dynamic dimension no parameter of this @pl.jit function has as a dimension of its own, so its body cannot use it as a value", e.Name)
	return true
}
