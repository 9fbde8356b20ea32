package syntax

// star_expressions: star_expression { ',' star_expression } [ ',' ]
//
// Several items make a *TupleLit without parentheses.
func (p *parser) parseStarExprs() Expr {
	return p.commaList(p.parseStarExpr)
}

// target_list: target_item { ',' target_item } [ ',' ]
//
// A for target (in a loop or a comprehension): its items stop before 'in'.
func (p *parser) parseTargetList() Expr {
	return p.commaList(p.parseTargetItem)
}

// commaList parses item { ',' item } [ ',' ], making a bare tuple of several.
func (p *parser) commaList(item func() Expr) Expr {
	x := item()
	if p.tok.kind != tComma {
		return x
	}
	elts := []Expr{x}
	for p.got(tComma) {
		if !tokens[p.tok.kind].expr {
			break
		}
		elts = append(elts, item())
	}
	return &TupleLit{Elts: elts, ExprNode: ExprNode{Pos: p.span(x.Span().Start, p.prevEnd)}}
}

// star_expression: starred | expression
func (p *parser) parseStarExpr() Expr {
	if p.tok.kind == tMul {
		return p.parseStar()
	}
	return p.parseTest()
}

// target_item: starred | bitwise_or
func (p *parser) parseTargetItem() Expr {
	if p.tok.kind == tMul {
		return p.parseStar()
	}
	return p.parseBitOr()
}

// starred: '*' bitwise_or
func (p *parser) parseStar() Expr {
	t := p.tok
	p.next()
	x := p.parseBitOr()
	return &StarExpr{X: x, ExprNode: ExprNode{Pos: p.span(t.start, x.Span().End)}}
}

// expression: disjunction [ 'if' disjunction 'else' expression ] | lambda_expr
func (p *parser) parseTest() Expr {
	p.enter()
	defer p.leave()
	if p.tok.kind == kwLambda {
		return p.parseLambda()
	}
	x := p.parseOr()
	if !p.got(kwIf) {
		return x
	}
	cond := p.parseOr()
	if p.tok.kind != kwElse {
		p.unexpected("'else' in the conditional expression")
	}
	p.next()
	els := p.parseTest()
	return &CondExpr{Then: x, Cond: cond, Else: els, ExprNode: ExprNode{Pos: p.span(x.Span().Start, els.Span().End)}}
}

// lambda_expr: 'lambda' [ lambda_parameters ] ':' expression
func (p *parser) parseLambda() Expr {
	t := p.tok
	p.next()
	params := p.parseParams(tColon, false)
	p.next()
	body := p.parseTest()
	return &LambdaExpr{Params: params, Body: body, ExprNode: ExprNode{Pos: p.span(t.start, body.Span().End)}}
}

// disjunction: conjunction { 'or' conjunction }
func (p *parser) parseOr() Expr { return p.boolChain(kwOr, "or", p.parseAnd) }

// conjunction: inversion { 'and' inversion }
func (p *parser) parseAnd() Expr { return p.boolChain(kwAnd, "and", p.parseNot) }

// boolChain parses operand { kw operand }, grouping to the left, as
// disjunction and conjunction do.
func (p *parser) boolChain(kw tokKind, op string, operand func() Expr) Expr {
	x := operand()
	for p.tok.kind == kw {
		at := p.tok
		p.next()
		y := operand()
		x = &BoolExpr{Op: op, OpPos: p.span(at.start, at.end), X: x, Y: y, ExprNode: ExprNode{Pos: p.span(x.Span().Start, y.Span().End)}}
	}
	return x
}

// inversion: 'not' inversion | comparison
func (p *parser) parseNot() Expr {
	if p.tok.kind != kwNot {
		return p.parseComparison()
	}
	p.enter()
	defer p.leave()
	op := p.tok
	p.next()
	x := p.parseNot()
	return &UnaryExpr{Op: "not", OpPos: p.span(op.start, op.end), X: x, ExprNode: ExprNode{Pos: p.span(op.start, x.Span().End)}}
}

