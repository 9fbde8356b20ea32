package meta

import (
	"fmt"

	"pldworkbench/engine/ir"
)

// DynExpr is integer arithmetic on pl.dynamic dimensions (NR * SIZE,
// M * 2), as upstream writes shapes: pl.Tensor[[NR, 1, NR * SIZE], ...].
// The evaluator keeps the expression; the checker gives it a value where
// the dimensions' values are known (a program instance fixes them).
type DynExpr struct {
	Op   string // "+", "-", "*", "//", "%" or "/"
	X, Y Value  // Int, *DynVar or *DynExpr; a Float, which the checker refuses in a shape
}

func (*DynExpr) TypeName() string { return "DynExpr" }
func (v *DynExpr) String() string { return fmt.Sprintf("(%s %s %s)", v.X, v.Op, v.Y) }

// dynOperand reports whether v can take part in a DynExpr.
func dynOperand(v Value) bool {
	switch v.(type) {
	case Int, *DynVar, *DynExpr, Float:
		return true
	}
	return false
}

func isDyn(v Value) bool {
	switch v.(type) {
	case *DynVar, *DynExpr:
		return true
	}
	return false
}

// EvalDyn computes a dimension expression with every pl.dynamic
// dimension at the value val gives it; false when one has none.
func EvalDyn(v Value, val func(name string) (int64, bool)) (int64, bool) {
	switch v := v.(type) {
	case Int:
		return v.V, true
	case *DynVar:
		return val(v.Name)
	case *DynExpr:
		a, ok1 := EvalDyn(v.X, val)
		b, ok2 := EvalDyn(v.Y, val)
		if !ok1 || !ok2 {
			return 0, false
		}
		return ir.DimArith(v.Op, a, b)
	}
	return 0, false
}
