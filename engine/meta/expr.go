package meta

import (
	"strings"

	"pldworkbench/engine/syntax"
)

// eval evaluates an expression, charging the value it makes (see
// chargeValue) when the expression is one that makes a new value:
// operators, literals, comprehensions, f-strings, slices and calls of
// builtins and methods. Names, attributes, indexing and calls of the
// program's own functions hand out values made (and charged) before.
func (m *machine) eval(fr *frame, e syntax.Expr) (Value, *Error) {
	v, err := m.evalNode(fr, e)
	if err != nil || v == nil {
		return v, err
	}
	switch e := e.(type) {
	case *syntax.BinaryExpr, *syntax.FStringLit, *syntax.ListLit, *syntax.TupleLit, *syntax.SetLit, *syntax.DictLit, *syntax.CompExpr:
		return v, m.chargeValue(v, e.Span())
	case *syntax.IndexExpr:
		if _, isSlice := e.Index.(*syntax.SliceExpr); isSlice {
			return v, m.chargeValue(v, e.Span())
		}
	}
	return v, nil
}

// evalApply evaluates x and applies f to its value, an attribute's or a
// unary operator's step: an error of f is placed at pos, the node's, while
// one of x keeps its own place.
func (m *machine) evalApply(fr *frame, x syntax.Expr, pos syntax.Span, f func(Value) (Value, *Error)) (Value, *Error) {
	v, err := m.eval(fr, x)
	if err != nil {
		return nil, err
	}
	if v, err = f(v); err != nil {
		return nil, err.at(pos)
	}
	return v, nil
}

func (m *machine) evalNode(fr *frame, e syntax.Expr) (Value, *Error) {
	if err := m.step(e.Span()); err != nil {
		return nil, err
	}
	switch e := e.(type) {
	case *syntax.Ident:
		return m.lookup(fr, e.Name, e.Pos)
	case *syntax.NumberLit:
		if e.Kind == syntax.FloatNumber {
			return Float{e.Float}, nil
		}
		return Int{e.Int}, nil
	case *syntax.StringLit:
		return Str{e.Value}, nil
	case *syntax.FStringLit:
		return m.evalFString(fr, e)
	case *syntax.ConstLit:
		switch e.Kind {
		case syntax.ConstTrue:
			return Bool{true}, nil
		case syntax.ConstFalse:
			return Bool{false}, nil
		case syntax.ConstNone:
			return None, nil
		}
		return &Builtin{Path: "Ellipsis"}, nil
	case *syntax.ParenExpr:
		return m.eval(fr, e.X)
	case *syntax.ListLit:
		elts, err := m.evalElts(fr, e.Elts)
		if err != nil {
			return nil, err
		}
		return &List{Elts: elts}, nil
	case *syntax.TupleLit:
		elts, err := m.evalElts(fr, e.Elts)
		if err != nil {
			return nil, err
		}
		return Tuple{Elts: elts}, nil
	case *syntax.SetLit:
		elts, err := m.evalElts(fr, e.Elts)
		if err != nil {
			return nil, err
		}
		s := &Set{}
		for _, v := range elts {
			if err := setAdd(s, v); err != nil {
				return nil, err.at(e.Pos)
			}
		}
		return s, nil
	case *syntax.DictLit:
		return m.evalDict(fr, e)
	case *syntax.CompExpr:
		return m.evalComp(fr, e)
	case *syntax.AttrExpr:
		return m.evalApply(fr, e.X, e.Pos, func(obj Value) (Value, *Error) { return m.getAttr(obj, e.Name) })
	case *syntax.IndexExpr:
		return m.evalSubscript(fr, e)
	case *syntax.CallExpr:
		return m.evalCall(fr, e)
	case *syntax.UnaryExpr:
		return m.evalApply(fr, e.X, e.Pos, func(x Value) (Value, *Error) { return unary(e.Op, x) })
	case *syntax.BinaryExpr:
		x, err := m.eval(fr, e.X)
		if err != nil {
			return nil, err
		}
		y, err := m.eval(fr, e.Y)
		if err != nil {
			return nil, err
		}
		v, err := binary(e.Op, x, y)
		if err != nil {
			return nil, opaqueHint(err, x, y).at(e.Pos)
		}
		return v, nil
	case *syntax.BoolExpr:
		x, err := m.eval(fr, e.X)
		if err != nil {
			return nil, err
		}
		if Truth(x) == (e.Op == "or") {
			return x, nil
		}
		return m.eval(fr, e.Y)
	case *syntax.CompareExpr:
		return m.evalCompare(fr, e)
	case *syntax.CondExpr:
		cond, err := m.eval(fr, e.Cond)
		if err != nil {
			return nil, err
		}
		if Truth(cond) {
			return m.eval(fr, e.Then)
		}
		return m.eval(fr, e.Else)
	case *syntax.LambdaExpr:
		defaults, err := m.evalDefaults(fr, e.Params)
		if err != nil {
			return nil, err
		}
		return &Func{Lambda: e, Env: fr.closure, Defaults: defaults}, nil
	case *syntax.SliceExpr:
		return nil, fatalErr(CodeUnsupported, "", "a slice a:b only works inside a subscript x[a:b]").at(e.Pos)
	case *syntax.StarExpr:
		return nil, fatalErr(CodeUnsupported, "", "a starred expression *x only works in a call, a list, a tuple or an assignment target").at(e.Pos)
	}
	return nil, fatalErr(CodeUnsupported, "", "this expression is not supported in compile-time code").at(e.Span())
}