// comparison: bitwise_or { comp_op bitwise_or }
// comp_op: '<' | '>' | '==' | '>=' | '<=' | '!=' | 'in' | 'not' 'in' | 'is' [ 'not' ]
func (p *parser) parseComparison() Expr {
	x := p.parseBitOr()
	var c *CompareExpr
	for {
		op := p.tok
		var text string
		switch {
		case op.kind == kwNot:
			p.next()
			if p.tok.kind != kwIn {
				p.unexpected("'in' after 'not' in a comparison")
			}
			p.next()
			text = "not in"
		case op.kind == kwIs:
			p.next()
			text = "is"
			if p.got(kwNot) {
				text = "is not"
			}
		case tokens[op.kind].cmp:
			p.next()
			text = op.text
		default:
			return x
		}
		if c == nil {
			c = &CompareExpr{X: x}
			x = c
		}
		c.Ops = append(c.Ops, text)
		c.OpPos = append(c.OpPos, p.span(op.start, p.prevEnd))
		y := p.parseBitOr()
		c.Ys = append(c.Ys, y)
		c.Pos = p.span(c.X.Span().Start, y.Span().End)
	}
}

// bitwise_or: factor { binary_op factor }
// binary_op: '|' | '^' | '&' | '<<' | '>>' | '+' | '-' | '*' | '@' | '/' | '//' | '%'
//
// The binary operators bind by the powers in the token table, loosest first
// '|' < '^' < '&' < '<<' '>>' < '+' '-' < '*' '@' '/' '//' '%', all
// left-associative; binary climbs those levels.
func (p *parser) parseBitOr() Expr {
	return p.binary(precBitOr)
}

// binary parses a binary expression whose operators bind at least as
// tightly as minPrec.
func (p *parser) binary(minPrec int) Expr {
	x := p.parseFactor()
	for {
		op := p.tok
		prec := tokens[op.kind].prec
		if prec < minPrec {
			return x
		}
		p.next()
		y := p.binary(prec + 1)
		x = &BinaryExpr{Op: op.text, OpPos: p.span(op.start, op.end), X: x, Y: y, ExprNode: ExprNode{Pos: p.span(x.Span().Start, y.Span().End)}}
	}
}

// factor: ( '+' | '-' | '~' ) factor | power
func (p *parser) parseFactor() Expr {
	op := tokens[p.tok.kind].un
	if op == "" {
		return p.parsePower()
	}
	p.enter()
	defer p.leave()
	t := p.tok
	p.next()
	x := p.parseFactor()
	return &UnaryExpr{Op: op, OpPos: p.span(t.start, t.end), X: x, ExprNode: ExprNode{Pos: p.span(t.start, x.Span().End)}}
}

// power: primary [ '**' factor ]
//
// The right operand is a factor, so ** is right-associative and binds more
// tightly than a unary minus on its left: -2**2 is -(2**2).
func (p *parser) parsePower() Expr {
	x := p.parsePrimary()
	if p.tok.kind != tPow {
		return x
	}
	p.enter()
	defer p.leave()
	op := p.tok
	p.next()
	y := p.parseFactor()
	return &BinaryExpr{Op: "**", OpPos: p.span(op.start, op.end), X: x, Y: y, ExprNode: ExprNode{Pos: p.span(x.Span().Start, y.Span().End)}}
}

