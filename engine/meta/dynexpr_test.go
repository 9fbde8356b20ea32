package meta

import "testing"

// TestDynExpr: arithmetic on pl.dynamic dimensions keeps its tree (every
// operator PyPTO's shape dimensions take: + - * // % /, with ints, other
// dimensions and, for the checker to refuse, floats), renders it fully
// parenthesised and evaluates it with Python's floor division.
func TestDynExpr(t *testing.T) {
	m, n := &DynVar{Name: "M"}, &DynVar{Name: "N"}
	vals := func(name string) (int64, bool) {
		switch name {
		case "M":
			return -7, true
		case "N":
			return 2, true
		}
		return 0, false
	}
	for _, c := range []struct {
		op   string
		x, y Value
		repr string
		want int64
		ok   bool
	}{
		{"*", m, Int{2}, "(M * 2)", -14, true},
		{"+", Int{1}, m, "(1 + M)", -6, true},
		{"-", m, n, "(M - N)", -9, true},
		{"//", m, n, "(M // N)", -4, true},
		{"%", m, n, "(M % N)", 1, true},
		{"/", m, n, "(M / N)", -4, true},
		{"*", m, Float{2.5}, "(M * 2.5)", 0, false},
	} {
		v, err := Binary(c.op, c.x, c.y)
		if err != nil {
			t.Errorf("%s %s %s: %v", Repr(c.x), c.op, Repr(c.y), err)
			continue
		}
		if got := Repr(v); got != c.repr {
			t.Errorf("Repr = %s, want %s", got, c.repr)
		}
		got, ok := EvalDyn(v, vals)
		if got != c.want || ok != c.ok {
			t.Errorf("EvalDyn(%s) = %d, %v; want %d, %v", c.repr, got, ok, c.want, c.ok)
		}
	}
	if _, err := Binary("**", m, Int{2}); err == nil {
		t.Error("M ** 2: want a TypeError, as PyPTO's DynVar has no power")
	}
}
