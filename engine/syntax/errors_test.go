package syntax

import (
	"regexp"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
)

// errorCases are syntax errors with the one diagnostic each must produce.
var errorCases = []struct {
	name, src, code, msg string
	line, col            int
}{
	// The cases the brief names.
	{"missing colon after for", "for x in y\n    pass\n", "E0002", "expected ':' after the for header, found newline", 1, 11},
	{"unterminated string", "x = 1\ny = 'abc\n", "E0003", "unterminated string: the line ends before the closing '", 2, 5},
	{"unmatched paren", "total = add(1,\n    2\nprint(total)\n", "E0004", "'(' was never closed", 1, 12},
	{"bad dedent", "def f():\n        x = 1\n    y = 2\n", "E0005", "unindent does not match any outer indentation level: got 4 spaces, want 0 or 8", 3, 1},
	{"def f(:", "def f(:\n    pass\n", "E0001", "expected a parameter name or ')', found ':'", 1, 7},

	// Missing colons point just past the header.
	{"missing colon after if", "if a == 1  # note\n    pass\n", "E0002", "expected ':' after the if header, found newline", 1, 10},
	{"missing colon after def", "def f(x) -> int\n    pass\n", "E0002", "expected ':' after the def header, found newline", 1, 16},
	{"missing colon after else", "if a:\n    b\nelse\n    c\n", "E0002", "expected ':' after 'else', found newline", 3, 5},
	{"missing colon after class", "class A(B)\n    pass\n", "E0002", "expected ':' after the class header, found newline", 1, 11},
	{"assign in if header", "if x = 1:\n    pass\n", "E0001", "found '=' in the if header: compare with '==', or assign on a line of its own", 1, 6},
	{"walrus in while header", "while x := f():\n    pass\n", "E0011", "assignment expressions (:=) are not supported: assign on a line of its own", 1, 9},
	{"missing colon in dict", "d = {1 2}\n", "E0001", "expected '}' or ',' after the item, found number 2", 1, 8},

	// Blocks and indentation.
	{"missing block", "for x in y:\nprint(x)\n", "E0005", "expected an indented block after the for header on line 1, found name 'print'", 2, 1},
	{"missing block at eof", "while a:\n", "E0005", "expected an indented block after the while header on line 1, found end of file", 2, 1},
	{"unexpected indent", "x = 1\n    y = 2\n", "E0005", "unexpected indent: this line is indented more than the one before it, which does not open a block", 2, 1},
	{"tabs and spaces", "if a:\n        b\n\tc\n", "E0005", "inconsistent use of tabs and spaces in indentation", 3, 1},
	{"stray else", "x = 1\nelse:\n    pass\n", "E0001", "'else' without an if (or for/while/try) before it at the same indentation", 2, 1},
	{"stray except", "except E:\n    pass\n", "E0001", "'except' without a try before it at the same indentation", 1, 1},

	// Brackets: an unclosed bracket on an earlier line wins over the error it causes,
	// but not over an error on its own line.
	{"mismatched bracket", "x = foo(a, [b, c)\n", "E0004", "closing ')' does not match '[' opened at line 1, column 12", 1, 17},
	{"unmatched close", "x = a]\n", "E0004", "unmatched ']': no '[' is open", 1, 6},
	{"unclosed list at eof", "x = [1,\n     2,\n", "E0004", "'[' was never closed", 1, 5},
	{"error on bracket line wins", "x = f(a b\n", "E0001", "expected ')' or ',' after the argument, found name 'b'", 1, 9},

	// Expressions.
	{"missing operand", "x = 1 +\n", "E0001", "expected an expression, found newline", 1, 8},
	{"two names", "print 'hello'\n", "E0001", "expected the end of the line after the expression, found string 'hello'", 1, 7},
	{"conditional without else", "x = a if b\n", "E0001", "expected 'else' in the conditional expression, found newline", 1, 11},
	{"not without in", "x = a not b\n", "E0001", "expected 'in' after 'not' in a comparison, found name 'b'", 1, 11},
	{"keyword as name", "class = 3\n", "E0001", "expected a class name after 'class', found '='", 1, 7},
	{"missing attribute", "x = a.\n", "E0001", "expected an attribute name after '.', found newline", 1, 7},
	{"keyword arg expression", "f(a.b=1)\n", "E0001", "a keyword argument needs a plain name before '=': did you mean '=='?", 1, 3},
	{"lone star", "*a\n", "E0001", "a starred expression cannot stand alone: use it inside a list, a tuple or a call", 1, 1},
	{"starred in parens", "x = (*a)\n", "E0001", "a starred expression in parentheses needs a ',' after it to make a tuple", 1, 6},

	// Assignment targets.
	{"assign to call", "f(x) = 1\n", "E0010", "cannot assign to a function call", 1, 1},
	{"assign to literal", "1 = x\n", "E0010", "cannot assign to a literal", 1, 1},
	{"assign to comparison", "a < b = c\n", "E0010", "cannot assign to a comparison", 1, 1},
	{"aug assign to tuple", "a, b += 1\n", "E0010", "an augmented assignment (+=) needs a single target, not a tuple", 1, 1},
	{"annotate tuple", "a, b: int\n", "E0010", "an annotation needs a single target, not a tuple", 1, 1},
	{"for target call", "for f() in x:\n    pass\n", "E0010", "cannot assign to a function call", 1, 5},
	{"two starred", "*a, *b = c\n", "E0010", "only one starred target is allowed in an assignment", 1, 5},
	{"assign to True", "True = 1\n", "E0010", "cannot assign to 'True'", 1, 1},

	// Parameters and arguments.
	{"default order", "def f(a=1, b):\n    pass\n", "E0013", "parameter 'b' without a default follows a parameter with a default", 1, 12},
	{"duplicate param", "def f(a, a):\n    pass\n", "E0013", "duplicate parameter 'a'", 1, 10},
	{"bare star alone", "def f(a, *):\n    pass\n", "E0013", "a bare '*' must be followed by at least one named parameter", 1, 10},
	{"after kwargs", "def f(**k, a):\n    pass\n", "E0013", "no parameter can follow **k", 1, 12},
	{"positional after keyword", "f(a=1, b)\n", "E0013", "positional argument after a keyword argument", 1, 8},
	{"repeated keyword", "f(a=1, a=2)\n", "E0013", "keyword argument 'a' given twice", 1, 8},
	{"genexp with others", "f(x for x in y, 1)\n", "E0013", "a generator expression must be in parentheses when the call has other arguments", 1, 17},

	// Out of place and unsupported.
	{"return at module level", "return 1\n", "E0012", "'return' outside a function", 1, 1},
	{"break outside loop", "def f():\n    break\n", "E0012", "'break' outside a loop", 2, 5},
	{"continue in def in loop", "for x in y:\n    def f():\n        continue\n", "E0012", "'continue' outside a loop", 3, 9},
	{"return in class body", "def f():\n    class A:\n        return 1\n", "E0012", "'return' outside a function", 3, 9},
	{"walrus", "if (n := 10) > 5:\n    pass\n", "E0011", "assignment expressions (:=) are not supported: assign on a line of its own", 1, 7},
	{"yield outside a function", "yield 1\n", "E0012", "'yield' outside a function", 1, 1},
	{"yield as a value", "def g():\n    x = yield 1\n", "E0011", "'yield' is not supported", 2, 9},
	{"async def", "async def f():\n    pass\n", "E0011", "'async' is not supported", 1, 1},
	{"positional-only", "def f(a, /, b):\n    pass\n", "E0011", "positional-only parameters ('/') are not supported", 1, 10},

	// Strings and f-strings, reported by the parser with the file's positions.
	{"f-string field syntax", "x = f'{a +}'\n", "E0001", "expected an expression, found end of file", 1, 11},
	{"f-string field extra", "x = f'{a b}'\n", "E0007", "expected the end of the f-string field opened at line 1, column 7, found name 'b'", 1, 10},
	{"f-string field bracket", "msg = f'''\n  {f(a}'''\n", "E0007", "f-string field '{' is never closed: want '}'", 2, 3},
	{"bytes and text", "x = b'a' 'b'\n", "E0009", "cannot join a bytes literal and a text literal", 1, 10},
	{"bytes f-string", "x = bf'a'\n", "E0001", "expected the end of the line after the assignment, found string 'a'", 1, 7},
	{"unterminated triple", "def f():\n    '''doc\n    return 1\n", "E0003", "unterminated triple-quoted string: no closing ''' before the end of the file", 2, 5},

	// Deep nesting is refused, not a stack overflow.
	{"deep unary", "x = " + strings.Repeat("-", maxDepth+10) + "1\n", "E0014", "nested too deeply: the limit is 1000 levels of expressions and blocks", 1, 1003}, // the statement and the right-hand side count too
}

