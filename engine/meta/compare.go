package meta

import (
	"math"
	"strconv"
	"strings"
)

// This file holds Python's comparisons: ==, ordering, "is", "in", and the
// hash keys that decide which values are the same dict key.

// maxCompareDepth bounds how deep == and < descend into nested containers,
// so a list that contains itself compares in bounded time instead of
// overflowing the stack.
const maxCompareDepth = 100

func compare(op string, x, y Value) (bool, *Error) {
	switch op {
	case "==":
		return equal(x, y), nil
	case "!=":
		return !equal(x, y), nil
	case "is":
		return identical(x, y), nil
	case "is not":
		return !identical(x, y), nil
	case "in", "not in":
		in, err := contains(y, x)
		if err != nil {
			return false, err
		}
		return in == (op == "in"), nil
	case "<":
		return less(op, x, y)
	case ">":
		return less(op, y, x)
	case "<=":
		gt, err := less(op, y, x)
		return !gt && err == nil, err
	case ">=":
		lt, err := less(op, x, y)
		return !lt && err == nil, err
	}
	return false, typeErr("unknown comparison operator %q", op)
}

// equal is Python's ==.
func equal(x, y Value) bool { return equalDepth(x, y, 0) }

func equalDepth(x, y Value, depth int) bool {
	if depth > maxCompareDepth {
		return identical(x, y)
	}
	if xi, xf, xIsF, ok := number(x); ok {
		yi, yf, yIsF, ok := number(y)
		if !ok {
			return false
		}
		switch {
		case !xIsF && !yIsF:
			return xi == yi
		case xIsF && yIsF:
			return xf == yf
		case xIsF:
			return xf == float64(yi)
		default:
			return float64(xi) == yf
		}
	}
	switch x := x.(type) {
	case Str:
		y, ok := y.(Str)
		return ok && x.V == y.V
	case NoneType:
		_, ok := y.(NoneType)
		return ok
	case Tuple:
		y, ok := y.(Tuple)
		return ok && equalElts(x.Elts, y.Elts, depth+1)
	case *List:
		y, ok := y.(*List)
		return ok && equalElts(x.Elts, y.Elts, depth+1)
	case Range:
		y, ok := y.(Range)
		if !ok || x.Len() != y.Len() {
			return false
		}
		return x.Len() == 0 || (x.Start == y.Start && (x.Len() == 1 || x.Step == y.Step))
	case *Dict:
		y, ok := y.(*Dict)
		if !ok || len(x.Keys) != len(y.Keys) {
			return false
		}
		for i, k := range x.Keys {
			j := dictIndex(y, k)
			if j < 0 || !equalDepth(x.Values[i], y.Values[j], depth+1) {
				return false
			}
		}
		return true
	case *Set:
		y, ok := y.(*Set)
		if !ok || len(x.Elts) != len(y.Elts) {
			return false
		}
		for _, e := range x.Elts {
			if setIndex(y, e) < 0 {
				return false
			}
		}
		return true
	case DType:
		y, ok := y.(DType)
		return ok && x.Name == y.Name
	case Enum:
		y, ok := y.(Enum)
		return ok && x.Type == y.Type && x.Member == y.Member
	case *Builtin:
		y, ok := y.(*Builtin)
		return ok && x.Path == y.Path
	case *Generic:
		y, ok := y.(*Generic)
		return ok && x.Base.Path == y.Base.Path && equalElts(x.Args, y.Args, depth+1)
	case *Method:
		y, ok := y.(*Method)
		return ok && x.Name == y.Name && identical(x.Recv, y.Recv)
	}
	return x == y
}

func equalElts(a, b []Value, depth int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalDepth(a[i], b[i], depth) {
			return false
		}
	}
	return true
}

// identical is Python's "is". Values without identity of their own (ints,
// strings, dtypes, library symbols) are identical when equal and of the same
// kind, which is what CPython's caching makes true for the values programs
// compare with "is" (None, True, False, small ints, enum members).
func identical(x, y Value) bool {
	switch x.(type) {
	case Int, Float, Str, Bool, NoneType, DType, Enum, *Builtin, Range:
		return x.TypeName() == y.TypeName() && equal(x, y)
	case Tuple:
		return false
	}
	return x == y
}

