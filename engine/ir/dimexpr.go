package ir

import (
	"strconv"
	"strings"
)

// A composite dimension (M * 2, NR * SIZE) is arithmetic on pl.dynamic
// dimensions. It is kept symbolic, as PyPTO keeps the IR tree of such a
// dimension unfolded: its Sym is the canonical, fully parenthesised
// rendering "(M * 2)", so two composite dimensions are equal when they
// are written alike (PyPTO compares them structurally, src/ir/expr.cpp),
// and a run binds it like a plain symbol. The functions here read that
// rendering back: its value from the symbols bound so far, and, when a
// run binds the whole dimension, the one symbol it determines.

// IsComposite reports whether d is arithmetic on pl.dynamic dimensions.
func (d Dim) IsComposite() bool { return strings.HasPrefix(d.Sym, "(") }

// dimNode is one node of a parsed composite dimension.
type dimNode struct {
	op   string // "" for a leaf
	name string // a symbol leaf when set
	n    int64  // a constant leaf
	x, y *dimNode
}

// parseDim parses a canonical rendering: "(x op y)", a name or an int.
func parseDim(s string) (*dimNode, bool) {
	n, rest, ok := parseDimAt(strings.TrimSpace(s))
	return n, ok && rest == ""
}

func parseDimAt(s string) (*dimNode, string, bool) {
	if s == "" {
		return nil, "", false
	}
	if s[0] == '(' {
		x, rest, ok := parseDimAt(s[1:])
		if !ok {
			return nil, "", false
		}
		rest = strings.TrimLeft(rest, " ")
		op, _, _ := strings.Cut(rest, " ")
		switch op {
		case "+", "-", "*", "//", "%", "/":
		default:
			return nil, "", false
		}
		y, rest, ok := parseDimAt(strings.TrimLeft(rest[len(op):], " "))
		if !ok || !strings.HasPrefix(rest, ")") {
			return nil, "", false
		}
		return &dimNode{op: op, x: x, y: y}, rest[1:], true
	}
	end := 0
	for end < len(s) && s[end] != ' ' && s[end] != ')' {
		end++
	}
	tok := s[:end]
	if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return &dimNode{n: n}, s[end:], true
	}
	if tok == "" {
		return nil, "", false
	}
	return &dimNode{name: tok}, s[end:], true
}

func (n *dimNode) eval(val func(string) (int64, bool)) (int64, bool) {
	if n.op == "" {
		if n.name != "" {
			return val(n.name)
		}
		return n.n, true
	}
	a, ok1 := n.x.eval(val)
	b, ok2 := n.y.eval(val)
	if !ok1 || !ok2 {
		return 0, false
	}
	return DimArith(n.op, a, b)
}

