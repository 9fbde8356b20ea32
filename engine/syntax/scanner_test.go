package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
)

// scanAll scans src and renders its tokens compactly: NL, >, < for NEWLINE,
// INDENT, DEDENT; strings as their quoted values; f-strings as f[...] with
// fields as {start-end!conv:format}; everything else as its text. The
// scanner's first error, if any, is returned instead.
func scanAll(src string) (string, *diag.Diagnostic) {
	var err *diag.Diagnostic
	b := []byte(src)
	sc := newScanner(b, src, cursor{line: 1}, len(b), false, func(start, end Pos, k errKind, msg string) {
		err = &diag.Diagnostic{Span: Span{Start: start, End: end}, Code: errorTable[k].Code, Msg: msg}
	})
	var out []string
	for i := 0; ; i++ {
		if i > 10*len(src)+10 {
			panic("scanner does not terminate")
		}
		t := sc.next()
		if err != nil {
			return "", err
		}
		switch t.kind {
		case tEOF:
			return strings.Join(out, " "), nil
		case tNewline:
			out = append(out, "NL")
		case tIndent:
			out = append(out, ">")
		case tDedent:
			out = append(out, "<")
		case tString:
			out = append(out, strconv.Quote(t.str.value))
		case tFString:
			var parts []string
			for _, p := range t.str.parts {
				if !p.isExpr {
					parts = append(parts, strconv.Quote(p.text))
					continue
				}
				f := fmt.Sprintf("{%s", src[p.start.Offset:p.end])
				if p.conv != "" {
					f += "!" + p.conv
				}
				if p.format != "" {
					f += ":" + p.format
				}
				parts = append(parts, f+"}")
			}
			out = append(out, "f["+strings.Join(parts, " ")+"]")
		default:
			out = append(out, t.text)
		}
	}
}