// primary: atom { '.' NAME | '(' [ arguments ] ')' | '[' slices ']' }
func (p *parser) parsePrimary() Expr {
	x := p.parseAtom()
	for {
		start := x.Span().Start
		switch p.tok.kind {
		case tDot:
			p.next()
			name := p.expectName("an attribute name after '.'")
			x = &AttrExpr{X: x, Name: name.text, NamePos: p.span(name.start, name.end), ExprNode: ExprNode{Pos: p.span(start, name.end)}}
		case tLParen:
			lp := p.tok
			p.next()
			args, rp := p.parseArgs()
			x = &CallExpr{Fn: x, Args: args, Lparen: p.span(lp.start, lp.end), Rparen: rp, ExprNode: ExprNode{Pos: p.span(start, rp.End)}}
		case tLBrack:
			p.next()
			idx := p.parseSlices()
			rb := p.expect(tRBrack, "to close the subscript")
			x = &IndexExpr{X: x, Index: idx, ExprNode: ExprNode{Pos: p.span(start, rb.end)}}
		default:
			return x
		}
	}
}

// arguments: argument { ',' argument } [ ',' ]
// argument: NAME '=' expression | '*' expression | '**' expression
// | expression [ for_if_clauses ]
//
// parseArgs is called after '(' and consumes the ')', returning its span.
// A generator expression must be the only argument.
func (p *parser) parseArgs() ([]Arg, Span) {
	var args []Arg
	var seen map[string]bool // keyword names, made on the first one
	sawKw, sawDStar, sawGen := false, false, false
	for p.tok.kind != tRParen {
		t := p.tok
		if sawGen {
			p.errorf(t.start, t.end, errParamList, "a generator expression must be in parentheses when the call has other arguments")
		}
		switch t.kind {
		case tMul:
			p.next()
			if sawDStar {
				p.errorf(t.start, t.end, errParamList, "an *iterable argument after a **mapping argument: put * arguments before ** ones")
			}
			args = append(args, Arg{Value: p.parseTest(), Star: true})
		case tPow:
			p.next()
			sawDStar = true
			args = append(args, Arg{Value: p.parseTest(), DoubleStar: true})
		default:
			v := p.parseTest()
			if p.tok.kind == tAssign {
				id, ok := v.(*Ident)
				if !ok {
					p.errorf(v.Span().Start, p.tok.end, errUnexpected, "a keyword argument needs a plain name before '=': did you mean '=='?")
				}
				if seen[id.Name] {
					p.errorf(id.Pos.Start, id.Pos.End, errParamList, "keyword argument '%s' given twice", id.Name)
				}
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[id.Name] = true
				p.next()
				sawKw = true
				args = append(args, Arg{Name: id.Name, NamePos: id.Pos, Value: p.parseTest()})
				break
			}
			if p.tok.kind == kwFor {
				if len(args) > 0 {
					p.errorf(v.Span().Start, v.Span().End, errParamList, "a generator expression must be in parentheses when the call has other arguments")
				}
				v = p.parseComprehension(GenComp, nil, v, v.Span().Start)
				sawGen = true
			}
			if sawDStar {
				p.errorf(v.Span().Start, v.Span().End, errParamList, "positional argument after a **mapping argument")
			}
			if sawKw {
				p.errorf(v.Span().Start, v.Span().End, errParamList, "positional argument after a keyword argument")
			}
			args = append(args, Arg{Value: v})
		}
		if !p.got(tComma) {
			break
		}
	}
	rp := p.expect(tRParen, "or ',' after the argument")
	return args, p.span(rp.start, rp.end)
}

// slices: slice { ',' slice } [ ',' ]
//
// Several slices make a *TupleLit without parentheses, as in Python's AST.
func (p *parser) parseSlices() Expr {
	start := p.tok.start
	x := p.parseSlice()
	if p.tok.kind != tComma {
		return x
	}
	elts := []Expr{x}
	for p.got(tComma) && p.tok.kind != tRBrack {
		elts = append(elts, p.parseSlice())
	}
	return &TupleLit{Elts: elts, ExprNode: ExprNode{Pos: p.span(start, p.prevEnd)}}
}

