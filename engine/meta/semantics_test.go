package meta

import (
	"strings"
	"testing"
)

// semanticsPrelude defines the functions the expression table calls. Every
// expected value below is what CPython 3 prints for repr() of the same
// expression after running this prelude.
const semanticsPrelude = `SIZE = 64
xs = [3, 1, 2]
d = {"a": 1, "b": 2}
def f(a, b=2, *args, c=5, **kw):
    return (a, b, args, c, kw)
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
def make_adder(k):
    def add(x):
        return x + k
    return add
def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    inc(); inc()
    return inc()
G = 0
def bump():
    global G
    G += 10
    return G
def loops():
    out = []
    for i in range(10):
        if i % 2 == 0:
            continue
        if i > 7:
            break
        out.append(i)
    else:
        out.append("no")
    j = 0
    while j < 3:
        j += 1
    else:
        out.append(j)
    return out
def unpack():
    a, (b, c), *rest = 1, (2, 3), 4, 5
    first, *mid, last = "hello"
    return a, b, c, rest, first, mid, last
def tryit(x):
    try:
        return 10 // x
    except ZeroDivisionError as e:
        return str(e)
    finally:
        pass
class MyErr(ValueError):
    pass
def raise_mine():
    try:
        raise MyErr("boom")
    except ValueError as e:
        return "caught " + str(e)
`