// opaqueHint explains an operator error involving a value the evaluator
// does not model (a torch tensor, a numpy array, ...).
func opaqueHint(err *Error, operands ...Value) *Error {
	for _, v := range operands {
		if o, ok := v.(*Opaque); ok {
			err.Hint = "one operand is " + o.Desc + ", which comes from a library the workbench does not run at compile time; compute compile-time constants with plain Python"
		}
	}
	return err
}

// evalElts evaluates the elements of a list, tuple or set display,
// spreading *x elements.
func (m *machine) evalElts(fr *frame, exprs []syntax.Expr) ([]Value, *Error) {
	out := make([]Value, 0, len(exprs))
	for _, x := range exprs {
		if st, ok := x.(*syntax.StarExpr); ok {
			v, err := m.eval(fr, st.X)
			if err != nil {
				return nil, err
			}
			elts, err := elements(v)
			if err != nil {
				return nil, err.at(st.Pos)
			}
			out = append(out, elts...)
			continue
		}
		v, err := m.eval(fr, x)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) > maxSeqLen {
		return nil, sizeErr("sequence")
	}
	return out, nil
}

func (m *machine) evalDict(fr *frame, e *syntax.DictLit) (Value, *Error) {
	d := &Dict{}
	for i, kx := range e.Keys {
		v, err := m.eval(fr, e.Values[i])
		if err != nil {
			return nil, err
		}
		if kx == nil { // {**other}
			src, ok := v.(*Dict)
			if !ok {
				return nil, typeErr("'%s' object is not a mapping", v.TypeName()).at(e.Values[i].Span())
			}
			for j, k := range src.Keys {
				if err := dictSet(d, k, src.Values[j]); err != nil {
					return nil, err.at(e.Pos)
				}
			}
			continue
		}
		k, err := m.eval(fr, kx)
		if err != nil {
			return nil, err
		}
		if err := m.chargeLen(len(d.Keys), e.Pos); err != nil {
			return nil, err
		}
		if err := dictSet(d, k, v); err != nil {
			return nil, err.at(kx.Span())
		}
	}
	return d, nil
}

