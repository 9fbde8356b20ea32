package syntax

import (
	"strings"
	"testing"
)

// TestPrecedence pins the tree shape of expressions. The expected trees were
// checked once against CPython 3.11's ast module (parentheses aside, which
// Python's AST drops and ours keeps as (paren ...)).
func TestPrecedence(t *testing.T) {
	tests := []struct{ src, want string }{
		{"-2**2", "(neg (** 2 2))"},
		{"2**-1", "(** 2 (neg 1))"},
		{"2**3**2", "(** 2 (** 3 2))"},
		{"-x**-y", "(neg (** x (neg y)))"},
		{"a ** b * c", "(* (** a b) c)"},
		{"-a * b", "(* (neg a) b)"},
		{"a % -b ** c", "(% a (neg (** b c)))"},
		{"not a == b", "(not (cmp a == b))"},
		{"a and b or c and d", "(or (and a b) (and c d))"},
		{"a or b or c", "(or (or a b) c)"},
		{"not not a", "(not (not a))"},
		{"not a < b and c", "(and (not (cmp a < b)) c)"},
		{"a < b < c", "(cmp a < b < c)"},
		{"a < b > c != d", "(cmp a < b > c != d)"},
		{"a is not b", "(cmp a is-not b)"},
		{"a not in b", "(cmp a not-in b)"},
		{"a in b == c", "(cmp a in b == c)"},
		{"x == -1", "(cmp x == (neg 1))"},
		{"a | b ^ c & d << e + f * g", "(| a (^ b (& c (<< d (+ e (* f g))))))"},
		{"a & b | c", "(| (& a b) c)"},
		{"a + b - c", "(- (+ a b) c)"},
		{"a - b - c", "(- (- a b) c)"},
		{"a / b // c % d @ e", "(@ (% (// (/ a b) c) d) e)"},
		{"a * -b", "(* a (neg b))"},
		{"~a + b", "(+ (inv a) b)"},
		{"+a", "(pos a)"},
		{"a << b >> c", "(>> (<< a b) c)"},
		{"1 + 2 * 3 ** 4 ** -5 // 6", "(+ 1 (// (* 2 (** 3 (** 4 (neg 5)))) 6))"},
		{"x if c else y if d else z", "(ifexp x c (ifexp y d z))"},
		{"a + b if c else d", "(ifexp (+ a b) c d)"},
		{"a if b else lambda: c", "(ifexp a b (lambda (params) c))"},
		{"lambda x, y: x + y", "(lambda (params x y) (+ x y))"},
		{"lambda *a, k=1, **kw: a", "(lambda (params *a (param k kwonly (= 1)) **kw) a)"},
		{"-a.b", "(neg (. a b))"},
		{"a.b.c(d)[e].f", "(. (index (call (. (. a b) c) d) e) f)"},
		{"a[b][c]", "(index (index a b) c)"},
		{"f()()", "(call (call f))"},
		{"a[k, 0, r * SIZE : (r + 1) * SIZE]", "(index a (tuple k 0 (slice (* r SIZE) (* (paren (+ r 1)) SIZE))))"},
		{"a[1:2, ::3]", "(index a (tuple (slice 1 2) (slice _ _ 3)))"},
		{"a[:]", "(index a (slice _ _))"},
		{"a[::]", "(index a (slice _ _))"},
		{"a[b:]", "(index a (slice b _))"},
		{"a[..., 0]", "(index a (tuple ... 0))"},
		{"a[1,]", "(index a (tuple 1))"},
		{"f(*a, **k)", "(call f (star a) (dstar k))"},
		{"f(a, b=1, *c, **d)", "(call f a (kw b 1) (star c) (dstar d))"},
		{"f(x for x in y)", "(call f (genexp x (for x y)))"},
		{"f(\n    a,\n    b=[1,\n       2],\n)", "(call f a (kw b (list 1 2)))"},
		{"[x for x in y if x if z for w in x]", "(listcomp x (for x y (if x) (if z)) (for w x))"},
		{"[a if b else c for x in y]", "(listcomp (ifexp a b c) (for x y))"},
		{"{k: v for k, v in d.items()}", "(dictcomp k v (for (tuple k v) (call (. d items))))"},
		{"{x for x in y}", "(setcomp x (for x y))"},
		{"(x for x, in y)", "(genexp x (for (tuple x) y))"},
		{"{a, b}", "(set a b)"},
		{"{a: 1, **b}", "(dict (: a 1) (** b))"},
		{"{**a}", "(dict (** a))"},
		{"{}", "(dict)"},
		{"(a, b)", "(paren-tuple a b)"},
		{"(a,)", "(paren-tuple a)"},
		{"()", "(paren-tuple)"},
		{"(a)", "(paren a)"},
		{"((a, b), c)", "(paren-tuple (paren-tuple a b) c)"},
		{"[*a, b]", "(list (star a) b)"},
		{"[]", "(list)"},
		{`"a" "b"`, `"ab"`},
		{`"a" f"{b}" "c"`, `(fstring "a" (field b) "c")`},
		{`f"{a, b}"`, `(fstring (field (tuple a b)))`},
		{"0x10 + 0o17 + 0b101 + 1_000", "(+ (+ (+ 16 15) 5) 1000)"},
		{"1.5e-3 + .5 + 1. + 1_000.0", "(+ (+ (+ 0.0015 0.5) 1.0) 1000.0)"},
		{"True or False and None or ...", "(or (or True (and False None)) ...)"},
	}
	for _, tt := range tests {
		x, errs := ParseExpr("e", tt.src)
		if len(errs) > 0 {
			t.Errorf("%s: %v", tt.src, errs)
			continue
		}
		if got := Dump(x); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestPrecedenceValues evaluates integer expressions with a tiny evaluator
// over our trees; the wanted values are what CPython computes.
func TestPrecedenceValues(t *testing.T) {
	tests := []struct {
		src  string
		want int64
	}{
		{"-2**2", -4},
		{"2**3**2", 512},
		{"2 + 3 * 4 ** 2 // 5 - -1", 12},
		{"-3 // 2 * 7 % 5", 1},
		{"1 << 2 + 3 | 4 & 5 ^ 6", 34},
		{"~5 + 2 ** 3 * -1", -14},
		{"100 - 10 - 1", 89},
		{"2 ** -1 ** 2 if 0 else 7 - 2 * 3 ** 2", -11},
		{"(1 < 2 < 3) + (3 > 2 == 2) * 10 + (1 == 1 != 2) * 100", 111},
	}
	for _, tt := range tests {
		x, errs := ParseExpr("e", tt.src)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tt.src, errs)
		}
		if got := evalInt(t, x); got != tt.want {
			t.Errorf("%s = %d, want %d (tree %s)", tt.src, got, tt.want, Dump(x))
		}
	}
}