// less is Python's x < y; op names the operator actually written, for the
// error message.
func less(op string, x, y Value) (bool, *Error) { return lessDepth(op, x, y, 0) }

func lessDepth(op string, x, y Value, depth int) (bool, *Error) {
	if depth > maxCompareDepth {
		return false, newErr("RecursionError", "comparison nested more than %d levels deep", maxCompareDepth)
	}
	if xi, xf, xIsF, ok := number(x); ok {
		if yi, yf, yIsF, ok := number(y); ok {
			switch {
			case !xIsF && !yIsF:
				return xi < yi, nil
			case !xIsF:
				xf = float64(xi)
			case !yIsF:
				yf = float64(yi)
			}
			return xf < yf, nil
		}
	}
	switch xv := x.(type) {
	case Str:
		if yv, ok := y.(Str); ok {
			return xv.V < yv.V, nil
		}
	case Tuple:
		if yv, ok := y.(Tuple); ok {
			return lessElts(op, xv.Elts, yv.Elts, depth+1)
		}
	case *List:
		if yv, ok := y.(*List); ok {
			return lessElts(op, xv.Elts, yv.Elts, depth+1)
		}
	}
	return false, typeErr("'%s' not supported between instances of '%s' and '%s'", op, x.TypeName(), y.TypeName())
}

func lessElts(op string, a, b []Value, depth int) (bool, *Error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if !equalDepth(a[i], b[i], depth) {
			return lessDepth(op, a[i], b[i], depth)
		}
	}
	return len(a) < len(b), nil
}

// contains is Python's x in container.
func contains(container, x Value) (bool, *Error) {
	switch c := container.(type) {
	case Str:
		s, ok := x.(Str)
		if !ok {
			return false, typeErr("'in <string>' requires a string as the left operand, got '%s'", x.TypeName())
		}
		return strings.Contains(c.V, s.V), nil
	case Tuple:
		return containsElt(c.Elts, x), nil
	case *List:
		return containsElt(c.Elts, x), nil
	case *Dict:
		if _, err := hashKey(x); err != nil {
			return false, err
		}
		return dictIndex(c, x) >= 0, nil
	case *Set:
		if _, err := hashKey(x); err != nil {
			return false, err
		}
		return setIndex(c, x) >= 0, nil
	case Range:
		i, f, isF, ok := number(x)
		if !ok {
			return false, nil
		}
		if isF {
			if f != math.Trunc(f) {
				return false, nil
			}
			i = int64(f)
		}
		if c.Step > 0 && (i < c.Start || i >= c.Stop) || c.Step < 0 && (i > c.Start || i <= c.Stop) {
			return false, nil
		}
		return (i-c.Start)%c.Step == 0, nil
	}
	return false, typeErr("argument of type '%s' is not iterable", container.TypeName())
}

func containsElt(elts []Value, x Value) bool {
	for _, e := range elts {
		if equal(e, x) {
			return true
		}
	}
	return false
}

// hashKey returns a string equal for exactly the values Python treats as
// the same dict key (1, 1.0 and True collide, as in Python), or a TypeError
// for unhashable values.
func hashKey(v Value) (string, *Error) {
	switch v := v.(type) {
	case Int, Bool:
		i, _, _, _ := number(v)
		return "n" + strconv.FormatInt(i, 10), nil
	case Float:
		if v.V == math.Trunc(v.V) && math.Abs(v.V) < 1<<63 {
			return "n" + strconv.FormatInt(int64(v.V), 10), nil
		}
		return "f" + strconv.FormatUint(math.Float64bits(v.V), 16), nil
	case Str:
		return "s" + v.V, nil
	case NoneType:
		return "N", nil
	case Tuple:
		var b strings.Builder
		b.WriteString("t(")
		for _, e := range v.Elts {
			k, err := hashKey(e)
			if err != nil {
				return "", err
			}
			b.WriteString(strconv.Itoa(len(k)) + ":" + k)
		}
		b.WriteString(")")
		return b.String(), nil
	case DType:
		return "d" + v.Name, nil
	case Enum:
		return "e" + v.Type + "." + v.Member, nil
	case *Builtin:
		return "b" + v.Path, nil
	case Range:
		return "r" + Repr(v), nil
	case *List, *Dict, *Set:
		return "", typeErr("unhashable type: '%s'", v.TypeName())
	}
	return "p" + pointerKey(v), nil
}