// evalComp evaluates a comprehension in its own scope (its loop variables do
// not leak). Generator expressions are evaluated eagerly into a list: the
// programs consume them at once (sum(...), tuple(...), "".join(...)).
func (m *machine) evalComp(fr *frame, e *syntax.CompExpr) (Value, *Error) {
	inner := &frame{env: NewEnv(fr.env), inFunc: fr.inFunc, handling: fr.handling}
	inner.closure = inner.env
	var out []Value
	d := &Dict{}
	var loop func(i int) *Error
	loop = func(i int) *Error {
		if i == len(e.Fors) {
			if e.Kind == syntax.DictComp {
				k, err := m.eval(inner, e.Key)
				if err != nil {
					return err
				}
				v, err := m.eval(inner, e.Elt)
				if err != nil {
					return err
				}
				if err := m.chargeLen(len(d.Keys), e.Pos); err != nil {
					return err
				}
				if err := dictSet(d, k, v); err != nil {
					return err.at(e.Key.Span())
				}
				return nil
			}
			v, err := m.eval(inner, e.Elt)
			if err != nil {
				return err
			}
			if len(out) >= maxSeqLen {
				return sizeErr("comprehension").at(e.Pos)
			}
			out = append(out, v)
			return nil
		}
		f := e.Fors[i]
		src := inner
		if i == 0 {
			src = fr // the first iterable is evaluated in the enclosing scope
		}
		seq, err := m.eval(src, f.Iter)
		if err != nil {
			return err
		}
		next, err := iterate(seq)
		if err != nil {
			return err.at(f.Iter.Span())
		}
	items:
		for v, ok := next(); ok; v, ok = next() {
			if err := m.step(e.Pos); err != nil {
				return err
			}
			if err := m.assign(inner, f.Target, v); err != nil {
				return err
			}
			for _, cond := range f.Ifs {
				c, err := m.eval(inner, cond)
				if err != nil {
					return err
				}
				if !Truth(c) {
					continue items
				}
			}
			if err := loop(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := loop(0); err != nil {
		return nil, err
	}
	switch e.Kind {
	case syntax.DictComp:
		return d, nil
	case syntax.SetComp:
		s := &Set{}
		for _, v := range out {
			if err := setAdd(s, v); err != nil {
				return nil, err.at(e.Elt.Span())
			}
		}
		return s, nil
	}
	return &List{Elts: out}, nil
}

func (m *machine) evalCompare(fr *frame, e *syntax.CompareExpr) (Value, *Error) {
	left, err := m.eval(fr, e.X)
	if err != nil {
		return nil, err
	}
	for i, op := range e.Ops {
		right, err := m.eval(fr, e.Ys[i])
		if err != nil {
			return nil, err
		}
		if c, ok := right.(*Dict); ok && (op == "in" || op == "not in") {
			if err := m.chargeLen(len(c.Keys), e.Pos); err != nil {
				return nil, err
			}
		}
		ok, cerr := compare(op, left, right)
		if cerr != nil {
			return nil, cerr.at(e.Pos)
		}
		if !ok {
			return Bool{false}, nil
		}
		left = right
	}
	return Bool{true}, nil
}

// evalIndex evaluates the inside of a subscript: a slice or a value.
func (m *machine) evalIndex(fr *frame, idx syntax.Expr) (Value, *Error) {
	s, ok := idx.(*syntax.SliceExpr)
	if !ok {
		return m.eval(fr, idx)
	}
	var sv sliceVal
	for _, part := range []struct {
		x   syntax.Expr
		dst *Value
	}{{s.Lo, &sv.lo}, {s.Hi, &sv.hi}, {s.Step, &sv.step}} {
		if part.x == nil {
			continue
		}
		v, err := m.eval(fr, part.x)
		if err != nil {
			return nil, err
		}
		*part.dst = v
	}
	return sv, nil
}

// evalSubscript evaluates x[i]. A library symbol subscripted is a type
// annotation (a *Generic); anything else indexes with Python's rules.
func (m *machine) evalSubscript(fr *frame, e *syntax.IndexExpr) (Value, *Error) {
	x, err := m.eval(fr, e.X)
	if err != nil {
		return nil, err
	}
	switch b := x.(type) {
	case *Builtin:
		var args []Value
		if t, ok := e.Index.(*syntax.TupleLit); ok && !t.Paren {
			if args, err = m.evalElts(fr, t.Elts); err != nil {
				return nil, err
			}
		} else {
			v, err := m.evalIndex(fr, e.Index)
			if err != nil {
				return nil, err
			}
			args = []Value{v}
		}
		return &Generic{Base: b, Args: args, Expr: e}, nil
	case *Opaque:
		return &Opaque{Desc: b.Desc + "[...]"}, nil
	}
	key, err := m.evalIndex(fr, e.Index)
	if err != nil {
		return nil, err
	}
	if d, ok := x.(*Dict); ok {
		if err := m.chargeLen(len(d.Keys), e.Pos); err != nil {
			return nil, err
		}
	}
	v, err := getItem(x, key)
	if err != nil {
		return nil, err.at(e.Pos)
	}
	return v, nil
}

// evalFString renders an f-string: each field is evaluated, converted
// (!r, !s, !a) and formatted with its spec, whose own {fields} are
// evaluated first.
func (m *machine) evalFString(fr *frame, e *syntax.FStringLit) (Value, *Error) {
	var b strings.Builder
	for _, p := range e.Parts {
		if p.Expr == nil {
			b.WriteString(p.Text)
			continue
		}
		v, err := m.eval(fr, p.Expr)
		if err != nil {
			return nil, err
		}
		spec := p.Format
		if strings.Contains(spec, "{") {
			if spec, err = m.expandSpec(fr, spec, e); err != nil {
				return nil, err
			}
		}
		s, err := convertAndFormat(v, p.Conv, spec)
		if err != nil {
			return nil, err.at(p.Expr.Span())
		}
		b.WriteString(s)
		if b.Len() > maxStrLen {
			return nil, sizeErr("string").at(e.Pos)
		}
	}
	return Str{b.String()}, nil
}

// expandSpec evaluates the {expr} fields nested in an f-string format spec
// ("{x:{width}.{prec}f}").
func (m *machine) expandSpec(fr *frame, spec string, e *syntax.FStringLit) (string, *Error) {
	var b strings.Builder
	for {
		open := strings.IndexByte(spec, '{')
		if open < 0 {
			b.WriteString(spec)
			return b.String(), nil
		}
		end := strings.IndexByte(spec[open:], '}')
		if end < 0 {
			return "", newErr("ValueError", "unmatched '{' in format spec %q", spec).at(e.Pos)
		}
		b.WriteString(spec[:open])
		x, errs := syntax.ParseExpr(e.Pos.File, spec[open+1:open+end])
		if errs.HasErrors() {
			return "", fatalErr(CodeUnsupported, "", "cannot read the format spec field %q: %s", spec[open+1:open+end], errs[0].Msg).at(e.Pos)
		}
		v, err := m.eval(fr, x)
		if err != nil {
			err.Span = e.Pos // the field's own positions are relative to the spec text
			return "", err
		}
		b.WriteString(v.String())
		spec = spec[open+end+1:]
	}
}