// evalInt evaluates an integer expression with Python's semantics (floor
// division and modulo).
func evalInt(t *testing.T, x Expr) int64 {
	b2i := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	switch x := x.(type) {
	case *NumberLit:
		return x.Int
	case *ParenExpr:
		return evalInt(t, x.X)
	case *UnaryExpr:
		v := evalInt(t, x.X)
		switch x.Op {
		case "-":
			return -v
		case "+":
			return v
		case "~":
			return ^v
		case "not":
			return b2i(v == 0)
		}
	case *CondExpr:
		if evalInt(t, x.Cond) != 0 {
			return evalInt(t, x.Then)
		}
		return evalInt(t, x.Else)
	case *CompareExpr:
		l := evalInt(t, x.X)
		for i, op := range x.Ops {
			r := evalInt(t, x.Ys[i])
			ok := map[string]bool{"<": l < r, ">": l > r, "==": l == r, "!=": l != r, "<=": l <= r, ">=": l >= r}[op]
			if !ok {
				return 0
			}
			l = r
		}
		return 1
	case *BinaryExpr:
		a, b := evalInt(t, x.X), evalInt(t, x.Y)
		floorDiv := func(a, b int64) int64 {
			q := a / b
			if (a%b != 0) && ((a < 0) != (b < 0)) {
				q--
			}
			return q
		}
		switch x.Op {
		case "+":
			return a + b
		case "-":
			return a - b
		case "*":
			return a * b
		case "//":
			return floorDiv(a, b)
		case "%":
			return a - b*floorDiv(a, b)
		case "<<":
			return a << b
		case ">>":
			return a >> b
		case "&":
			return a & b
		case "|":
			return a | b
		case "^":
			return a ^ b
		case "**":
			if b < 0 {
				return 0 // int(0.5) and the like: only used where the result is discarded or 0
			}
			r := int64(1)
			for ; b > 0; b-- {
				r *= a
			}
			return r
		}
	}
	t.Fatalf("evalInt: cannot evaluate %s", Dump(x))
	return 0
}