// slice: [ expression ] ':' [ expression ] [ ':' [ expression ] ] | star_expression
func (p *parser) parseSlice() Expr {
	start := p.tok.start
	var lo Expr
	if p.tok.kind != tColon {
		lo = p.parseStarExpr()
		if p.tok.kind != tColon {
			return lo
		}
		if _, ok := lo.(*StarExpr); ok {
			p.unexpected("']' after the starred subscript")
		}
	}
	s := &SliceExpr{Lo: lo}
	p.next()
	if k := p.tok.kind; k != tColon && k != tRBrack && k != tComma {
		s.Hi = p.parseTest()
	}
	if p.got(tColon) {
		if k := p.tok.kind; k != tRBrack && k != tComma {
			s.Step = p.parseTest()
		}
	}
	s.Pos = p.span(start, p.prevEnd)
	return s
}

// atom: NAME | NUMBER | strings | 'True' | 'False' | 'None' | '...'
// | paren | list_display | brace_display
func (p *parser) parseAtom() Expr {
	t := p.tok
	switch t.kind {
	case tName:
		p.next()
		return &Ident{Name: t.text, ExprNode: ExprNode{Pos: p.span(t.start, t.end)}}
	case tInt, tFloat:
		p.next()
		return p.number(t)
	case tString, tFString:
		return p.parseStrings()
	case kwTrue, kwFalse, kwNone, tEllipsis:
		p.next()
		return &ConstLit{Kind: constKinds[t.kind], ExprNode: ExprNode{Pos: p.span(t.start, t.end)}}
	case tLParen:
		return p.parseParen()
	case tLBrack:
		return p.parseListDisplay()
	case tLBrace:
		return p.parseBraceDisplay()
	}
	p.unexpected("an expression")
	return nil
}

// constKinds maps the constant tokens to their ConstLit kinds.
var constKinds = map[tokKind]ConstKind{kwTrue: ConstTrue, kwFalse: ConstFalse, kwNone: ConstNone, tEllipsis: ConstEllipsis}

// paren: '(' ')' | '(' star_expression for_if_clauses ')'
// | '(' expression ')' | '(' star_expression ',' [ star_expressions ] ')'
func (p *parser) parseParen() Expr {
	lp := p.tok
	p.next()
	if p.tok.kind == tRParen {
		p.next()
		return &TupleLit{Paren: true, ExprNode: ExprNode{Pos: p.span(lp.start, p.prevEnd)}}
	}
	x := p.parseStarExpr()
	switch p.tok.kind {
	case kwFor:
		c := p.parseComprehension(GenComp, nil, x, lp.start)
		rp := p.expect(tRParen, "to close the generator expression")
		c.Pos = p.span(lp.start, rp.end)
		return c
	case tRParen:
		if _, ok := x.(*StarExpr); ok {
			p.errorf(x.Span().Start, x.Span().End, errUnexpected, "a starred expression in parentheses needs a ',' after it to make a tuple")
		}
		p.next()
		return &ParenExpr{X: x, ExprNode: ExprNode{Pos: p.span(lp.start, p.prevEnd)}}
	}
	elts := p.displayItems(x, tRParen)
	return &TupleLit{Elts: elts, Paren: true, ExprNode: ExprNode{Pos: p.span(lp.start, p.prevEnd)}}
}

// list_display: '[' [ star_expression ( for_if_clauses | { ',' star_expression } [ ',' ] ) ] ']'
func (p *parser) parseListDisplay() Expr {
	lb := p.tok
	p.next()
	if p.got(tRBrack) {
		return &ListLit{ExprNode: ExprNode{Pos: p.span(lb.start, p.prevEnd)}}
	}
	x := p.parseStarExpr()
	if p.tok.kind == kwFor {
		c := p.parseComprehension(ListComp, nil, x, lb.start)
		rb := p.expect(tRBrack, "to close the list comprehension")
		c.Pos = p.span(lb.start, rb.end)
		return c
	}
	elts := p.displayItems(x, tRBrack)
	return &ListLit{Elts: elts, ExprNode: ExprNode{Pos: p.span(lb.start, p.prevEnd)}}
}

