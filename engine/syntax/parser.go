package syntax

import (
	"fmt"

	"pldworkbench/engine/diag"
)

// maxDepth caps the recursion of expression and statement productions.
const maxDepth = 1000

// parser holds the state of one parse. A parser for an f-string field shares
// the file, the error list and the root scanner with the parser that found it.
type parser struct {
	file string
	src  []byte
	text string // string(src), shared by every scanner of the parse
	sc   *scanner
	root *scanner // the file's scanner, read on after a generic error
	errs *diag.List

	tok     token // the lookahead token
	prevEnd Pos   // end of the last token consumed (not NEWLINE/INDENT/DEDENT)
	depth   int

	inFunc bool // inside a def body: return is allowed
	inLoop bool // inside a loop body (not crossing a def or class): break is allowed
}

// bailout is the panic value that unwinds a parse after its first error.
type bailout struct{}

// ParseFile parses a Python module. On a syntax error it returns the
// statements parsed before it, in a File that may be incomplete, and a list
// holding that one error.
func ParseFile(filename string, src []byte) (f *File, errs diag.List) {
	at := cursor{off: 0, line: 1, lineStart: 0}
	if len(src) >= 3 && string(src[:3]) == "\xef\xbb\xbf" {
		at.off = 3 // a UTF-8 byte order mark, which Python also skips
	}
	p := newParser(filename, src, string(src), at, len(src), false)
	f = &File{Name: filename, Src: src, Whole: p.span(Pos{Offset: 0, Line: 1, Col: 1}, endPos(src))}
	defer p.recover(&errs)
	p.start()
	p.parseModule(f)
	return f, nil
}

// ParseExpr parses a single expression, such as a --entry argument on the
// command line. Newlines inside it are blanks, as inside brackets. On an
// error the expression is nil.
func ParseExpr(filename string, src string) (x Expr, errs diag.List) {
	b := []byte(src)
	p := newParser(filename, b, src, cursor{off: 0, line: 1, lineStart: 0}, len(b), true)
	defer func() {
		if len(errs) > 0 {
			x = nil // runs after recover: no half-built expression
		}
	}()
	defer p.recover(&errs)
	p.start()
	x = p.parseTest()
	if p.tok.kind != tEOF {
		p.unexpected("the end of the expression")
	}
	return x, nil
}

func newParser(file string, src []byte, text string, at cursor, limit int, exprMode bool) *parser {
	p := &parser{file: file, src: src, text: text, errs: new(diag.List)}
	p.sc = newScanner(src, text, at, limit, exprMode, p.scanError)
	p.root = p.sc
	return p
}

// start reads the first token.
func (p *parser) start() {
	p.prevEnd = p.sc.pos()
	p.tok = p.sc.next()
}

// recover turns the bailout panic into the returned error list.
func (p *parser) recover(errs *diag.List) {
	if r := recover(); r != nil {
		if _, ok := r.(bailout); !ok {
			panic(r)
		}
		*errs = *p.errs
	}
}

// endPos returns the position just past the end of src.
func endPos(src []byte) Pos {
	line, lineStart := 1, 0
	for i, c := range src {
		if c == '\n' {
			line++
			lineStart = i + 1
		}
	}
	return Pos{Offset: len(src), Line: line, Col: len(src) - lineStart + 1}
}

func (p *parser) span(start, end Pos) Span {
	return Span{File: p.file, Start: start, End: end}
}

// next consumes the lookahead token.
func (p *parser) next() {
	switch p.tok.kind {
	case tNewline, tIndent, tDedent, tEOF:
	default:
		p.prevEnd = p.tok.end
	}
	p.tok = p.sc.next()
}

// got consumes the lookahead token if it is of kind k.
func (p *parser) got(k tokKind) bool {
	if p.tok.kind == k {
		p.next()
		return true
	}
	return false
}

// expect consumes a token of kind k, or reports "expected 'k' context".
func (p *parser) expect(k tokKind, context string) token {
	if p.tok.kind != k {
		what := "'" + k.String() + "'"
		if context != "" {
			what += " " + context
		}
		p.unexpected(what)
	}
	t := p.tok
	p.next()
	return t
}

// expectName consumes a name, or reports "expected <what>".
func (p *parser) expectName(what string) token {
	if p.tok.kind != tName {
		p.unexpected(what)
	}
	t := p.tok
	p.next()
	return t
}

// unexpected reports that the lookahead token is not what the grammar wants
// here. Tokens that begin Python constructs the workbench does not read get a
// message saying so instead.
func (p *parser) unexpected(what string) {
	t := p.tok
	switch t.kind {
	case tWalrus:
		p.errorf(t.start, t.end, errUnsupported, "assignment expressions (:=) are not supported: assign on a line of its own")
	case kwYield, kwAwait, kwAsync:
		p.errorf(t.start, t.end, errUnsupported, "'%s' is not supported", t.text)
	case tIndent:
		p.errorf(t.start, t.end, errIndent, "unexpected indent: expected %s", what)
	}
	p.errorf(t.start, t.end, errUnexpected, "expected %s, found %s", what, t.describe())
}

// scanError is the scanner's report function: scanner errors are final.
func (p *parser) scanError(start, end Pos, k errKind, msg string) {
	p.add(start, end, k, msg)
	panic(bailout{})
}

// errorf reports a parser error and abandons the parse. If a bracket opened
// on an earlier line is still open at the end of the file, that is almost
// always the real mistake, so it is reported instead (as CPython does).
func (p *parser) errorf(start, end Pos, k errKind, format string, args ...any) {
	if b := p.unclosedBefore(start.Line); b != nil {
		p.add(b.pos, posAfter(b.pos, 1), errBracket, fmt.Sprintf("'%s' was never closed", b.kind))
		panic(bailout{})
	}
	p.add(start, end, k, fmt.Sprintf(format, args...))
	panic(bailout{})
}

func (p *parser) add(start, end Pos, k errKind, msg string) {
	e := errorTable[k]
	p.errs.Add(diag.Diagnostic{Span: p.span(start, end), Code: e.Code, Severity: diag.Error, Msg: msg, Hint: e.Hint})
}

// unclosedBefore scans the rest of the file and returns the innermost bracket
// left open at its end, if that bracket was opened before line.
func (p *parser) unclosedBefore(line int) *bracket {
	sc := p.root
	if sc.failed || sc.exprMode {
		return nil
	}
	sc.report = func(Pos, Pos, errKind, string) {}
	for !sc.failed && sc.next().kind != tEOF {
	}
	if b := sc.unclosed; b != nil && b.pos.Line < line {
		return b
	}
	return nil
}

// enter and leave bound the recursion depth.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.errorf(p.tok.start, p.tok.end, errTooDeep, "nested too deeply: the limit is %d levels of expressions and blocks", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// file: { statement } EOF
func (p *parser) parseModule(f *File) {
	for p.tok.kind != tEOF {
		f.Body = append(f.Body, p.parseStatement()...)
		if f.Doc == nil {
			f.Doc = docOf(f.Body)
		}
	}
}

// docOf returns the docstring of a body: its first statement, if that is a
// plain string literal.
func docOf(body []Stmt) *StringLit {
	if len(body) == 0 {
		return nil
	}
	if es, ok := body[0].(*ExprStmt); ok {
		if s, ok := es.X.(*StringLit); ok {
			return s
		}
	}
	return nil
}