// statementCases pin the tree of each statement form; they also seed FuzzParse.
var statementCases = []struct{ src, want string }{
	{"x = 1\n", "(= x 1)"},
	{"a = b = c\n", "(= a b c)"},
	{"a, *b = c\n", "(= (tuple a (star b)) c)"},
	{"(a, b), [c, d] = e\n", "(= (tuple (paren-tuple a b) (list c d)) e)"},
	{"x.y[0] = 1, 2\n", "(= (index (. x y) 0) (tuple 1 2))"},
	{"x += 1\n", "(+= x 1)"},
	{"x.y //= 2\n", "(//= (. x y) 2)"},
	{"x: int\n", "(annassign x int)"},
	{"self.x: pl.Tensor[[4], pl.FP32] = t\n", "(annassign (. self x) (index (. pl Tensor) (tuple (list 4) (. pl FP32))) t)"},
	{"f(x)\n", "(expr (call f x))"},
	{"a; b;\n", "(expr a)\n(expr b)"},
	{"import a.b as c, d\n", "(import (as a.b c) d)"},
	{"from a.b import c as d, e\n", "(from a.b (as c d) e)"},
	{"from .. import (x,\n  y,)\n", "(from .. x y)"},
	{"from ...a import *\n", "(from ...a *)"},
	{"global a, b\n", "(global a b)"},
	{"del a[0], b\n", "(del (index a 0) b)"},
	{"assert x, 'msg'\n", `(assert x "msg")`},
	{"assert x\n", "(assert x)"},
	{"raise\n", "(raise)"},
	{"raise E('m') from err\n", `(raise (call E "m") (from err))`},
	{"if a: pass\n", "(if a\n  (then\n    (pass)))"},
	{"if a:\n    x\nelif b:\n    y\nelse:\n    z\n",
		"(if a\n  (then\n    (expr x))\n  (else\n    (elif b\n      (then\n        (expr y))\n      (else\n        (expr z)))))"},
	{"for i, v in enumerate(xs):\n    continue\nelse:\n    pass\n",
		"(for\n  (tuple i v)\n  (call enumerate xs)\n  (body\n    (continue))\n  (else\n    (pass)))"},
	{"for x in a, b:\n    break\n", "(for x\n  (tuple a b)\n  (body\n    (break)))"},
	{"while not done:\n    done = step()\n", "(while\n  (not done)\n  (body\n    (= done (call step))))"},
	{"while i < n:\n    if i == 2:\n        break\n    continue\nelse:\n    pass\n",
		"(while\n  (cmp i < n)\n  (body\n    (if\n      (cmp i == 2)\n      (then\n        (break)))\n    (continue))\n  (else\n    (pass)))"},
	{"for (i, t) in pl.while_(init_values=(0, t0)):\n    pl.cond(i < 3)\n    i_out, t = pl.yield_(i + 1, t)\n",
		"(for\n  (paren-tuple i t)\n  (call (. pl while_) (kw init_values (paren-tuple 0 t0)))\n  (body\n    (expr (call (. pl cond) (cmp i < 3)))\n    (= (tuple i_out t) (call (. pl yield_) (+ i 1) t))))"},
	{"with open(p) as f, lock:\n    pass\n", "(with\n  (as (call open p) f)\n  (as lock _)\n  (body\n    (pass)))"},
	{"try:\n    a\nexcept (E, F) as e:\n    b\nexcept:\n    c\nelse:\n    d\nfinally:\n    f\n",
		"(try\n  (body\n    (expr a))\n  (except\n    (paren-tuple E F)\n    (as e)\n    (body\n      (expr b)))\n  (except _\n    (body\n      (expr c)))\n  (else\n    (expr d))\n  (finally\n    (expr f)))"},
	{"def f(a, b: int = 2, *args, c, d=4, **kw) -> str:\n    return a\n",
		"(def f\n  (params\n    a\n    (param b (: int) (= 2))\n    *args\n    (param c kwonly)\n    (param d kwonly (= 4))\n    **kw)\n  (-> str)\n  (body\n    (return a)))"},
	{"def g():\n    yield 1, 2\n    yield\n    yield from h()\n",
		"(def g\n  (params)\n  (body\n    (yield (tuple 1 2))\n    (yield)\n    (yield-from (call h))))"},
	{"def f(*, k):\n    '''doc'''\n    return\n",
		"(def f\n  (params (param k kwonly))\n  doc\n  (body\n    (expr \"doc\")\n    (return)))"},
	{"@pl.jit.incore\n@deco(1, k=2)\ndef k(x):\n    pass\n",
		"(def k\n  (@ (. (. pl jit) incore))\n  (@ (call deco 1 (kw k 2)))\n  (params x)\n  (body\n    (pass)))"},
	{"@pl.program\nclass P(Base, metaclass=M):\n    \"\"\"Doc.\"\"\"\n    def m(self):\n        def inner():\n            return 1\n        return inner\n",
		"(class P\n  (@ (. pl program))\n  (bases Base (kw metaclass M))\n  doc\n  (body\n    (expr \"Doc.\")\n    (def m\n      (params self)\n      (body\n        (def inner\n          (params)\n          (body\n            (return 1)))\n        (return inner)))))"},
	{"x = 1 + \\\n    2\n", "(= x (+ 1 2))"},
	{"print(f\"{x!r:>8} and {y}\")\n", `(expr (call print (fstring (field x !r :">8") " and " (field y))))`},
}

