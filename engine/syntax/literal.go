package syntax

import (
	"strconv"
	"strings"
)

// number builds the NumberLit of an integer or float token. The scanner has
// already checked the literal's form and that an integer fits in 63 bits.
func (p *parser) number(t token) Expr {
	n := &NumberLit{Raw: t.text, ExprNode: ExprNode{Pos: p.span(t.start, t.end)}}
	clean := strings.ReplaceAll(t.text, "_", "")
	if t.kind == tFloat {
		n.Kind = FloatNumber
		n.Float, _ = strconv.ParseFloat(clean, 64) // a huge exponent gives ±Inf, as in Python
		return n
	}
	base := 10
	if len(clean) > 1 && clean[0] == '0' {
		switch clean[1] | 0x20 {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 10 {
			clean = clean[2:]
		}
	}
	n.Int, _ = strconv.ParseInt(clean, base, 64)
	return n
}

// strings: ( STRING | FSTRING ) { STRING | FSTRING }
// FSTRING: f_quote { text | '{{' | '}}' | '{' field [ '=' ] [ '!' ( 'r' | 's' | 'a' ) ] [ ':' format_spec ] '}' } f_quote
//
// Adjacent literals concatenate. The result is a *FStringLit if any piece is
// an f-string, else a *StringLit whose Raw is the source text of all pieces.
func (p *parser) parseStrings() Expr {
	first := p.tok
	var value strings.Builder
	var parts []FStringPart
	isF := false
	addText := func(s string) {
		if s == "" {
			return
		}
		if n := len(parts); n > 0 && parts[n-1].Expr == nil {
			parts[n-1].Text += s
			return
		}
		parts = append(parts, FStringPart{Text: s})
	}
	for p.tok.kind == tString || p.tok.kind == tFString {
		t := p.tok
		if t.str.bytes != first.str.bytes {
			p.errorf(t.start, t.end, errStringLit, "cannot join a bytes literal and a text literal")
		}
		if t.kind == tFString {
			isF = true
			for _, fp := range t.str.parts {
				if !fp.isExpr {
					addText(fp.text)
					continue
				}
				parts = append(parts, FStringPart{Expr: p.parseField(fp), Conv: fp.conv, Format: fp.format})
			}
		} else {
			value.WriteString(t.str.value)
			addText(t.str.value)
		}
		p.next()
	}
	sp := p.span(first.start, p.prevEnd)
	if isF {
		return &FStringLit{Parts: parts, ExprNode: ExprNode{Pos: sp}}
	}
	return &StringLit{Value: value.String(), Raw: p.text[sp.Start.Offset:sp.End.Offset], ExprNode: ExprNode{Pos: sp}}
}

// field: star_expressions
//
// A field is the expression text of one f-string field, parsed in place: a
// scanner of its own covers just the field's bytes of the file, in
// expression mode, so the field's nodes carry the file's positions.
func (p *parser) parseField(fp fpart) Expr {
	at := cursor{off: fp.start.Offset, line: fp.start.Line, lineStart: fp.start.Offset - fp.start.Col + 1}
	sub := &parser{file: p.file, src: p.src, text: p.text, root: p.root, errs: p.errs, depth: p.depth, inFunc: p.inFunc, inLoop: p.inLoop}
	sub.sc = newScanner(p.src, p.text, at, fp.end, true, sub.scanError)
	sub.start()
	x := sub.parseStarExprs()
	if sub.tok.kind != tEOF {
		t := sub.tok
		sub.errorf(t.start, t.end, errFString, "expected the end of the f-string field opened at line %d, column %d, found %s",
			fp.openPos.Line, fp.openPos.Col, t.describe())
	}
	return x
}

// checkTarget reports an expression that cannot be assigned to (or, with
// verb "delete", deleted): anything but a name, attribute, subscript, or a
// tuple or list of targets with at most one starred item.
func (p *parser) checkTarget(x Expr, verb string) {
	switch x := x.(type) {
	case *Ident, *AttrExpr, *IndexExpr:
		return
	case *ParenExpr:
		p.checkTarget(x.X, verb)
		return
	case *TupleLit:
		p.checkTargets(x.Elts, verb)
		return
	case *ListLit:
		p.checkTargets(x.Elts, verb)
		return
	case *StarExpr:
		if verb == "delete" {
			break
		}
		p.errorf(x.Pos.Start, x.Pos.End, errAssignTarget, "a starred assignment target must be inside a tuple or list")
	}
	p.errorf(x.Span().Start, x.Span().End, errAssignTarget, "cannot %s %s", verb, exprNoun(x))
}

func (p *parser) checkTargets(elts []Expr, verb string) {
	starred := false
	for _, e := range elts {
		if s, ok := e.(*StarExpr); ok && verb != "delete" {
			if starred {
				p.errorf(s.Pos.Start, s.Pos.End, errAssignTarget, "only one starred target is allowed in an assignment")
			}
			starred = true
			p.checkTarget(s.X, verb)
			continue
		}
		p.checkTarget(e, verb)
	}
}

// checkSingleTarget accepts only a name, attribute or subscript (possibly in
// parentheses), the targets of augmented and annotated assignments.
func (p *parser) checkSingleTarget(x Expr, what string) {
	switch y := x.(type) {
	case *Ident, *AttrExpr, *IndexExpr:
		return
	case *ParenExpr:
		p.checkSingleTarget(y.X, what)
		return
	case *TupleLit, *ListLit:
		p.errorf(x.Span().Start, x.Span().End, errAssignTarget, "%s needs a single target, not a %s", what, exprNoun(x))
	}
	p.errorf(x.Span().Start, x.Span().End, errAssignTarget, "cannot assign to %s", exprNoun(x))
}

// exprNoun names an expression for messages.
func exprNoun(x Expr) string {
	switch x := x.(type) {
	case *Ident:
		return "name '" + x.Name + "'"
	case *CallExpr:
		return "a function call"
	case *NumberLit, *StringLit:
		return "a literal"
	case *FStringLit:
		return "an f-string"
	case *ConstLit:
		return "'" + [...]string{"True", "False", "None", "..."}[x.Kind] + "'"
	case *TupleLit:
		return "tuple"
	case *ListLit:
		return "list"
	case *DictLit:
		return "a dict display"
	case *SetLit:
		return "a set display"
	case *CompExpr:
		return "a comprehension"
	case *BinaryExpr, *UnaryExpr:
		return "an expression"
	case *BoolExpr:
		return "an '" + x.Op + "' expression"
	case *CompareExpr:
		return "a comparison"
	case *CondExpr:
		return "a conditional expression"
	case *LambdaExpr:
		return "a lambda"
	case *StarExpr:
		return "a starred expression"
	case *SliceExpr:
		return "a slice"
	}
	return "this expression"
}