// scanCases pin the token stream of small sources; they also seed FuzzParse.
var scanCases = []struct {
	name, src, want string
}{
	{"simple", "x = 1\n", "x = 1 NL"},
	{"no final newline", "x = 1", "x = 1 NL"},
	{"empty", "", ""},
	{"only comments", "# a\n\n   # b\n", ""},
	{"indent dedent", "if a:\n    b\nc\n", "if a : NL > b NL < c NL"},
	{"two dedents", "if a:\n  if b:\n    c\nd\n", "if a : NL > if b : NL > c NL < < d NL"},
	{"dedent at eof", "if a:\n  if b:\n    c", "if a : NL > if b : NL > c NL < <"},
	{"blank and comment lines keep indent", "if a:\n    b\n\n  # odd comment\n    c\n", "if a : NL > b NL c NL <"},
	{"tabs are 8 columns", "if a:\n\tb\n\tc\n", "if a : NL > b NL c NL <"},
	{"brackets join lines", "f(a,\n  b,\n)\nx\n", "f ( a , b , ) NL x NL"},
	{"indent ignored in brackets", "x = [\n        1,\n  2]\n", "x = [ 1 , 2 ] NL"},
	{"backslash continuation", "x = 1 + \\\n    2\n", "x = 1 + 2 NL"},
	{"crlf", "x = 1\r\nif a:\r\n    b\r\n", "x = 1 NL if a : NL > b NL <"},
	{"comment after code", "x = 1  # one\n", "x = 1 NL"},
	{"operators longest match", "a **= b // c ** d -> e := f != g <= h >> i ... j", "a **= b // c ** d -> e := f != g <= h >> i ... j NL"},
	{"keywords and names", "not_a and not b in c is None", "not_a and not b in c is None NL"},
	{"unicode name", "π = 3\n", "π = 3 NL"},

	{"quotes", `'a' "b" '''c''' """d"""`, `"a" "b" "c" "d" NL`},
	{"triple with newline", "x = '''a\nb'''\ny\n", `x = "a\nb" NL y NL`},
	{"triple with quotes inside", `"""say "hi" ""x"" """`, `"say \"hi\" \"\"x\"\" " NL`},
	{"escapes", `"\t\n\\\'\"\a\b\f\v\r"`, `"\t\n\\'\"\a\b\f\v\r" NL`},
	{"octal hex unicode", `"\101\x42\u0043\U00000044\0"`, `"ABCD\x00" NL`},
	{"unknown escape kept", `"\d\{"`, `"\\d\\{" NL`},
	{"backslash newline in string", "'a\\\nb'", `"ab" NL`},
	{"raw keeps backslashes", `r'\n\'' R"\d"`, `"\\n\\'" "\\d" NL`},
	{"bytes", `b'\xff\x00' Br'\x' rB"a"`, `"\xff\x00" "\\x" "a" NL`},
	{"u prefix", `u'\u00e9' U"x"`, `"é" "x" NL`},
	{"prefix needs quote", "rb = f", "rb = f NL"},

	{"f-string plain", `f"abc"`, `f["abc"] NL`},
	{"f-string field", `f"a{x}b"`, `f["a" {x} "b"] NL`},
	{"f-string braces", `f"{{x}} {y}}}"`, `f["{x} " {y} "}"] NL`},
	{"f-string conv and format", `f"{x!r:>10} {y:.{p}f} {z!s}"`, `f[{x!r:>10} " " {y:.{p}f} " " {z!s}] NL`},
	{"f-string nested quotes", `f"{d['k']} {g('a')!a}"`, `f[{d['k']} " " {g('a')!a}] NL`},
	{"f-string other quote kind", `f'{x["k"]:>4}'`, `f[{x["k"]:>4}] NL`},
	{"f-string comparison not conversion", `f"{a != b} {a == b} {a <= b}"`, `f[{a != b} " " {a == b} " " {a <= b}] NL`},
	{"f-string colon in brackets", `f"{a[1:2]} {f(x=1)}"`, `f[{a[1:2]} " " {f(x=1)}] NL`},
	{"f-string debug", `f"{x = }"`, `f["x = " {x !r}] NL`},
	{"f-string escapes in text", `f"\t{x}\n"`, `f["\t" {x} "\n"] NL`},
	{"raw f-string", `rf"\d{x}" FR'\n'`, `f["\\d" {x}] f["\\n"] NL`},
	{"triple f-string", "f'''a\n{x +\n 1}'''", `f["a\n" {x +` + "\n" + ` 1}] NL`},

	{"decimal ints", "0 7 00 1_000 123", "0 7 00 1_000 123 NL"},
	{"prefixed ints", "0x1F 0XdeadBEEF 0o17 0O7 0b1010 0B1 0x_ff 0b1_0", "0x1F 0XdeadBEEF 0o17 0O7 0b1010 0B1 0x_ff 0b1_0 NL"},
	{"floats", "1.0 .5 1. 1e-5 1E+3 1_000.000_1 0.0 3.14e2", "1.0 .5 1. 1e-5 1E+3 1_000.000_1 0.0 3.14e2 NL"},
	{"attribute after int", "x.y 1 .real", "x . y 1 . real NL"},
	{"number then dot dot", "1..x", "1. . x NL"},
}

func TestScanTokens(t *testing.T) {
	for _, tt := range scanCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scanAll(tt.src)
			if err != nil {
				t.Fatalf("scan %q: unexpected error %s: %s", tt.src, err.Code, err.Msg)
			}
			if got != tt.want {
				t.Errorf("scan %q:\n got %s\nwant %s", tt.src, got, tt.want)
			}
		})
	}
}

