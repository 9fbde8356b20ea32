package syntax

// statement: compound_stmt | simple_stmts
// compound_stmt: funcdef | classdef | decorated | if_stmt | for_stmt
// | while_stmt | with_stmt | try_stmt
func (p *parser) parseStatement() []Stmt {
	p.enter()
	defer p.leave()
	t := p.tok
	switch t.kind {
	case kwDef:
		return []Stmt{p.parseFuncDef(nil)}
	case kwClass:
		return []Stmt{p.parseClassDef(nil)}
	case tAt:
		return []Stmt{p.parseDecorated()}
	case kwIf:
		return []Stmt{p.parseIf()}
	case kwFor:
		return []Stmt{p.parseFor()}
	case kwWhile:
		return []Stmt{p.parseWhile()}
	case kwWith:
		return []Stmt{p.parseWith()}
	case kwTry:
		return []Stmt{p.parseTry()}
	case tIndent:
		p.errorf(t.start, t.end, errIndent, "unexpected indent: this line is indented more than the one before it, which does not open a block")
	case kwElif, kwElse:
		p.errorf(t.start, t.end, errUnexpected, "'%s' without an if (or for/while/try) before it at the same indentation", t.text)
	case kwExcept, kwFinally:
		p.errorf(t.start, t.end, errUnexpected, "'%s' without a try before it at the same indentation", t.text)
	}
	return p.parseSimpleStmts()
}

// simple_stmts: simple_stmt { ';' simple_stmt } [ ';' ] NEWLINE
func (p *parser) parseSimpleStmts() []Stmt {
	var out []Stmt
	for {
		out = append(out, p.parseSimpleStmt())
		if !p.got(tSemi) || p.tok.kind == tNewline {
			break
		}
	}
	if p.tok.kind != tNewline {
		p.unexpected("the end of the line after the " + stmtNoun(out[len(out)-1]))
	}
	p.next()
	return out
}

// atStmtEnd reports whether the lookahead ends a simple statement.
func (p *parser) atStmtEnd() bool {
	switch p.tok.kind {
	case tNewline, tSemi, tEOF:
		return true
	}
	return false
}

// simple_stmt: expr_stmt | return_stmt | yield_stmt | raise_stmt | assert_stmt | del_stmt
// | 'pass' | 'break' | 'continue' | global_stmt | import_stmt | from_stmt
func (p *parser) parseSimpleStmt() Stmt {
	t := p.tok
	switch t.kind {
	case kwPass, kwBreak, kwContinue:
		if t.kind != kwPass && !p.inLoop {
			p.errorf(t.start, t.end, errMisplaced, "'%s' outside a loop", t.text)
		}
		p.next()
		return &BranchStmt{Tok: t.text, StmtNode: StmtNode{Pos: p.span(t.start, t.end)}}
	case kwReturn:
		return p.parseReturn()
	case kwYield:
		return p.parseYield()
	case kwRaise:
		return p.parseRaise()
	case kwAssert:
		return p.parseAssert()
	case kwDel:
		return p.parseDel()
	case kwGlobal, kwNonlocal:
		return p.parseGlobal()
	case kwImport:
		return p.parseImport()
	case kwFrom:
		return p.parseFromImport()
	}
	return p.parseExprStmt()
}

