package meta

import "fmt"

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
		return dimArith(v.Op, a, b)
	}
	return 0, false
}

// dimArith applies one dimension operator; division and modulo floor, as
// Python's do (PyPTO's "/" on index dimensions is the same integer
// division). ir.DimArith is the run-time twin; meta imports no ir.
func dimArith(op string, a, b int64) (int64, bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	case "//", "/", "%":
		if b == 0 {
			return 0, false
		}
		q, r := a/b, a%b
		if r != 0 && (r < 0) != (b < 0) {
			q--
			r += b
		}
		if op == "%" {
			return r, true
		}
		return q, true
	}
	return 0, false
}