func TestScanPositions(t *testing.T) {
	src := "def f(a):\n    return a  # c\n\nx = f'{a}'\n"
	b := []byte(src)
	sc := newScanner(b, src, cursor{line: 1}, len(b), false, func(_, _ Pos, _ errKind, msg string) { t.Fatal(msg) })
	type tk struct {
		text      string
		line, col int
		endCol    int
	}
	want := []tk{
		{"def", 1, 1, 4}, {"f", 1, 5, 6}, {"(", 1, 6, 7}, {"a", 1, 7, 8}, {")", 1, 8, 9}, {":", 1, 9, 10},
		{"NL", 1, 10, 10}, {">", 2, 1, 5}, {"return", 2, 5, 11}, {"a", 2, 12, 13},
		{"NL", 2, 13, 13}, // right after the last token, not at the comment
		{"<", 4, 1, 1}, {"x", 4, 1, 2}, {"=", 4, 3, 4}, {"f'{a}'", 4, 5, 11}, {"NL", 4, 11, 11},
	}
	for i, w := range want {
		tok := sc.next()
		text := tok.text
		switch tok.kind {
		case tNewline:
			text = "NL"
		case tIndent:
			text = ">"
		case tDedent:
			text = "<"
		}
		if text != w.text || tok.start.Line != w.line || tok.start.Col != w.col || tok.end.Col != w.endCol {
			t.Errorf("token %d: got %q at %d:%d-%d, want %q at %d:%d-%d", i, text, tok.start.Line, tok.start.Col, tok.end.Col, w.text, w.line, w.col, w.endCol)
		}
		checkPos(t, b, tok.start)
		checkPos(t, b, tok.end)
	}
}

// checkPos fails unless p's line and column agree with its offset.
func checkPos(t *testing.T, src []byte, p Pos) {
	t.Helper()
	if msg := posProblem(src, p); msg != "" {
		t.Error(msg)
	}
}