// return_stmt: 'return' [ star_expressions ]
func (p *parser) parseReturn() Stmt {
	t := p.tok
	if !p.inFunc {
		p.errorf(t.start, t.end, errMisplaced, "'return' outside a function")
	}
	p.next()
	s := &ReturnStmt{}
	if !p.atStmtEnd() {
		s.Value = p.parseStarExprs()
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// yield_stmt: 'yield' [ 'from' expression | star_expressions ]
//
// Only the statement form is read: test modules carry pytest fixtures and
// helper generators (module glue no DSL function calls), and a file must
// not be refused for them. A yield used as a value (x = yield) is still
// E0011.
func (p *parser) parseYield() Stmt {
	t := p.tok
	if !p.inFunc {
		p.errorf(t.start, t.end, errMisplaced, "'yield' outside a function")
	}
	p.next()
	s := &YieldStmt{}
	switch {
	case p.got(kwFrom):
		s.From = true
		s.Value = p.parseTest()
	case !p.atStmtEnd():
		s.Value = p.parseStarExprs()
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// raise_stmt: 'raise' [ expression [ 'from' expression ] ]
func (p *parser) parseRaise() Stmt {
	t := p.tok
	p.next()
	s := &RaiseStmt{}
	if !p.atStmtEnd() {
		s.X = p.parseTest()
		if p.got(kwFrom) {
			s.Cause = p.parseTest()
		}
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// assert_stmt: 'assert' expression [ ',' expression ]
func (p *parser) parseAssert() Stmt {
	t := p.tok
	p.next()
	s := &AssertStmt{Cond: p.parseTest()}
	if p.got(tComma) {
		s.Msg = p.parseTest()
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// del_stmt: 'del' target_item { ',' target_item } [ ',' ]
func (p *parser) parseDel() Stmt {
	t := p.tok
	p.next()
	s := &DelStmt{}
	for {
		x := p.parseBitOr()
		p.checkTarget(x, "delete")
		s.Targets = append(s.Targets, x)
		if !p.got(tComma) || p.atStmtEnd() {
			break
		}
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// global_stmt: ( 'global' | 'nonlocal' ) NAME { ',' NAME }
func (p *parser) parseGlobal() Stmt {
	t := p.tok
	if t.kind == kwNonlocal && !p.inFunc {
		p.errorf(t.start, t.end, errMisplaced, "'nonlocal' outside a function")
	}
	p.next()
	s := &GlobalStmt{Tok: t.text}
	for {
		s.Names = append(s.Names, p.expectName("a name after '"+t.text+"'").text)
		if !p.got(tComma) {
			break
		}
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// import_stmt: 'import' dotted_as_name { ',' dotted_as_name }
// dotted_as_name: dotted_name [ 'as' NAME ]
func (p *parser) parseImport() Stmt {
	t := p.tok
	p.next()
	s := &ImportStmt{}
	for {
		start := p.tok.start
		n := ImportName{Path: p.parseDottedName()}
		if p.got(kwAs) {
			n.As = p.expectName("a name after 'as'").text
		}
		n.Pos = p.span(start, p.prevEnd)
		s.Names = append(s.Names, n)
		if !p.got(tComma) {
			break
		}
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// dotted_name: NAME { '.' NAME }
func (p *parser) parseDottedName() []string {
	path := []string{p.expectName("a module name").text}
	for p.got(tDot) {
		path = append(path, p.expectName("a name after '.'").text)
	}
	return path
}

// from_stmt: 'from' { '.' | '...' } [ dotted_name ] 'import' import_targets
// import_targets: '*' | '(' import_as_names [ ',' ] ')' | import_as_names
// import_as_names: NAME [ 'as' NAME ] { ',' NAME [ 'as' NAME ] }
func (p *parser) parseFromImport() Stmt {
	t := p.tok
	p.next()
	s := &FromImportStmt{}
	for {
		if p.got(tDot) {
			s.Level++
		} else if p.got(tEllipsis) {
			s.Level += 3
		} else {
			break
		}
	}
	if s.Level == 0 || p.tok.kind == tName {
		s.Module = p.parseDottedName()
	}
	p.expect(kwImport, "after the module name")
	if p.got(tMul) {
		s.Star = true
		s.Pos = p.span(t.start, p.prevEnd)
		return s
	}
	paren := p.got(tLParen)
	for {
		start := p.tok.start
		n := ImportName{Path: []string{p.expectName("a name to import").text}}
		if p.got(kwAs) {
			n.As = p.expectName("a name after 'as'").text
		}
		n.Pos = p.span(start, p.prevEnd)
		s.Names = append(s.Names, n)
		if !p.got(tComma) {
			break
		}
		if paren && p.tok.kind == tRParen {
			break
		}
		if !paren && p.atStmtEnd() {
			p.errorf(p.tok.start, p.tok.end, errUnexpected, "a trailing comma after the imported names needs parentheses around them")
		}
	}
	if paren {
		p.expect(tRParen, "after the imported names")
	}
	s.Pos = p.span(t.start, p.prevEnd)
	return s
}

// expr_stmt: star_expressions
// | star_expressions '=' { star_expressions '=' } star_expressions
// | single_target augassign star_expressions
// | single_target ':' expression [ '=' star_expressions ]
// single_target: NAME | primary '.' NAME | primary '[' slices ']' | '(' single_target ')'
// augassign: '+=' | '-=' | '*=' | '/=' | '//=' | '%=' | '**=' | '@=' | '&=' | '|=' | '^=' | '<<=' | '>>='
func (p *parser) parseExprStmt() Stmt {
	x := p.parseStarExprs()
	start := x.Span().Start
	switch k := p.tok.kind; {
	case k == tAssign:
		exprs := []Expr{x}
		for p.got(tAssign) {
			exprs = append(exprs, p.parseStarExprs())
		}
		targets, value := exprs[:len(exprs)-1], exprs[len(exprs)-1]
		for _, t := range targets {
			p.checkTarget(t, "assign to")
		}
		return &AssignStmt{Targets: targets, Value: value, StmtNode: StmtNode{Pos: p.span(start, p.prevEnd)}}
	case tokens[k].aug != "":
		op := p.tok
		p.checkSingleTarget(x, "an augmented assignment ("+op.text+")")
		p.next()
		v := p.parseStarExprs()
		return &AugAssignStmt{Target: x, Op: tokens[k].aug, OpPos: p.span(op.start, op.end), Value: v, StmtNode: StmtNode{Pos: p.span(start, p.prevEnd)}}
	case k == tColon:
		p.checkSingleTarget(x, "an annotation")
		p.next()
		s := &AssignStmt{Targets: []Expr{x}, Annotation: p.parseTest()}
		if p.got(tAssign) {
			s.Value = p.parseStarExprs()
		}
		s.Pos = p.span(start, p.prevEnd)
		return s
	}
	if _, ok := x.(*StarExpr); ok {
		p.errorf(start, x.Span().End, errUnexpected, "a starred expression cannot stand alone: use it inside a list, a tuple or a call")
	}
	return &ExprStmt{X: x, StmtNode: StmtNode{Pos: x.Span()}}
}

// block: NEWLINE INDENT statement { statement } DEDENT | simple_stmts
//
// what names the header for the error when the indented block is missing.
func (p *parser) parseBlock(what string, line int) []Stmt {
	if p.tok.kind != tNewline {
		return p.parseSimpleStmts()
	}
	p.next()
	if p.tok.kind != tIndent {
		p.errorf(p.tok.start, p.tok.end, errIndent, "expected an indented block after %s on line %d, found %s", what, line, p.tok.describe())
	}
	p.next()
	var body []Stmt
	for p.tok.kind != tDedent && p.tok.kind != tEOF {
		body = append(body, p.parseStatement()...)
	}
	p.next()
	return body
}

// suite parses ':' block for a header ("the for header", "'else'"), which
// the messages name.
func (p *parser) suite(header string, line int) []Stmt {
	if t := p.tok; t.kind != tColon {
		switch t.kind {
		case tAssign:
			p.errorf(t.start, t.end, errUnexpected, "found '=' in %s: compare with '==', or assign on a line of its own", header)
		case tWalrus:
			p.unexpected("':'")
		}
		p.errorf(t.start, t.end, errMissingColon, "expected ':' after %s, found %s", header, t.describe())
	}
	p.next()
	return p.parseBlock(header, line)
}

// loopBody parses a loop's block with break and continue allowed.
func (p *parser) loopBody(header string, line int) []Stmt {
	saved := p.inLoop
	p.inLoop = true
	body := p.suite(header, line)
	p.inLoop = saved
	return body
}

// loopBlocks parses what follows a for or while header: the body, an
// optional else block, and the loop's span from its keyword kw.
func (p *parser) loopBlocks(header string, kw token) (body, els []Stmt, pos Span) {
	body = p.loopBody(header, kw.start.Line)
	if e := p.tok; p.got(kwElse) {
		els = p.suite("'else'", e.start.Line)
	}
	return body, els, p.span(kw.start, endOf(body, els))
}

// endOf returns the end of the last statement of the last non-empty block.
func endOf(blocks ...[]Stmt) Pos {
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; len(b) > 0 {
			return b[len(b)-1].Span().End
		}
	}
	return Pos{}
}

// if_stmt: 'if' expression ':' block [ elif_stmt | 'else' ':' block ]
// elif_stmt: 'elif' expression ':' block [ elif_stmt | 'else' ':' block ]
func (p *parser) parseIf() *IfStmt {
	t := p.tok
	p.next()
	s := &IfStmt{Elif: t.kind == kwElif, Cond: p.parseTest()}
	s.Body = p.suite("the "+t.text+" header", t.start.Line)
	switch p.tok.kind {
	case kwElif:
		s.Else = []Stmt{p.parseIf()}
	case kwElse:
		e := p.tok
		p.next()
		s.Else = p.suite("'else'", e.start.Line)
	}
	s.Pos = p.span(t.start, endOf(s.Body, s.Else))
	return s
}

// for_stmt: 'for' target_list 'in' star_expressions ':' block [ 'else' ':' block ]
func (p *parser) parseFor() *ForStmt {
	t := p.tok
	p.next()
	s := &ForStmt{Target: p.parseTargetList()}
	p.checkTarget(s.Target, "assign to")
	p.expect(kwIn, "after the for target")
	s.Iter = p.parseStarExprs()
	s.Body, s.Else, s.Pos = p.loopBlocks("the for header", t)
	return s
}

// while_stmt: 'while' expression ':' block [ 'else' ':' block ]
func (p *parser) parseWhile() *WhileStmt {
	t := p.tok
	p.next()
	s := &WhileStmt{Cond: p.parseTest()}
	s.Body, s.Else, s.Pos = p.loopBlocks("the while header", t)
	return s
}

// with_stmt: 'with' with_item { ',' with_item } ':' block
// with_item: expression [ 'as' target_item ]
func (p *parser) parseWith() *WithStmt {
	t := p.tok
	p.next()
	s := &WithStmt{}
	for {
		item := WithItem{X: p.parseTest()}
		if p.got(kwAs) {
			item.Target = p.parseTargetItem()
			p.checkTarget(item.Target, "assign to")
		}
		s.Items = append(s.Items, item)
		if !p.got(tComma) {
			break
		}
	}
	s.Body = p.suite("the with header", t.start.Line)
	s.Pos = p.span(t.start, endOf(s.Body))
	return s
}

// try_stmt: 'try' ':' block except_clause { except_clause } [ 'else' ':' block ] [ 'finally' ':' block ]
// | 'try' ':' block 'finally' ':' block
// except_clause: 'except' [ expression [ 'as' NAME ] ] ':' block
func (p *parser) parseTry() *TryStmt {
	t := p.tok
	p.next()
	s := &TryStmt{Body: p.suite("'try'", t.start.Line)}
	for p.tok.kind == kwExcept {
		e := p.tok
		p.next()
		c := &ExceptClause{}
		if p.tok.kind == tMul {
			p.errorf(p.tok.start, p.tok.end, errUnsupported, "'except*' (exception groups) is not supported")
		}
		if n := len(s.Excepts); n > 0 && s.Excepts[n-1].Type == nil {
			p.errorf(e.start, e.end, errUnexpected, "a bare 'except:' must be the last except clause")
		}
		if p.tok.kind != tColon {
			c.Type = p.parseTest()
			if p.got(kwAs) {
				c.Name = p.expectName("a name after 'as'").text
			}
		}
		c.Body = p.suite("the except clause", e.start.Line)
		c.Pos = p.span(e.start, endOf(c.Body))
		s.Excepts = append(s.Excepts, c)
	}
	if e := p.tok; len(s.Excepts) > 0 && p.got(kwElse) {
		s.Else = p.suite("'else'", e.start.Line)
	}
	if f := p.tok; p.got(kwFinally) {
		s.Finally = p.suite("'finally'", f.start.Line)
	}
	if len(s.Excepts) == 0 && s.Finally == nil {
		p.unexpected("'except' or 'finally' after the try block")
	}
	end := endOf(s.Body, s.Else, s.Finally)
	if len(s.Excepts) > 0 && len(s.Else) == 0 && len(s.Finally) == 0 {
		end = s.Excepts[len(s.Excepts)-1].Pos.End
	}
	s.Pos = p.span(t.start, end)
	return s
}

// decorated: decorator { decorator } ( funcdef | classdef )
// decorator: '@' expression NEWLINE
func (p *parser) parseDecorated() Stmt {
	var decos []*Decorator
	for p.tok.kind == tAt {
		at := p.tok
		p.next()
		x := p.parseTest()
		decos = append(decos, &Decorator{X: x, Pos: p.span(at.start, p.prevEnd)})
		p.expect(tNewline, "after the decorator")
	}
	switch p.tok.kind {
	case kwDef:
		return p.parseFuncDef(decos)
	case kwClass:
		return p.parseClassDef(decos)
	}
	p.unexpected("'def' or 'class' after the decorator")
	return nil
}

// funcdef: 'def' NAME '(' [ parameters ] ')' [ '->' expression ] ':' block
func (p *parser) parseFuncDef(decos []*Decorator) *FuncDef {
	t := p.tok
	p.next()
	name := p.expectName("a function name after 'def'")
	f := &FuncDef{Decorators: decos, Name: name.text, NamePos: p.span(name.start, name.end)}
	p.expect(tLParen, "after the function name")
	f.Params = p.parseParams(tRParen, true)
	p.next()
	if p.got(tArrow) {
		f.Result = p.parseTest()
	}
	f.Body, f.Doc, f.Pos = p.defBlock("the def header", t, true, decos)
	return f
}

// defBlock parses the block of a def (inFunc) or a class; a break or
// continue in it never belongs to an enclosing loop. It returns the block,
// its docstring and the statement's span, from the first decorator if any.
func (p *parser) defBlock(header string, kw token, inFunc bool, decos []*Decorator) (body []Stmt, doc *StringLit, pos Span) {
	savedFunc, savedLoop := p.inFunc, p.inLoop
	p.inFunc, p.inLoop = inFunc, false
	body = p.suite(header, kw.start.Line)
	p.inFunc, p.inLoop = savedFunc, savedLoop
	start := kw.start
	if len(decos) > 0 {
		start = decos[0].Pos.Start
	}
	return body, docOf(body), p.span(start, endOf(body))
}

// classdef: 'class' NAME [ '(' [ arguments ] ')' ] ':' block
func (p *parser) parseClassDef(decos []*Decorator) *ClassDef {
	t := p.tok
	p.next()
	name := p.expectName("a class name after 'class'")
	c := &ClassDef{Decorators: decos, Name: name.text, NamePos: p.span(name.start, name.end)}
	if p.got(tLParen) {
		c.Bases, _ = p.parseArgs()
	}
	c.Body, c.Doc, c.Pos = p.defBlock("the class header", t, false, decos)
	return c
}

// parameters: param { ',' param } [ ',' ]
// param: param_name | '*' [ param_name ] | '**' param_name
// lambda_parameters: parameters (without annotations)
//
// Lambda parameters are the same without annotations. parseParams stops at
// closer (')' or, for a lambda, ':') without consuming it.
func (p *parser) parseParams(closer tokKind, annotations bool) []*Param {
	var params []*Param
	seen := map[string]bool{}
	var bareStar *token
	star, sawDefault, sawDStar := false, false, false
	for p.tok.kind != closer {
		t := p.tok
		if sawDStar {
			p.errorf(t.start, t.end, errParamList, "no parameter can follow **%s", params[len(params)-1].Name)
		}
		var prm *Param
		switch t.kind {
		case tMul:
			p.next()
			if star {
				p.errorf(t.start, t.end, errParamList, "only one '*' may appear in a parameter list")
			}
			star = true
			if p.tok.kind == tComma || p.tok.kind == closer {
				bareStar = &t
				break
			}
			prm = p.parseParam(t.start, annotations)
			prm.Star = true
		case tPow:
			p.next()
			prm = p.parseParam(t.start, annotations)
			prm.DoubleStar = true
			sawDStar = true
		case tDiv:
			p.errorf(t.start, t.end, errUnsupported, "positional-only parameters ('/') are not supported")
		case tName:
			prm = p.parseParam(t.start, annotations)
			prm.KwOnly = star
			bareStar = nil
			if !star {
				if prm.Default != nil {
					sawDefault = true
				} else if sawDefault {
					p.errorf(prm.NamePos.Start, prm.NamePos.End, errParamList, "parameter '%s' without a default follows a parameter with a default", prm.Name)
				}
			}
		default:
			p.unexpected("a parameter name or '" + closer.String() + "'")
		}
		if prm != nil {
			if (prm.Star || prm.DoubleStar) && prm.Default != nil {
				p.errorf(prm.Pos.Start, prm.Pos.End, errParamList, "%s cannot have a default value", prm.Name)
			}
			if seen[prm.Name] {
				p.errorf(prm.NamePos.Start, prm.NamePos.End, errParamList, "duplicate parameter '%s'", prm.Name)
			}
			seen[prm.Name] = true
			params = append(params, prm)
		}
		if !p.got(tComma) {
			break
		}
	}
	if p.tok.kind != closer {
		p.unexpected("',' or '" + closer.String() + "' in the parameter list")
	}
	if bareStar != nil {
		p.errorf(bareStar.start, bareStar.end, errParamList, "a bare '*' must be followed by at least one named parameter")
	}
	return params
}

// param_name: NAME [ ':' expression ] [ '=' expression ]
//
// The parameter starts at start: its '*' or '**', if any, is already consumed.
func (p *parser) parseParam(start Pos, annotations bool) *Param {
	name := p.expectName("a parameter name")
	prm := &Param{Name: name.text, NamePos: p.span(name.start, name.end)}
	if annotations && p.got(tColon) {
		prm.Annotation = p.parseTest()
	}
	if p.got(tAssign) {
		prm.Default = p.parseTest()
	}
	prm.Pos = p.span(start, p.prevEnd)
	return prm
}

// stmtNoun names a simple statement for messages.
func stmtNoun(s Stmt) string {
	switch s := s.(type) {
	case *AssignStmt:
		if s.Annotation != nil {
			return "annotated assignment"
		}
		return "assignment"
	case *AugAssignStmt:
		return "augmented assignment"
	case *ReturnStmt:
		return "return statement"
	case *RaiseStmt:
		return "raise statement"
	case *AssertStmt:
		return "assert statement"
	case *DelStmt:
		return "del statement"
	case *GlobalStmt:
		return s.Tok + " statement"
	case *ImportStmt, *FromImportStmt:
		return "import"
	case *BranchStmt:
		return "'" + s.Tok + "'"
	}
	return "expression"
}
