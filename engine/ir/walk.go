package ir

// Walk calls fn for every statement of b in source order, descending into
// the bodies of For, While and If (pre-order). When fn returns false for
// one of those, its bodies are skipped.
func Walk(b *Block, fn func(Stmt) bool) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		if !fn(s) {
			continue
		}
		switch s := s.(type) {
		case *For:
			Walk(s.Body, fn)
		case *While:
			Walk(s.Body, fn)
		case *If:
			Walk(s.Then, fn)
			Walk(s.Else, fn)
		}
	}
}

// Clone returns a deep copy of p that shares nothing mutable with it: new
// Funcs, Blocks, statements, Vars (one new Var per old one, so identity is
// preserved within the copy) and lists. Types, constants, symbols,
// attribute values and origins are immutable and shared. Passes that rewrite a program
// clone it first, so every stage can still be printed.
func (p *Program) Clone() *Program {
	c := &cloner{vars: map[*Var]*Var{}, funcs: map[*Func]*Func{}}
	out := &Program{Name: p.Name, Ranks: p.Ranks, Platform: p.Platform}
	for _, f := range p.Funcs {
		nf := &Func{Name: f.Name, Level: f.Level, Result: f.Result, Span: f.Span, From: f.From}
		c.funcs[f] = nf
		out.Funcs = append(out.Funcs, nf)
	}
	for _, f := range p.Funcs {
		nf := c.funcs[f]
		for _, prm := range f.Params {
			nf.Params = append(nf.Params, &Param{Var: c.v(prm.Var), Dir: prm.Dir})
		}
		nf.Body = c.block(f.Body)
	}
	if p.Entry != nil {
		out.Entry = c.funcs[p.Entry]
	}
	return out
}

type cloner struct {
	vars  map[*Var]*Var
	funcs map[*Func]*Func
}

func (c *cloner) v(x *Var) *Var {
	if x == nil {
		return nil
	}
	if n, ok := c.vars[x]; ok {
		return n
	}
	n := &Var{Name: x.Name, Type: x.Type, Temp: x.Temp}
	c.vars[x] = n
	return n
}

func (c *cloner) op(o Operand) Operand {
	switch o := o.(type) {
	case *Var:
		return c.v(o)
	case *ListOp:
		return &ListOp{Elems: c.ops(o.Elems)}
	}
	return o
}

func (c *cloner) ops(os []Operand) []Operand {
	if os == nil {
		return nil
	}
	out := make([]Operand, len(os))
	for i, o := range os {
		out[i] = c.op(o)
	}
	return out
}

func (c *cloner) block(b *Block) *Block {
	if b == nil {
		return nil
	}
	out := &Block{Stmts: make([]Stmt, 0, len(b.Stmts))}
	for _, s := range b.Stmts {
		out.Stmts = append(out.Stmts, c.stmt(s))
	}
	return out
}

func (c *cloner) stmt(s Stmt) Stmt {
	switch s := s.(type) {
	case *Op:
		return &Op{Name: s.Name, Args: c.ops(s.Args), Attrs: append([]Attr(nil), s.Attrs...), Result: c.v(s.Result), Site: s.Site}
	case *Bin:
		return &Bin{Op: s.Op, X: c.op(s.X), Y: c.op(s.Y), Result: c.v(s.Result), Site: s.Site}
	case *Unary:
		return &Unary{Op: s.Op, X: c.op(s.X), Result: c.v(s.Result), Site: s.Site}
	case *Assign:
		return &Assign{Dst: c.v(s.Dst), Src: c.op(s.Src), Site: s.Site}
	case *Index:
		return &Index{X: c.v(s.X), Index: c.op(s.Index), Result: c.v(s.Result), Site: s.Site}
	case *Call:
		callee := c.funcs[s.Callee]
		if callee == nil {
			callee = s.Callee
		}
		return &Call{Callee: callee, Args: c.ops(s.Args), Device: c.op(s.Device), Blocks: s.Blocks,
			Binds: append([]Bind(nil), s.Binds...), Result: c.v(s.Result), Task: c.v(s.Task), Deps: c.ops(s.Deps), Site: s.Site}
	case *For:
		return &For{Var: c.v(s.Var), Start: c.op(s.Start), Stop: c.op(s.Stop), Step: c.op(s.Step), Body: c.block(s.Body), Site: s.Site}
	case *If:
		return &If{Cond: c.op(s.Cond), Then: c.block(s.Then), Else: c.block(s.Else), Site: s.Site}
	case *Return:
		return &Return{Value: c.op(s.Value), Site: s.Site}
	case *While:
		return &While{Cond: c.op(s.Cond), Body: c.block(s.Body), Site: s.Site}
	case *Break:
		return &Break{Site: s.Site}
	case *Continue:
		return &Continue{Site: s.Site}
	}
	return s
}
