package meta

import (
	"math"
	"strings"
)

// This file holds Python's operators over compile-time values. The checker
// folds closure constants in DSL bodies with the same functions, so a
// constant means the same thing wherever it is computed.

// Limits on values built at compile time: no PyPTO program needs more, and
// "a" * 10**12 must be an error, not an out-of-memory crash.
const (
	maxStrLen = 1 << 24 // bytes
	maxSeqLen = 1 << 20 // elements
)

// Binary applies the arithmetic or bitwise operator op ("+", "-", "*", "/",
// "//", "%", "**", "&", "|", "^", "<<", ">>", "@") to x and y with Python
// semantics: floor division and modulo round toward negative infinity, "/"
// always gives a float, bools count as ints, str % args formats. The error,
// when not nil, is an *Error.
func Binary(op string, x, y Value) (Value, error) {
	v, err := binary(op, x, y)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Unary applies "-", "+", "~" or "not" to x. The error is an *Error.
func Unary(op string, x Value) (Value, error) {
	v, err := unary(op, x)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Compare applies a comparison operator ("<", ">", "==", "!=", "<=", ">=",
// "in", "not in", "is", "is not") to x and y. The error is an *Error.
func Compare(op string, x, y Value) (bool, error) {
	ok, err := compare(op, x, y)
	if err != nil {
		return false, err
	}
	return ok, nil
}

// Truth is Python's truth value of v: zero numbers, empty containers, ""
// and None are false; everything else is true.
func Truth(v Value) bool {
	switch v := v.(type) {
	case Bool:
		return v.V
	case Int:
		return v.V != 0
	case Float:
		return v.V != 0
	case Str:
		return v.V != ""
	case NoneType:
		return false
	case Tuple:
		return len(v.Elts) > 0
	case *List:
		return len(v.Elts) > 0
	case *Dict:
		return len(v.Keys) > 0
	case *Set:
		return len(v.Elts) > 0
	case Range:
		return v.Len() > 0
	}
	return true
}

// number splits a numeric value into its int or float form. Bools are ints.
func number(v Value) (i int64, f float64, isFloat, ok bool) {
	switch v := v.(type) {
	case Int:
		return v.V, 0, false, true
	case Bool:
		if v.V {
			return 1, 0, false, true
		}
		return 0, 0, false, true
	case Float:
		return 0, v.V, true, true
	}
	return 0, 0, false, false
}

func operandErr(op string, x, y Value) *Error {
	return typeErr("unsupported operand types for %s: got '%s' and '%s'", op, x.TypeName(), y.TypeName())
}

func overflowErr(x int64, op string, y int64) *Error {
	return newErr("OverflowError", "integer overflow: %d %s %d does not fit in 64 bits", x, op, y)
}

func binary(op string, x, y Value) (Value, *Error) {
	if xb, ok := x.(Bool); ok {
		if yb, ok := y.(Bool); ok {
			switch op {
			case "&":
				return Bool{xb.V && yb.V}, nil
			case "|":
				return Bool{xb.V || yb.V}, nil
			case "^":
				return Bool{xb.V != yb.V}, nil
			}
		}
	}
	if (isDyn(x) || isDyn(y)) && dynOperand(x) && dynOperand(y) {
		switch op {
		case "+", "-", "*", "//", "%", "/":
			return &DynExpr{Op: op, X: x, Y: y}, nil
		}
	}
	xi, xf, xIsF, xNum := number(x)
	yi, yf, yIsF, yNum := number(y)
	if xNum && yNum {
		if !xIsF && !yIsF && op != "/" {
			return intBinary(op, xi, yi)
		}
		if !xIsF {
			xf = float64(xi)
		}
		if !yIsF {
			yf = float64(yi)
		}
		return floatBinary(op, xf, yf, x, y)
	}
	return seqBinary(op, x, y)
}

func intBinary(op string, a, b int64) (Value, *Error) {
	switch op {
	case "+":
		s := a + b
		if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
			return nil, overflowErr(a, op, b)
		}
		return Int{s}, nil
	case "-":
		s := a - b
		if (a >= 0 && b < 0 && s < 0) || (a < 0 && b > 0 && s >= 0) {
			return nil, overflowErr(a, op, b)
		}
		return Int{s}, nil
	case "*":
		p, ok := mulInt(a, b)
		if !ok {
			return nil, overflowErr(a, op, b)
		}
		return Int{p}, nil
	case "//", "%":
		if b == 0 {
			return nil, newErr("ZeroDivisionError", "integer division or modulo by zero")
		}
		if a == math.MinInt64 && b == -1 {
			if op == "%" {
				return Int{0}, nil
			}
			return nil, overflowErr(a, op, b)
		}
		q, r := a/b, a%b
		if r != 0 && (r < 0) != (b < 0) {
			q--
			r += b
		}
		if op == "//" {
			return Int{q}, nil
		}
		return Int{r}, nil
	case "**":
		if b < 0 {
			if a == 0 {
				return nil, newErr("ZeroDivisionError", "0 cannot be raised to a negative power")
			}
			return Float{math.Pow(float64(a), float64(b))}, nil
		}
		return powInt(a, b)
	case "&":
		return Int{a & b}, nil
	case "|":
		return Int{a | b}, nil
	case "^":
		return Int{a ^ b}, nil
	case "<<":
		if b < 0 {
			return nil, newErr("ValueError", "negative shift count %d", b)
		}
		if a == 0 {
			return Int{0}, nil
		}
		if b >= 63 || (a<<b)>>b != a {
			return nil, overflowErr(a, op, b)
		}
		return Int{a << b}, nil
	case ">>":
		if b < 0 {
			return nil, newErr("ValueError", "negative shift count %d", b)
		}
		if b >= 63 {
			if a < 0 {
				return Int{-1}, nil
			}
			return Int{0}, nil
		}
		return Int{a >> b}, nil
	}
	return nil, operandErr(op, Int{a}, Int{b})
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

func powInt(a, b int64) (Value, *Error) {
	result, base, e := int64(1), a, b
	for e > 0 {
		var ok bool
		if e&1 == 1 {
			if result, ok = mulInt(result, base); !ok {
				return nil, overflowErr(a, "**", b)
			}
		}
		e >>= 1
		if e > 0 {
			if base, ok = mulInt(base, base); !ok {
				return nil, overflowErr(a, "**", b)
			}
		}
	}
	return Int{result}, nil
}

func floatBinary(op string, a, b float64, x, y Value) (Value, *Error) {
	switch op {
	case "+":
		return Float{a + b}, nil
	case "-":
		return Float{a - b}, nil
	case "*":
		return Float{a * b}, nil
	case "/":
		if b == 0 {
			return nil, newErr("ZeroDivisionError", "division by zero")
		}
		return Float{a / b}, nil
	case "//", "%":
		if b == 0 {
			return nil, newErr("ZeroDivisionError", "float floor division or modulo by zero")
		}
		r := math.Mod(a, b)
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		if op == "%" {
			return Float{r}, nil
		}
		return Float{math.Floor((a - r) / b)}, nil
	case "**":
		if a == 0 && b < 0 {
			return nil, newErr("ZeroDivisionError", "0.0 cannot be raised to a negative power")
		}
		if a < 0 && b != math.Trunc(b) {
			return nil, newErr("ValueError", "a negative number raised to a fractional power is complex, which compile-time code does not support")
		}
		return Float{math.Pow(a, b)}, nil
	}
	return nil, operandErr(op, x, y)
}

// seqBinary handles the operators whose operands are not both numbers:
// concatenation, repetition and str % formatting.
func seqBinary(op string, x, y Value) (Value, *Error) {
	switch op {
	case "+":
		switch x := x.(type) {
		case Str:
			if y, ok := y.(Str); ok {
				if len(x.V)+len(y.V) > maxStrLen {
					return nil, sizeErr("string")
				}
				return Str{x.V + y.V}, nil
			}
		case *List:
			if y, ok := y.(*List); ok {
				if len(x.Elts)+len(y.Elts) > maxSeqLen {
					return nil, sizeErr("list")
				}
				return &List{Elts: concat(x.Elts, y.Elts)}, nil
			}
		case Tuple:
			if y, ok := y.(Tuple); ok {
				if len(x.Elts)+len(y.Elts) > maxSeqLen {
					return nil, sizeErr("tuple")
				}
				return Tuple{Elts: concat(x.Elts, y.Elts)}, nil
			}
		}
	case "*":
		if n, ok := asIndex(y); ok {
			return repeat(x, n, op, y)
		}
		if n, ok := asIndex(x); ok {
			return repeat(y, n, op, x)
		}
	case "%":
		if s, ok := x.(Str); ok {
			out, err := percentFormat(s.V, y)
			if err != nil {
				return nil, err
			}
			return Str{out}, nil
		}
	case "|":
		if xd, ok := x.(*Dict); ok {
			if yd, ok := y.(*Dict); ok {
				d := &Dict{Keys: concat(xd.Keys, nil), Values: concat(xd.Values, nil)}
				for i, k := range yd.Keys {
					if err := dictSet(d, k, yd.Values[i]); err != nil {
						return nil, err
					}
				}
				return d, nil
			}
		}
	}
	return nil, operandErr(op, x, y)
}

func sizeErr(what string) *Error {
	return fatalErr(CodeSizeExceeded, "compile-time values are kept small; build large data at run time instead",
		"%s too large to build at compile time", what)
}

func concat(a, b []Value) []Value {
	out := make([]Value, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

// asIndex reads an int (or bool) used as a count or an index.
func asIndex(v Value) (int64, bool) {
	switch v := v.(type) {
	case Int:
		return v.V, true
	case Bool:
		if v.V {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func repeat(seq Value, n int64, op string, count Value) (Value, *Error) {
	if n < 0 {
		n = 0
	}
	switch s := seq.(type) {
	case Str:
		if n > 0 && int64(len(s.V)) > maxStrLen/n {
			return nil, sizeErr("string")
		}
		return Str{strings.Repeat(s.V, int(n))}, nil
	case *List:
		elts, err := repeatElts(s.Elts, n)
		if err != nil {
			return nil, err
		}
		return &List{Elts: elts}, nil
	case Tuple:
		elts, err := repeatElts(s.Elts, n)
		if err != nil {
			return nil, err
		}
		return Tuple{Elts: elts}, nil
	}
	return nil, operandErr(op, seq, count)
}

func repeatElts(elts []Value, n int64) ([]Value, *Error) {
	if len(elts) == 0 {
		return nil, nil
	}
	if n > 0 && int64(len(elts)) > maxSeqLen/n {
		return nil, sizeErr("sequence")
	}
	out := make([]Value, 0, len(elts)*int(n))
	for i := int64(0); i < n; i++ {
		out = append(out, elts...)
	}
	return out, nil
}

func unary(op string, x Value) (Value, *Error) {
	if op == "not" {
		return Bool{!Truth(x)}, nil
	}
	i, f, isF, ok := number(x)
	if !ok {
		return nil, typeErr("bad operand type for unary %s: got '%s'", op, x.TypeName())
	}
	switch op {
	case "-":
		if isF {
			return Float{-f}, nil
		}
		if i == math.MinInt64 {
			return nil, newErr("OverflowError", "integer overflow: -(%d) does not fit in 64 bits", i)
		}
		return Int{-i}, nil
	case "+":
		if isF {
			return Float{f}, nil
		}
		return Int{i}, nil
	case "~":
		if isF {
			return nil, typeErr("bad operand type for unary ~: got 'float'")
		}
		return Int{^i}, nil
	}
	return nil, typeErr("unknown unary operator %q", op)
}