// DimArith applies one dimension operator. Division and modulo floor, as
// Python's do on the ints a dimension holds; "/" on index dims is the same
// integer division in PyPTO's IR. false for a zero divisor. meta.EvalDyn
// folds compile-time dimensions with it too, so both stages round alike.
func DimArith(op string, a, b int64) (int64, bool) {
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

// DimValue is the value of the dimension called sym under syms: its
// binding, or for a composite one the value of its arithmetic on the
// symbols it names.
func DimValue(sym string, syms map[string]int64) (int64, bool) {
	if v, ok := syms[sym]; ok {
		return v, true
	}
	if !strings.HasPrefix(sym, "(") {
		return 0, false
	}
	n, ok := parseDim(sym)
	if !ok {
		return 0, false
	}
	return n.eval(func(name string) (int64, bool) { v, ok := syms[name]; return v, ok })
}

// DimSymbols lists the pl.dynamic symbols a dimension names, in order.
func DimSymbols(sym string) []string {
	n, ok := parseDim(sym)
	if !ok {
		return []string{sym}
	}
	var out []string
	var walk func(*dimNode)
	walk = func(n *dimNode) {
		switch {
		case n.op != "":
			walk(n.x)
			walk(n.y)
		case n.name != "":
			out = append(out, n.name)
		}
	}
	walk(n)
	return out
}

// BindDim binds the dimension called sym to v in syms. For a composite
// dimension in which exactly one symbol is unbound, and that symbol is
// reached through + - * only, it also binds that symbol when v
// determines it (M * 2 = 128 gives M = 64); a floor division or modulo
// loses information and leaves it unbound.
func BindDim(sym string, v int64, syms map[string]int64) {
	syms[sym] = v
	if !strings.HasPrefix(sym, "(") {
		return
	}
	n, ok := parseDim(sym)
	if !ok {
		return
	}
	val := func(name string) (int64, bool) { x, ok := syms[name]; return x, ok }
	for n.op != "" {
		a, okx := n.x.eval(val)
		b, oky := n.y.eval(val)
		if okx == oky {
			return // both known (nothing to solve) or both unknown
		}
		known, unknown, left := b, n.x, true
		if okx {
			known, unknown, left = a, n.y, false
		}
		switch n.op {
		case "+":
			v -= known
		case "-":
			if left {
				v += known // x - k = v
			} else {
				v = known - v // k - y = v
			}
		case "*":
			if known == 0 || v%known != 0 {
				return
			}
			v /= known
		default:
			return
		}
		n = unknown
	}
	if n.name != "" {
		if _, bound := syms[n.name]; !bound {
			syms[n.name] = v
		}
	}
}

// DimMax returns an upper bound of a dimension that holds whatever value
// its pl.dynamic symbols take, as PyPTO's arithmetic analyzer proves one:
// a constant is its own bound, a bare symbol has none, x % c with a
// positive constant c is at most c-1, and + - * // carry bounds through
// constant operands ((M % 4) * 2 is at most 6). false when there is none.
func DimMax(d Dim) (int64, bool) {
	if d.IsStatic() {
		return d.N, true
	}
	n, ok := parseDim(d.Sym)
	if !ok {
		return 0, false
	}
	r := n.bounds()
	return r.hi, r.hasHi
}

// interval is what is proven of a dimension's value: lo <= v <= hi, each
// side only when its has flag is set.
type interval struct {
	lo, hi       int64
	hasLo, hasHi bool
}

func (n *dimNode) bounds() interval {
	if n.op == "" {
		if n.name != "" {
			return interval{}
		}
		return interval{lo: n.n, hi: n.n, hasLo: true, hasHi: true}
	}
	x, y := n.x.bounds(), n.y.bounds()
	yc := y.hasLo && y.hasHi && y.lo == y.hi // y is a constant
	xc := x.hasLo && x.hasHi && x.lo == x.hi
	switch n.op {
	case "+":
		return interval{lo: x.lo + y.lo, hi: x.hi + y.hi, hasLo: x.hasLo && y.hasLo, hasHi: x.hasHi && y.hasHi}
	case "-":
		return interval{lo: x.lo - y.hi, hi: x.hi - y.lo, hasLo: x.hasLo && y.hasHi, hasHi: x.hasHi && y.hasLo}
	case "*":
		if xc && !yc {
			x, y, yc = y, x, true
		}
		if !yc {
			return interval{}
		}
		c := y.lo
		switch {
		case c > 0:
			return interval{lo: x.lo * c, hi: x.hi * c, hasLo: x.hasLo, hasHi: x.hasHi}
		case c < 0:
			return interval{lo: x.hi * c, hi: x.lo * c, hasLo: x.hasHi, hasHi: x.hasLo}
		}
		return interval{hasLo: true, hasHi: true}
	case "//", "/":
		if !yc || y.lo <= 0 {
			return interval{}
		}
		lo, _ := DimArith("//", x.lo, y.lo)
		hi, _ := DimArith("//", x.hi, y.lo)
		return interval{lo: lo, hi: hi, hasLo: x.hasLo, hasHi: x.hasHi}
	case "%":
		if !yc || y.lo <= 0 {
			return interval{}
		}
		return interval{lo: 0, hi: y.lo - 1, hasLo: true, hasHi: true}
	}
	return interval{}
}

// DimRecovers reports whether a run-time extent of dimension d determines
// the pl.dynamic symbol name the way PyPTO's host codegen solves for it
// (DistributedCodegen::InvertShapeDimForVar): d is the symbol itself, or
// one operator away from it with a constant: name + c, c + name, name - c,
// c - name, name * c or c * name (c != 0), name // c (c != 0).
func DimRecovers(d Dim, name string) bool {
	if d.Sym == name {
		return true
	}
	n, ok := parseDim(d.Sym)
	if !ok || n.op == "" {
		return false
	}
	isVar := func(m *dimNode) bool { return m.op == "" && m.name == name }
	isConst := func(m *dimNode) bool { return m.op == "" && m.name == "" }
	nonZero := func(m *dimNode) bool { return isConst(m) && m.n != 0 }
	switch n.op {
	case "+", "-":
		return (isVar(n.x) && isConst(n.y)) || (isConst(n.x) && isVar(n.y))
	case "*":
		return (isVar(n.x) && nonZero(n.y)) || (nonZero(n.x) && isVar(n.y))
	case "//", "/": // "/" on index dims is the same floor division (DimArith)
		return isVar(n.x) && nonZero(n.y)
	}
	return false
}
