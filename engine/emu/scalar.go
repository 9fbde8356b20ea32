package emu

import (
	"math"

	"pldworkbench/engine/ir"
)

// Scalar arithmetic, as the device does it: integers compute in int64 and
// wrap to the result's width (INT32 wraps at 2^31); // and % truncate
// toward zero, like Go's / and % (pld-spec ruling 7), so (0 - 1) % 4 is -1;
// floats compute in float64 and round to the result's dtype.

// binary evaluates a Bin statement.
func (m *machine) binary(n *node) (val, *failure) {
	x, y := m.evalp(&n.x), m.evalp(&n.y)
	xdt, ydt := n.x.dt, n.y.dt
	switch n.bin {
	case ir.And:
		return boolVal(x.integer(xdt) != 0 && y.integer(ydt) != 0), nil
	case ir.Or:
		return boolVal(x.integer(xdt) != 0 || y.integer(ydt) != 0), nil
	}
	if xdt.IsFloat() || ydt.IsFloat() || n.bin == ir.Div {
		a, b := x.num(xdt), y.num(ydt)
		if n.bin.IsCompare() {
			return boolVal(compare(n.bin, a, b)), nil
		}
		r, ok := ir.Arith(n.bin, a, b)
		if !ok {
			switch n.bin {
			case ir.Div:
				r = a / b
			case ir.FloorDiv:
				r = math.Trunc(a / b)
			case ir.Mod:
				r = math.Mod(a, b)
			}
		}
		return scalarVal(val{f: r}, anyFloat, n.resDT), nil
	}
	a, b := x.i, y.i
	if n.bin.IsCompare() {
		return boolVal(compare(n.bin, a, b)), nil
	}
	r, ok := ir.IntArith(n.bin, a, b)
	if !ok && b == 0 && (n.bin == ir.FloorDiv || n.bin == ir.Mod) {
		return val{}, m.fail(n, codeDivZero, "", "%d %s 0: integer division by zero", a, opSymbol(n.bin))
	}
	return val{i: wrapInt(n.resDT, r)}, nil
}

func opSymbol(op ir.BinOp) string {
	if op == ir.Mod {
		return "%"
	}
	return "//"
}

func boolVal(b bool) val {
	if b {
		return val{i: 1}
	}
	return val{}
}

// compare evaluates a comparison on integers or floats alike; a NaN
// compares false but for Ne, as Go's operators do.
func compare[T int64 | float64](op ir.BinOp, a, b T) bool {
	switch op {
	case ir.Eq:
		return a == b
	case ir.Ne:
		return a != b
	case ir.Lt:
		return a < b
	case ir.Le:
		return a <= b
	case ir.Gt:
		return a > b
	}
	return a >= b
}

// unary evaluates a Unary statement.
func (m *machine) unary(n *node) val {
	x := m.eval(n.x)
	if n.un == ir.Not {
		return boolVal(x.integer(n.x.dt) == 0)
	}
	if n.x.dt.IsFloat() {
		return scalarVal(val{f: -x.f}, anyFloat, n.resDT)
	}
	return val{i: wrapInt(n.resDT, -x.i)}
}

// anyFloat marks a val whose f field holds the value, as the source dtype
// of scalarVal: any float dtype reads f unchanged.
const anyFloat = ir.FP32
