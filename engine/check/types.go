package check

import (
	"fmt"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// This file turns type annotations (evaluated by meta into *meta.Generic
// values) into ir types, and renders types the way a learner wrote them.

// annotation evaluates a parameter or result annotation in env. allowDir
// admits the pl.Out[...] and pl.InOut[...] wrappers. ok is false (and the
// type Invalid) after an error.
func (c *checker) annotation(e syntax.Expr, env *meta.Env, allowDir bool) (ir.Type, ir.Dir, bool) {
	v, d := meta.EvalExpr(c.mod, e, env)
	if d != nil {
		c.report(*d)
		return &ir.Invalid{}, ir.In, false
	}
	return c.typeFromValue(v, e.Span(), allowDir)
}

func (c *checker) typeFromValue(v meta.Value, sp diag.Span, allowDir bool) (ir.Type, ir.Dir, bool) {
	bad := func(format string, args ...any) (ir.Type, ir.Dir, bool) {
		c.errorf(sp, ErrAnnotation, "", format, args...)
		return &ir.Invalid{}, ir.In, false
	}
	switch v := v.(type) {
	case *meta.Generic:
		switch v.Base.Path {
		case "pl.Out", "pl.InOut":
			dir := ir.Out
			if v.Base.Path == "pl.InOut" {
				dir = ir.InOut
			}
			if !allowDir {
				return bad("%s[...] marks a parameter's direction; a result type cannot have one", v.Base.Path)
			}
			if len(v.Args) != 1 {
				return bad("%s takes one type, got %d", v.Base.Path, len(v.Args))
			}
			t, _, ok := c.typeFromValue(v.Args[0], sp, false)
			if !ok {
				return t, dir, false
			}
			if _, scalar := t.(*ir.Scalar); scalar {
				return bad("%s[%s]: a scalar is passed by value and cannot be an output", v.Base.Path, t)
			}
			return t, dir, true
		case "pl.Tensor", "pld.DistributedTensor", "pl.Tile":
			if len(v.Args) < 2 || len(v.Args) > 3 {
				return bad("%s takes [shape, dtype], got %d arguments", v.Base.Path, len(v.Args))
			}
			shape, code, msg := shapeFromValue(v.Args[0])
			if msg != "" {
				c.errorf(sp, code, "", "%s shape %s", v.Base.Path, msg)
				return &ir.Invalid{}, ir.In, false
			}
			dt, ok := dtypeFromValue(v.Args[1])
			if !ok {
				return bad("%s dtype must be a pl dtype such as pl.FP32, got %s", v.Base.Path, meta.Repr(v.Args[1]))
			}
			if c.refuseDType(sp, dt, v.Base.Path == "pld.DistributedTensor", v.Base.Path+" of ") {
				return &ir.Invalid{}, ir.In, false
			}
			switch v.Base.Path {
			case "pl.Tensor":
				return &ir.Tensor{Shape: shape, DType: dt}, ir.In, true
			case "pl.Tile":
				return &ir.Tile{Shape: shape, DType: dt}, ir.In, true
			}
			return &ir.DistributedTensor{Shape: shape, DType: dt}, ir.In, true
		case "pl.Array":
			return c.arrayType(v, sp)
		case "tuple", "pl.Tuple":
			if allowDir {
				return bad("%s[...] is a result type; a parameter takes one value", v.Base.Path)
			}
			t, ok := c.tupleType(v, sp)
			return t, ir.In, ok
		case "pl.Scalar":
			if len(v.Args) != 1 {
				return bad("pl.Scalar takes one dtype, got %d arguments", len(v.Args))
			}
			dt, ok := dtypeFromValue(v.Args[0])
			if !ok {
				return bad("pl.Scalar dtype must be a pl dtype such as pl.INT32, got %s", meta.Repr(v.Args[0]))
			}
			if c.refuseDType(sp, dt, false, "pl.Scalar of ") {
				return &ir.Invalid{}, ir.In, false
			}
			return &ir.Scalar{DType: dt}, ir.In, true
		}
		return bad("unknown type %s[...]", v.Base.Path)
	case meta.DType:
		return bad("a bare dtype %s is not a type: write pl.Scalar[pl.%s]", v.Name, v.Name)
	case *meta.Builtin:
		switch v.Path {
		case "pl.Tensor", "pld.DistributedTensor", "pl.Tile", "pl.Scalar":
			return bad("%s needs its shape and dtype: %s[[d0, d1], pl.FP32]", v.Path, v.Path)
		case "int", "float", "bool":
			return bad("Python %s is not a DSL type: write pl.Scalar[pl.INDEX] (or another dtype)", v.Path)
		}
		return bad("%s is not a DSL type", v.Path)
	}
	return bad("annotation is a %s (%s), not a DSL type", v.TypeName(), meta.Repr(v))
}

// shapeFromValue converts a compile-time shape list. msg describes what is
// wrong (under code), or is "".
//
// A dimension computed from pl.dynamic ones (M * 2, NR * SIZE) stays
// symbolic, as PyPTO keeps its unfolded IR tree: its symbol is the
// canonical rendering (ir.Dim.IsComposite), and a run gives it the value
// its arithmetic has on the symbols bound then. PyPTO requires such a
// dimension to be integer-typed (include/pypto/ir/scalar_expr.h refuses
// index and float operands together), so a float in it is refused.
func shapeFromValue(v meta.Value) (ir.Shape, Code, string) {
	var elts []meta.Value
	switch v := v.(type) {
	case *meta.List:
		elts = v.Elts
	case meta.Tuple:
		elts = v.Elts
	default:
		return nil, ErrAnnotation, fmt.Sprintf("must be a list of dimensions, got %s", meta.Repr(v))
	}
	if len(elts) == 0 {
		return nil, ErrAnnotation, "is empty"
	}
	shape := make(ir.Shape, len(elts))
	for i, e := range elts {
		switch e := e.(type) {
		case meta.Int:
			if e.V <= 0 {
				return nil, ErrAnnotation, fmt.Sprintf("dimension %d is %d, want > 0", i, e.V)
			}
			shape[i] = ir.ConstDim(e.V)
		case *meta.DynVar:
			shape[i] = ir.SymDim(e.Name)
		case *meta.DynExpr:
			if f, ok := dimFloat(e); ok {
				return nil, ErrDimArith, fmt.Sprintf("dimension %d is %s: arithmetic on a pl.dynamic dimension takes ints and other dimensions, got the float %s", i, meta.Repr(e), meta.Repr(f))
			}
			shape[i] = ir.SymDim(meta.Repr(e))
		default:
			return nil, ErrAnnotation, fmt.Sprintf("dimension %d is %s, want an int or a pl.dynamic dimension", i, meta.Repr(e))
		}
	}
	return shape, "", ""
}

// dimFloat finds a float operand in a dimension expression.
func dimFloat(v meta.Value) (meta.Value, bool) {
	switch v := v.(type) {
	case meta.Float:
		return v, true
	case *meta.DynExpr:
		if f, ok := dimFloat(v.X); ok {
			return f, true
		}
		return dimFloat(v.Y)
	}
	return nil, false
}

// refusedDType says why a program may not hold elements of dt (in a
// distributed tensor when dist), with a hint, or returns "". PyPTO's
// distributed runtime maps no FP8 type and no BOOL distributed tensor to a
// device type, and remote ops move whole bytes, so these programs fail in
// PyPTO; the emulator does not model the 4- and 8-bit float formats either.
// Refusing them here puts the error on the annotation, not on a run.
func refusedDType(dt ir.DType, dist bool) (why, hint string) {
	switch dt {
	case ir.FP8E4M3FN, ir.FP8E5M2, ir.FP8E8M0, ir.HF8:
		return "PyPTO's distributed runtime has no device type for FP8 elements",
			"hold the values as FP16 or BF16, or keep their raw bytes in UINT8 elements and convert in the kernel's caller"
	case ir.FP4, ir.HF4, ir.INT4, ir.UINT4:
		return fmt.Sprintf("%s elements are %d bits, and remote ops move whole bytes", dt, dt.Bits()),
			"pack two values per INT8/UINT8 element, or hold them as INT8 or FP16"
	case ir.BOOL:
		if dist {
			return "PyPTO's distributed runtime has no device type for BOOL in a distributed tensor",
				"hold the flags as INT8 or UINT8 elements (0 or 1)"
		}
	}
	return "", ""
}

// refuseDType reports whether dt is refused (see refusedDType), reporting it
// at sp, after what, the first time the module names it.
func (c *checker) refuseDType(sp diag.Span, dt ir.DType, dist bool, what string) bool {
	why, hint := refusedDType(dt, dist)
	if why == "" {
		return false
	}
	if !c.refused[dt] {
		if c.refused == nil {
			c.refused = map[ir.DType]bool{}
		}
		c.refused[dt] = true
		c.errorf(sp, ErrElemDType, hint, "%s%s: %s", what, dt, why)
	}
	return true
}

func dtypeFromValue(v meta.Value) (ir.DType, bool) {
	d, ok := v.(meta.DType)
	if !ok {
		return ir.InvalidDType, false
	}
	return ir.DTypeByName(d.Name)
}

// kindName describes a type's kind the way the DSL spells it ("value"
// when there is no type).
func kindName(t ir.Type) string {
	if t == nil {
		return "value"
	}
	return t.Kind()
}

// describeType renders a type for messages: "pl.Tensor [1, 64] FP32",
// "INT32 scalar".
func describeType(t ir.Type) string {
	switch t := t.(type) {
	case *ir.Tensor:
		return "pl.Tensor " + t.Shape.String() + " " + t.DType.String()
	case *ir.DistributedTensor:
		return "pld.DistributedTensor " + t.Shape.String() + " " + t.DType.String()
	case *ir.Tile:
		s := "tile " + t.Shape.String() + " " + t.DType.String()
		if t.Mem != "" {
			s += " in " + t.Mem
		}
		if t.Valid != nil {
			s += " (valid " + t.Valid.String() + ")"
		}
		return s
	case *ir.Scalar:
		return t.DType.String() + " scalar"
	case *ir.Ptr:
		return "a window buffer of " + t.Bytes.String() + " bytes"
	case *ir.CommCtx:
		return "a comm context"
	case *ir.List:
		return fmt.Sprintf("a list of %d", t.Len)
	case *ir.Array:
		return fmt.Sprintf("pl.array [%d] %s", t.Extent, t.DType)
	case *ir.Tuple:
		return "a tuple of " + describeTuple(t)
	}
	return "an invalid value"
}

// plural returns "1 index" / "2 indices" style counts.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