// displayItems parses the rest of a comma-separated display whose first item
// is first, through the closing bracket.
func (p *parser) displayItems(first Expr, closer tokKind) []Expr {
	elts := []Expr{first}
	for p.got(tComma) && p.tok.kind != closer {
		elts = append(elts, p.parseStarExpr())
	}
	p.expect(closer, "or ',' after the item")
	return elts
}

// brace_display: '{' '}'
// | '{' dict_item ( for_if_clauses | { ',' dict_item } [ ',' ] ) '}'
// | '{' star_expression ( for_if_clauses | { ',' star_expression } [ ',' ] ) '}'
// dict_item: expression ':' expression | '**' bitwise_or
//
// A '**m' item of a dict display has a nil key.
func (p *parser) parseBraceDisplay() Expr {
	lb := p.tok
	p.next()
	if p.got(tRBrace) {
		return &DictLit{ExprNode: ExprNode{Pos: p.span(lb.start, p.prevEnd)}}
	}
	if p.tok.kind != tPow {
		x := p.parseStarExpr()
		_, star := x.(*StarExpr)
		if p.tok.kind != tColon || star {
			if p.tok.kind == kwFor {
				c := p.parseComprehension(SetComp, nil, x, lb.start)
				rb := p.expect(tRBrace, "to close the set comprehension")
				c.Pos = p.span(lb.start, rb.end)
				return c
			}
			elts := p.displayItems(x, tRBrace)
			return &SetLit{Elts: elts, ExprNode: ExprNode{Pos: p.span(lb.start, p.prevEnd)}}
		}
		p.next()
		v := p.parseTest()
		if p.tok.kind == kwFor {
			c := p.parseComprehension(DictComp, x, v, lb.start)
			rb := p.expect(tRBrace, "to close the dict comprehension")
			c.Pos = p.span(lb.start, rb.end)
			return c
		}
		d := &DictLit{Keys: []Expr{x}, Values: []Expr{v}}
		if p.got(tComma) {
			p.dictItems(d)
		}
		p.expect(tRBrace, "or ',' after the dict item")
		d.Pos = p.span(lb.start, p.prevEnd)
		return d
	}
	d := &DictLit{}
	p.dictItems(d)
	p.expect(tRBrace, "or ',' after the dict item")
	d.Pos = p.span(lb.start, p.prevEnd)
	return d
}

// dictItems parses dict_item { ',' dict_item } [ ',' ] up to the '}'.
func (p *parser) dictItems(d *DictLit) {
	for p.tok.kind != tRBrace {
		if p.got(tPow) {
			d.Keys = append(d.Keys, nil)
			d.Values = append(d.Values, p.parseBitOr())
		} else {
			k := p.parseTest()
			p.expect(tColon, "after the dict key")
			d.Keys = append(d.Keys, k)
			d.Values = append(d.Values, p.parseTest())
		}
		if !p.got(tComma) {
			return
		}
	}
}

// for_if_clauses: for_if_clause { for_if_clause }
// for_if_clause: 'for' target_list 'in' disjunction { 'if' disjunction }
//
// The caller sets the span when the comprehension has brackets of its own.
func (p *parser) parseComprehension(kind CompKind, key, elt Expr, start Pos) *CompExpr {
	if s, ok := elt.(*StarExpr); ok {
		p.errorf(s.Pos.Start, s.Pos.End, errUnexpected, "a starred expression cannot be the element of a comprehension")
	}
	c := &CompExpr{Kind: kind, Key: key, Elt: elt}
	for p.got(kwFor) {
		f := Comprehension{Target: p.parseTargetList()}
		p.checkTarget(f.Target, "assign to")
		p.expect(kwIn, "after the comprehension's for target")
		f.Iter = p.parseOr()
		for p.got(kwIf) {
			f.Ifs = append(f.Ifs, p.parseOr())
		}
		c.Fors = append(c.Fors, f)
	}
	c.Pos = p.span(start, p.prevEnd)
	return c
}