func TestErrors(t *testing.T) {
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			_, errs := ParseFile("t.py", src)
			if len(errs) != 1 {
				t.Fatalf("%q: got %d diagnostics %v, want exactly 1", tt.src, len(errs), errs)
			}
			d := errs[0]
			if d.Code != tt.code || d.Msg != tt.msg || d.Span.Start.Line != tt.line || d.Span.Start.Col != tt.col {
				t.Errorf("%q:\n got %s %d:%d %q\nwant %s %d:%d %q", tt.src, d.Code, d.Span.Start.Line, d.Span.Start.Col, d.Msg, tt.code, tt.line, tt.col, tt.msg)
			}
			if d.Severity != diag.Error || d.Hint == "" || d.Span.File != "t.py" {
				t.Errorf("severity %v, hint %q, file %q", d.Severity, d.Hint, d.Span.File)
			}
			checkPos(t, src, d.Span.Start)
			checkPos(t, src, d.Span.End)
			if d.Span.End.Offset < d.Span.Start.Offset {
				t.Errorf("span ends before it starts: %+v", d.Span)
			}
		})
	}
}

// TestErrorCodesUsed checks the code table: well-formed, unique, hinted, and
// every code exercised by at least one case above.
func TestErrorCodesUsed(t *testing.T) {
	used := map[string]bool{}
	for _, c := range errorCases {
		used[c.code] = true
	}
	// Codes only the scanner tests reach.
	used["E0006"], used["E0008"] = true, true
	seen := map[string]bool{}
	form := regexp.MustCompile(`^E00\d\d$`)
	for _, e := range ErrorCodes() {
		if !form.MatchString(e.Code) || e.Title == "" || e.Hint == "" {
			t.Errorf("malformed entry %+v", e)
		}
		if seen[e.Code] {
			t.Errorf("duplicate code %s", e.Code)
		}
		seen[e.Code] = true
		if !used[e.Code] {
			t.Errorf("code %s (%s) is not exercised by any test", e.Code, e.Title)
		}
	}
}