// posProblem describes what is wrong with p as a position in src, or returns "".
func posProblem(src []byte, p Pos) string {
	if p.Offset < 0 || p.Offset > len(src) {
		return fmt.Sprintf("offset %d outside [0, %d]", p.Offset, len(src))
	}
	line, col := 1, 1
	for _, c := range src[:p.Offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	if p.Line != line || p.Col != col {
		return fmt.Sprintf("offset %d is %d:%d, position says %d:%d", p.Offset, line, col, p.Line, p.Col)
	}
	return ""
}

func TestScanNumberValues(t *testing.T) {
	tests := []struct {
		src   string
		int   int64
		float float64
		isInt bool
	}{
		{"0", 0, 0, true},
		{"1_000_000", 1000000, 0, true},
		{"0x1F", 31, 0, true},
		{"0o777", 511, 0, true},
		{"0b1010_1010", 170, 0, true},
		{"9223372036854775807", 9223372036854775807, 0, true},
		{"1.5", 0, 1.5, false},
		{".25", 0, 0.25, false},
		{"2.", 0, 2, false},
		{"1e-5", 0, 1e-5, false},
		{"1_000.5e1_0", 0, 1000.5e10, false},
	}
	for _, tt := range tests {
		x, errs := ParseExpr("n", tt.src)
		if len(errs) > 0 {
			t.Errorf("%s: %v", tt.src, errs)
			continue
		}
		n, ok := x.(*NumberLit)
		if !ok {
			t.Errorf("%s: got %T, want *NumberLit", tt.src, x)
			continue
		}
		if tt.isInt && (n.Kind != IntNumber || n.Int != tt.int) {
			t.Errorf("%s: got kind %d int %d, want int %d", tt.src, n.Kind, n.Int, tt.int)
		}
		if !tt.isInt && (n.Kind != FloatNumber || n.Float != tt.float) {
			t.Errorf("%s: got kind %d float %g, want float %g", tt.src, n.Kind, n.Float, tt.float)
		}
		if n.Raw != tt.src {
			t.Errorf("%s: raw %q", tt.src, n.Raw)
		}
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		src, code, msg string
		line, col      int
	}{
		{"x = 'abc\n", "E0003", "unterminated string: the line ends before the closing '", 1, 5},
		{"x = \"\"\"abc\n\n", "E0003", `unterminated triple-quoted string: no closing """ before the end of the file`, 1, 5},
		{"x = (1,\n2\n", "E0004", "'(' was never closed", 1, 5},
		{"x = [1, 2)\n", "E0004", "closing ')' does not match '[' opened at line 1, column 5", 1, 10},
		{"x = 1)\n", "E0004", "unmatched ')': no '(' is open", 1, 6},
		{"if a:\n    b\n  c\n", "E0005", "unindent does not match any outer indentation level: got 2 spaces, want 0 or 4", 3, 1},
		{"if a:\n        b\n\tc\n", "E0005", "inconsistent use of tabs and spaces in indentation", 3, 1},
		{"x = 1 ? 2\n", "E0008", "unexpected character '?'", 1, 7},
		{"x = a ! b\n", "E0008", "unexpected character '!'", 1, 7},
		{"x = 1 \\ 2\n", "E0008", "unexpected character after the line continuation character '\\': it must be the last character on its line", 1, 7},
		{"x = 1 \\", "E0008", "unexpected end of file after the line continuation character '\\'", 1, 7},
		{"x = 0123\n", "E0006", "bad number '0123': leading zeros are not allowed in a decimal integer (write 0o123 for octal)", 1, 5},
		{"x = 1__0\n", "E0006", "bad number '1__0': '_' must sit between two digits", 1, 5},
		{"x = 0x\n", "E0006", "bad number '0x': want hex digits after 0x", 1, 5},
		{"x = 0b102\n", "E0006", "bad number '0b102': a number cannot run straight into letters or '_'", 1, 5},
		{"x = 1e+\n", "E0006", "bad number '1e+': want digits in the exponent", 1, 5},
		{"x = 2j\n", "E0006", "bad number '2j': imaginary numbers are not supported", 1, 5},
		{"x = 12abc\n", "E0006", "bad number '12abc': a number cannot run straight into letters or '_'", 1, 5},
		{"x = 99999999999999999999\n", "E0006", "integer 99999999999999999999 is too large: the limit is 2**63-1 (9223372036854775807)", 1, 5},
		{`x = "\x4"`, "E0009", `bad escape \x: want 2 hex digits after it`, 1, 6},
		{`x = "\U00110000"`, "E0009", `escape \U00110000 is beyond the last Unicode character U+10FFFF`, 1, 6},
		{`x = b"\777"`, "E0009", `octal escape \777 is out of range for a bytes literal: the limit is \377`, 1, 7},
		{`x = bf"a"`, "E0008", "", 0, 0}, // bf is not a prefix: a name, then a string
		{`x = f"{}"`, "E0007", "empty expression in an f-string field: write {name}, or {{ for a literal brace", 1, 7},
		{`x = f"{a"`, "E0007", "f-string field '{' is never closed: want '}'", 1, 7},
		{`x = f"a}"`, "E0007", "single '}' is not allowed in an f-string: write '}}' for a literal brace", 1, 8},
		{`x = f"{a!z}"`, "E0007", "bad f-string conversion: got 'z' after '!', want r, s or a", 1, 7},
		{`x = f"{a!r x}"`, "E0007", "f-string conversion !r must be followed by ':' or '}'", 1, 7},
		{`x = f"{a # b}"`, "E0007", "an f-string field cannot contain '#'", 1, 7},
		{`x = f"{a['k}"`, "E0007", "unterminated string inside an f-string field", 1, 7},
		{"x = (" + strings.Repeat("(", maxBrackets) + ")", "E0014", "too many nested brackets: the limit is 200", 1, 205},
	}
	for _, tt := range tests {
		_, err := scanAll(tt.src)
		if tt.msg == "" { // must scan cleanly
			if err != nil {
				t.Errorf("scan %q: unexpected error %s", tt.src, err.Msg)
			}
			continue
		}
		if err == nil {
			t.Errorf("scan %q: no error, want %s %q", tt.src, tt.code, tt.msg)
			continue
		}
		if err.Code != tt.code || err.Msg != tt.msg || err.Span.Start.Line != tt.line || err.Span.Start.Col != tt.col {
			t.Errorf("scan %q:\n got %s %d:%d %q\nwant %s %d:%d %q", tt.src, err.Code, err.Span.Start.Line, err.Span.Start.Col, err.Msg, tt.code, tt.line, tt.col, tt.msg)
		}
		checkPos(t, []byte(tt.src), err.Span.Start)
		checkPos(t, []byte(tt.src), err.Span.End)
	}
}

func TestScanIndentLimit(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= maxIndents+1; i++ {
		fmt.Fprintf(&b, "%sif x:\n", strings.Repeat(" ", i))
	}
	_, err := scanAll(b.String())
	if err == nil || err.Code != "E0014" {
		t.Fatalf("got %v, want E0014 for %d indentation levels", err, maxIndents+2)
	}
}