func TestStatements(t *testing.T) {
	for _, tt := range statementCases {
		f, errs := ParseFile("t.py", []byte(tt.src))
		if len(errs) > 0 {
			t.Errorf("%q: %v", tt.src, errs)
			continue
		}
		var parts []string
		for _, s := range f.Body {
			parts = append(parts, Dump(s))
		}
		if got := strings.Join(parts, "\n"); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestDocstrings(t *testing.T) {
	src := `"""Module doc."""
def f():
    "Function doc."
    return 1
class C:
    """Class doc."""
def g():
    x = "not a doc"
    "too late"
def h():
    f"not a doc {x}"
`
	f, errs := ParseFile("t.py", []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if f.Doc == nil || f.Doc.Value != "Module doc." || f.Doc != f.Body[0].(*ExprStmt).X {
		t.Errorf("module doc: %+v", f.Doc)
	}
	if d := f.Body[1].(*FuncDef).Doc; d == nil || d.Value != "Function doc." {
		t.Errorf("function doc: %+v", d)
	}
	if d := f.Body[2].(*ClassDef).Doc; d == nil || d.Value != "Class doc." {
		t.Errorf("class doc: %+v", d)
	}
	for _, i := range []int{3, 4} {
		if d := f.Body[i].(*FuncDef).Doc; d != nil {
			t.Errorf("%s: got doc %q, want none", f.Body[i].(*FuncDef).Name, d.Value)
		}
	}
}

func TestStringRaw(t *testing.T) {
	x, errs := ParseExpr("e", `r"a\n"  'b'`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s := x.(*StringLit)
	if s.Value != `a\nb` || s.Raw != `r"a\n"  'b'` {
		t.Errorf("got value %q raw %q", s.Value, s.Raw)
	}
}

// TestFStringFieldPositions checks that f-string fields are parsed in place:
// their nodes carry the file's lines and columns.
func TestFStringFieldPositions(t *testing.T) {
	src := "x = 1\nmsg = f'''head\n  {alpha + beta!r} and {gamma:>{w}}'''\n"
	f, errs := ParseFile("t.py", []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	fs := f.Body[1].(*AssignStmt).Value.(*FStringLit)
	var idents []*Ident
	Walk(fs, func(n Node) bool {
		if id, ok := n.(*Ident); ok {
			idents = append(idents, id)
		}
		return true
	})
	want := []struct {
		name      string
		line, col int
	}{{"alpha", 3, 4}, {"beta", 3, 12}, {"gamma", 3, 25}}
	if len(idents) != len(want) {
		t.Fatalf("got %d names, want %d", len(idents), len(want))
	}
	for i, w := range want {
		id := idents[i]
		if id.Name != w.name || id.Pos.Start.Line != w.line || id.Pos.Start.Col != w.col {
			t.Errorf("got %s at %d:%d, want %s at %d:%d", id.Name, id.Pos.Start.Line, id.Pos.Start.Col, w.name, w.line, w.col)
		}
		if got := src[id.Pos.Start.Offset:id.Pos.End.Offset]; got != w.name {
			t.Errorf("span of %s covers %q", w.name, got)
		}
	}
	if fs.Parts[1].Conv != "r" || fs.Parts[3].Format != ">{w}" {
		t.Errorf("parts: %+v", fs.Parts)
	}
}

func TestParseExprMultiline(t *testing.T) {
	x, errs := ParseExpr("entry", "build(\n  4,\n  mode='ring')")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got, want := Dump(x), `(call build 4 (kw mode "ring"))`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	c := x.(*CallExpr)
	if c.Rparen.Start.Line != 3 || c.Rparen.Start.Col != 14 {
		t.Errorf("rparen at %v", c.Rparen.Start)
	}
}

func TestWalkSkip(t *testing.T) {
	f, errs := ParseFile("t.py", []byte("def f(a=g(1)):\n    return h(2)\nx = k(3)\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var calls []string
	Walk(f, func(n Node) bool {
		if c, ok := n.(*CallExpr); ok {
			calls = append(calls, c.Fn.(*Ident).Name)
		}
		_, isDef := n.(*FuncDef)
		return !isDef
	})
	if got := strings.Join(calls, ","); got != "k" {
		t.Errorf("calls outside defs: got %s, want k", got)
	}
	calls = nil
	Walk(f, func(n Node) bool {
		if c, ok := n.(*CallExpr); ok {
			calls = append(calls, c.Fn.(*Ident).Name)
		}
		return true
	})
	if got := strings.Join(calls, ","); got != "g,h,k" {
		t.Errorf("all calls in order: got %s, want g,h,k", got)
	}
}

// TestLayoutVariants parses the same program with a byte order mark, CRLF
// line ends and tab indentation: same tree, and spans still agree with the
// offsets.
func TestLayoutVariants(t *testing.T) {
	plain := "def f(a):\n    if a:\n        return [a,\n            a]\n    return None\n"
	variants := map[string]string{
		"bom":  "\xef\xbb\xbf" + plain,
		"crlf": strings.ReplaceAll(plain, "\n", "\r\n"),
		"tabs": strings.ReplaceAll(strings.ReplaceAll(plain, "        ", "\t\t"), "    ", "\t"),
	}
	base, errs := ParseFile("t.py", []byte(plain))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := Dump(base)
	for name, src := range variants {
		f, errs := ParseFile("t.py", []byte(src))
		if len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
			continue
		}
		if got := Dump(f); got != want {
			t.Errorf("%s: tree differs:\n%s\nwant\n%s", name, got, want)
		}
		for _, problem := range spanProblems(f, []byte(src), true) {
			t.Errorf("%s: %s", name, problem)
		}
	}
}