// TestRenderMissingColon shows what a learner sees: the caret sits just past
// the header.
func TestRenderMissingColon(t *testing.T) {
	src := []byte("for r in pl.range(4)\n    pass\n")
	_, errs := ParseFile("prog.py", src)
	got := diag.Render(errs[0], src)
	want := "prog.py:1:21: error E0002: expected ':' after the for header, found newline\n" +
		" 1 | for r in pl.range(4)\n" +
		"   |                     ^\n" +
		"  hint: " + errorTable[errMissingColon].Hint + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPartialFile(t *testing.T) {
	f, errs := ParseFile("t.py", []byte("a = 1\ndef f():\n    return 2\nb = (\n"))
	if len(errs) != 1 {
		t.Fatalf("got %v", errs)
	}
	if f == nil || len(f.Body) != 2 {
		t.Fatalf("want the two statements before the error, got %+v", f)
	}
	if _, ok := f.Body[1].(*FuncDef); !ok {
		t.Errorf("second statement is %T", f.Body[1])
	}
}

func TestParseExprErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"f(1", "'(' was never closed"},
		{"a b", "expected the end of the expression, found name 'b'"},
		{"", "expected an expression, found end of file"},
		{"x = 1", "expected the end of the expression, found '='"},
	}
	for _, tt := range tests {
		x, errs := ParseExpr("entry", tt.src)
		if len(errs) != 1 || errs[0].Msg != tt.msg {
			t.Errorf("%q: got %v, want %q", tt.src, errs, tt.msg)
			continue
		}
		if x != nil {
			t.Errorf("%q: got a tree with an error", tt.src)
		}
		checkPos(t, []byte(tt.src), errs[0].Span.Start)
	}
}