func TestExprSemantics(t *testing.T) {
	m := load(t, semanticsPrelude)
	for _, tc := range []struct{ expr, want string }{
		{"-7 // 2", "-4"},
		{"-7 % 2", "1"},
		{"7 // -2", "-4"},
		{"7 % -2", "-1"},
		{"-7 // -2", "3"},
		{"-7 % -2", "-1"},
		{"7.5 // 2", "3.0"},
		{"-7.5 // 2", "-4.0"},
		{"-7.5 % 2", "0.5"},
		{"7.5 % -2", "-0.5"},
		{"2 ** 10", "1024"},
		{"2 ** -1", "0.5"},
		{"(-2) ** 3", "-8"},
		{"2.0 ** 0.5", "1.4142135623730951"},
		{"True + 1", "2"},
		{"True * 3", "3"},
		{"-True", "-1"},
		{"~5", "-6"},
		{"~True", "-2"},
		{"True & False", "False"},
		{"True | 2", "3"},
		{"6 ^ 3", "5"},
		{"1 << 10", "1024"},
		{"-16 >> 2", "-4"},
		{"7 / 2", "3.5"},
		{"1 / 3", "0.3333333333333333"},
		{"6 / 3", "2.0"},
		{"0.1 + 0.2", "0.30000000000000004"},
		{"1e16", "1e+16"},
		{"1e-5", "1e-05"},
		{"123456789.0 * 10", "1234567890.0"},
		{"float(\"inf\")", "inf"},
		{"-0.0", "-0.0"},
		{"\"ab\" + \"cd\"", "'abcd'"},
		{"\"ab\" * 3", "'ababab'"},
		{"3 * \"ab\"", "'ababab'"},
		{"[1, 2] * 2", "[1, 2, 1, 2]"},
		{"(1,) * 3", "(1, 1, 1)"},
		{"\"%d items\" % 5", "'5 items'"},
		{"\"%5.2f|%-4s|%04d|%x|%r\" % (3.14159, \"ab\", 42, 255, \"q\")", "\" 3.14|ab  |0042|ff|'q'\""},
		{"\"%s and %s\" % (\"a\", \"b\")", "'a and b'"},
		{"\"%(a)s-%(b)d\" % {\"a\": \"x\", \"b\": 3}", "'x-3'"},
		{"\"a,b,,c\".split(\",\")", "['a', 'b', '', 'c']"},
		{"\"  a b  c \".split()", "['a', 'b', 'c']"},
		{"\"a b c\".split(None, 1)", "['a', 'b c']"},
		{"\"a,b,c\".rsplit(\",\", 1)", "['a,b', 'c']"},
		{"\"-\".join([\"x\", \"y\", \"z\"])", "'x-y-z'"},
		{"\"{} {:>5} {name}\".format(1, \"ab\", name=\"n\")", "'1    ab n'"},
		{"\"{0}{1}{0}\".format(\"a\", \"b\")", "'aba'"},
		{"\"{:,}\".format(1234567)", "'1,234,567'"},
		{"\"Hello\".upper()", "'HELLO'"},
		{"\"Hello\".lower()", "'hello'"},
		{"\"  pad  \".strip()", "'pad'"},
		{"\"xxhixx\".strip(\"x\")", "'hi'"},
		{"\"hello\".startswith(\"he\")", "True"},
		{"\"hello\".endswith((\"lo\", \"x\"))", "True"},
		{"\"hello\".replace(\"l\", \"L\")", "'heLLo'"},
		{"\"hello\".find(\"l\")", "2"},
		{"\"hello\".count(\"l\")", "2"},
		{"\"hello\"[1:4]", "'ell'"},
		{"\"hello\"[::-1]", "'olleh'"},
		{"\"hello\"[-1]", "'o'"},
		{"\"a\" < \"b\" < \"c\"", "True"},
		{"1 < 2 > 1", "True"},
		{"1 < 2 < 1", "False"},
		{"1 == 1.0", "True"},
		{"\"a\" in \"cat\"", "True"},
		{"3 in [1, 2, 3]", "True"},
		{"\"a\" not in d", "False"},
		{"\"a\" in d", "True"},
		{"None is None", "True"},
		{"[] is []", "False"},
		{"0 or \"x\"", "'x'"},
		{"\"\" or 0", "0"},
		{"1 and 2", "2"},
		{"0 and 1/0", "0"},
		{"[] or [1]", "[1]"},
		{"1 if True else 2", "1"},
		{"f\"{SIZE}\"", "'64'"},
		{"f\"{SIZE:5d}|{SIZE:<5}|{SIZE:^7}|{SIZE:*>6}\"", "'   64|64   |  64   |****64'"},
		{"f\"{3.14159:.2f}\"", "'3.14'"},
		{"f\"{1234567:,}\"", "'1,234,567'"},
		{"f\"{1234567.891:,.2f}\"", "'1,234,567.89'"},
		{"f\"{'s'!r}\"", "\"'s'\""},
		{"f\"{'s'!s:>3}\"", "'  s'"},
		{"f\"{42:08.3f}\"", "'0042.000'"},
		{"f\"{255:#x} {255:b} {255:o} {255:X}\"", "'0xff 11111111 377 FF'"},
		{"f\"{-3:+d} {3:+d} {3: d}\"", "'-3 +3  3'"},
		{"f\"{0.5:%}\"", "'50.000000%'"},
		{"f\"{0.25:.1%}\"", "'25.0%'"},
		{"f\"{1e20:g} {1e-5:g} {123.456:g} {123.456:.2g}\"", "'1e+20 1e-05 123.456 1.2e+02'"},
		{"f\"{1.5e300:e}\"", "'1.500000e+300'"},
		{"f\"{True}\"", "'True'"},
		{"f\"{True:d}\"", "'1'"},
		{"f\"{True:>5}\"", "'    1'"},
		{"f\"{None}\"", "'None'"},
		{"f\"{xs}\"", "'[3, 1, 2]'"},
		{"f\"{d}\"", "\"{'a': 1, 'b': 2}\""},
		{"f\"{SIZE:{8}}\"", "'      64'"},
		{"f\"{3.0}\"", "'3.0'"},
		{"f\"{2.5:.0f} {3.5:.0f}\"", "'2 4'"},
		{"[i * i for i in range(5)]", "[0, 1, 4, 9, 16]"},
		{"[i for i in range(10) if i % 3 == 0]", "[0, 3, 6, 9]"},
		{"[(i, j) for i in range(3) for j in range(i)]", "[(1, 0), (2, 0), (2, 1)]"},
		{"{k: v * 2 for k, v in d.items()}", "{'a': 2, 'b': 4}"},
		{"{x % 3 for x in range(10)}", "{0, 1, 2}"},
		{"sum(x for x in range(5))", "10"},
		{"list(map(lambda x: x + 1, xs))", "[4, 2, 3]"},
		{"sorted(xs)", "[1, 2, 3]"},
		{"sorted(xs, reverse=True)", "[3, 2, 1]"},
		{"sorted([\"bb\", \"a\", \"ccc\"], key=len)", "['a', 'bb', 'ccc']"},
		{"list(reversed(xs))", "[2, 1, 3]"},
		{"list(enumerate(\"ab\"))", "[(0, 'a'), (1, 'b')]"},
		{"list(zip([1, 2, 3], \"ab\"))", "[(1, 'a'), (2, 'b')]"},
		{"min(xs)", "1"},
		{"max(xs)", "3"},
		{"min(3, 1, 2)", "1"},
		{"max([], default=0)", "0"},
		{"abs(-5)", "5"},
		{"abs(-2.5)", "2.5"},
		{"int(\"42\")", "42"},
		{"int(\" -7 \")", "-7"},
		{"int(3.9)", "3"},
		{"int(-3.9)", "-3"},
		{"int(\"ff\", 16)", "255"},
		{"float(\"1.5\")", "1.5"},
		{"str(1.0)", "'1.0'"},
		{"str(10)", "'10'"},
		{"bool(0)", "False"},
		{"bool([1])", "True"},
		{"len(\"h\u00e9llo\")", "5"},
		{"len(d)", "2"},
		{"len(range(0, 10, 3))", "4"},
		{"list(range(10, 0, -3))", "[10, 7, 4, 1]"},
		{"range(5)[2]", "2"},
		{"range(0, 20, 5)[1:3]", "range(5, 15, 5)"},
		{"isinstance(True, int)", "True"},
		{"isinstance(1, bool)", "False"},
		{"isinstance(1.0, (int, float))", "True"},
		{"isinstance(\"s\", str)", "True"},
		{"round(2.5)", "2"},
		{"round(3.5)", "4"},
		{"round(-0.5)", "0"},
		{"divmod(-7, 2)", "(-4, 1)"},
		{"pow(2, 10, 1000)", "24"},
		{"all([1, 1, 0])", "False"},
		{"any([0, 0, 1])", "True"},
		{"chr(65) + str(ord(\"a\"))", "'A97'"},
		{"hex(255)", "'0xff'"},
		{"bin(5)", "'0b101'"},
		{"repr(\"it's\")", "'\"it\\'s\"'"},
		{"repr('say \"hi\"')", "'\\'say \"hi\"\\''"},
		{"repr(\"both ' and \\\"\")", "'\\'both \\\\\\' and \"\\''"},
		{"repr(\"tab\\there\\n\")", "\"'tab\\\\there\\\\n'\""},
		{"(1,)", "(1,)"},
		{"()", "()"},
		{"(1, 2) + (3,)", "(1, 2, 3)"},
		{"[1, 2] + [3]", "[1, 2, 3]"},
		{"{\"x\": [1, {\"y\": (2,)}]}", "{'x': [1, {'y': (2,)}]}"},
		{"set()", "set()"},
		{"{1, 2}", "{1, 2}"},
		{"d.get(\"z\", 9)", "9"},
		{"d.get(\"a\")", "1"},
		{"list(d.keys())", "['a', 'b']"},
		{"list(d.values())", "[1, 2]"},
		{"list(d.items())", "[('a', 1), ('b', 2)]"},
		{"f(1)", "(1, 2, (), 5, {})"},
		{"f(1, 2, 3, 4, c=6, z=7)", "(1, 2, (3, 4), 6, {'z': 7})"},
		{"f(*[1, 2], **{\"c\": 3})", "(1, 2, (), 3, {})"},
		{"fact(10)", "3628800"},
		{"make_adder(5)(10)", "15"},
		{"counter()", "3"},
		{"bump()", "10"},
		{"loops()", "[1, 3, 5, 7, 3]"},
		{"unpack()", "(1, 2, 3, [4, 5], 'h', ['e', 'l', 'l'], 'o')"},
		{"tryit(0)", "'integer division or modulo by zero'"},
		{"tryit(3)", "3"},
		{"raise_mine()", "'caught boom'"},
		{"[1, 2][1:10]", "[2]"},
		{"-9223372036854775807 - 1", "-9223372036854775808"},
		{"2 ** 62", "4611686018427387904"},
		{"[1, 2] < [1, 3]", "True"},
		{"(1, 2) < (1, 2, 0)", "True"},
		{"\"10\" < \"9\"", "True"},
		{"[3, 2, 1].index(2)", "1"},
		{"\"\".join(sorted(\"cba\"))", "'abc'"},
		{"\"a-b-c\".partition(\"-\")", "('a', '-', 'b-c')"},
		{"\"abc\".center(9, \"*\")", "'***abc***'"},
		{"\"42\".zfill(5)", "'00042'"},
		{"\"-42\".zfill(5)", "'-0042'"},
		{"\"hello world\".title()", "'Hello World'"},
		{"\"x\".isidentifier()", "True"},
		{"\"1x\".isidentifier()", "False"},
		{"(lambda *a, **k: (a, k))(1, 2, x=3)", "((1, 2), {'x': 3})"},
		{"(lambda x, y=2: x * y)(4)", "8"},
		{"[x for x in \"ab\"] + list(\"cd\")", "['a', 'b', 'c', 'd']"},
		{"dict(a=1, b=2)", "{'a': 1, 'b': 2}"},
		{"dict([(1, 2), (3, 4)])", "{1: 2, 3: 4}"},
		{"sum([[1], [2]], [])", "[1, 2]"},
		{"sum([0.1] * 10)", "0.9999999999999999"},
		{"max(\"abc\", key=lambda c: -ord(c))", "'a'"},
		{"[1, 2, 3][::2]", "[1, 3]"},
		{"[1, 2, 3][::-1]", "[3, 2, 1]"},
		{"[1, 2, 3, 4][-3:-1]", "[2, 3]"},
		{"\"abc\"[5:]", "''"},
		{"3 * [0]", "[0, 0, 0]"},
		{"0 ** 0", "1"},
		{"\"%%\" % ()", "'%'"},
		{"\"%s\" % (1,)", "'1'"},
		{"\"%.3s\" % \"abcdef\"", "'abc'"},
		{"\"%+.1e\" % 12345.678", "'+1.2e+04'"},
		{"\"%g\" % 0.00001", "'1e-05'"},
		{"\"%5s|%-5s|\" % (\"a\", \"b\")", "'    a|b    |'"},
		{"f\"{12:>{6}}\"", "'    12'"},
		{"f\"{'x':<4}|\"", "'x   |'"},
		{"f\"{3:03}\"", "'003'"},
		{"f\"{-3:05}\"", "'-0003'"},
		{"f\"{1234:_}\"", "'1_234'"},
		{"f\"{1234:_x}\"", "'4d2'"},
		{"f\"{3.0:g}\"", "'3'"},
		{"f\"{100000000.0:g}\"", "'1e+08'"},
		{"f\"{0.0001:g}\"", "'0.0001'"},
		{"f\"{1.0:.3}\"", "'1.0'"},
		{"f\"{1234.5:.2}\"", "'1.2e+03'"},
		{"f\"{10.0:.1}\"", "'1e+01'"},
		{"f\"{float('nan')}\"", "'nan'"},
		{"f\"{float('-inf'):>6}\"", "'  -inf'"},
	} {
		v, errs := m.Eval(tc.expr)
		if len(errs) > 0 {
			t.Errorf("%s: %v", tc.expr, errs)
			continue
		}
		if got := Repr(v); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

// TestExprErrors checks that Python's run-time errors become diagnostics
// with the right code, a message naming the values, and the span of the
// offending expression.
func TestExprErrors(t *testing.T) {
	m := load(t, semanticsPrelude)
	for _, tc := range []struct {
		expr, code, msg string
		col, endCol     int // span of the offending expression in "<entry>"
	}{
		{"1 / 0", CodeZeroDiv, "division by zero", 1, 6},
		{"10 % 0", CodeZeroDiv, "integer division or modulo by zero", 1, 7},
		{"1.0 % 0", CodeZeroDiv, "float floor division or modulo by zero", 1, 8},
		{"5 // 0.0", CodeZeroDiv, "float floor division or modulo by zero", 1, 9},
		{"0.0 ** -1", CodeZeroDiv, "0.0 cannot be raised to a negative power", 1, 10},
		{"xs[5]", CodeIndex, "list index out of range: got 5, want -3..2", 1, 6},
		{"xs[-4]", CodeIndex, "list index out of range: got -4, want -3..2", 1, 7},
		{"[][0]", CodeIndex, "list index out of range: got 0, but the list is empty", 1, 6},
		{"d['z']", CodeIndex, "key 'z' not found in the dict", 1, 7},
		{"undefined_name", CodeName, "name 'undefined_name' is not defined", 1, 15},
		{"1 + (2 * \"a\" - 1)", CodeType, "unsupported operand types for -: got 'str' and 'int'", 6, 17},
		{"f()", CodeArgs, "f() missing 1 required argument: 'a'", 1, 4},
		{"f(1, 2, a=3)", CodeArgs, "f() got multiple values for argument 'a'", 1, 13},
		{"make_adder(1, 2)", CodeArgs, "make_adder() takes 1 positional arguments, got 2", 1, 17},
		{"make_adder(1)(y=2)", CodeArgs, "add() got an unexpected keyword argument 'y'", 1, 19},
		{"int('abc')", CodeValue, "invalid literal for int() with base 10: 'abc'", 1, 11},
		{"9223372036854775807 + 1", CodeOverflow, "integer overflow: 9223372036854775807 + 1 does not fit in 64 bits", 1, 24},
		{"2 ** 63", CodeOverflow, "integer overflow: 2 ** 63 does not fit in 64 bits", 1, 8},
		{"-(-9223372036854775807 - 1)", CodeOverflow, "does not fit in 64 bits", 1, 28},
		{"'%d' % 'x'", CodeType, "%d format: a number is required, got 'str'", 1, 11},
		{"'{:d}'.format('x')", CodeValue, "unknown format code 'd' for a value of type 'str'", 1, 19},
		{"'abc'.index('z')", CodeValue, "substring 'z' not found", 1, 17},
		{"'x'.join([1])", CodeType, "sequence item 0: expected str instance, got 'int'", 1, 14},
		{"(1, [2]) in {}", CodeType, "unhashable type: 'list'", 1, 15},
		{"1 < 'a'", CodeType, "'<' not supported between instances of 'int' and 'str'", 1, 8},
		{"(-8) ** (1/3)", CodeValue, "complex", 1, 14},
		{"'%s %s' % (1,)", CodeType, "not enough arguments for format string '%s %s'", 1, 15},
		{"'%s' % (1, 2)", CodeType, "not all arguments converted during string formatting", 1, 14},
		{"len(3)", CodeType, "object of type 'int' has no len()", 1, 7},
		{"range(1, 2, 0)", CodeValue, "range() step must not be zero", 1, 15},
		{"xs.nope", CodeAttr, "'list' object has no attribute 'nope'", 1, 8},
	} {
		d := evalErr(t, m, tc.expr)
		if d.Code != tc.code || !strings.Contains(d.Msg, tc.msg) {
			t.Errorf("%s: got %s %q, want %s %q", tc.expr, d.Code, d.Msg, tc.code, tc.msg)
		}
		if d.Span.File != "<entry>" || d.Span.Start.Col != tc.col || d.Span.End.Col != tc.endCol {
			t.Errorf("%s: span %s..%d, want <entry>:1:%d..%d", tc.expr, d.Span, d.Span.End.Col, tc.col, tc.endCol)
		}
		if d.Hint == "" {
			t.Errorf("%s: no hint", tc.expr)
		}
	}
}
