package meta

import (
	"pldworkbench/engine/syntax"
)

// This file binds values to assignment targets: names, unpacking patterns
// (a, *rest = ...), subscripts and attributes.

func (m *machine) execAssign(fr *frame, s *syntax.AssignStmt) *Error {
	if s.Value == nil {
		return nil // a bare annotation `x: int` binds nothing
	}
	v, err := m.eval(fr, s.Value)
	if err != nil {
		return err
	}
	for _, t := range s.Targets {
		if err := m.assign(fr, t, v); err != nil {
			return err
		}
	}
	return nil
}

// assign binds v to the target expression t.
func (m *machine) assign(fr *frame, t syntax.Expr, v Value) *Error {
	switch t := t.(type) {
	case *syntax.Ident:
		return m.bind(fr, t.Name, v, t.Pos)
	case *syntax.ParenExpr:
		return m.assign(fr, t.X, v)
	case *syntax.TupleLit:
		return m.unpack(fr, t.Elts, v, t.Pos)
	case *syntax.ListLit:
		return m.unpack(fr, t.Elts, v, t.Pos)
	case *syntax.IndexExpr:
		container, err := m.eval(fr, t.X)
		if err != nil {
			return err
		}
		key, err := m.evalIndex(fr, t.Index)
		if err != nil {
			return err
		}
		if d, ok := container.(*Dict); ok {
			if err := m.chargeLen(len(d.Keys), t.Pos); err != nil {
				return err
			}
		}
		if err := setItem(container, key, v); err != nil {
			return err.at(t.Pos)
		}
		return nil
	case *syntax.AttrExpr:
		obj, err := m.eval(fr, t.X)
		if err != nil {
			return err
		}
		return typeErr("cannot set attribute '%s' of a '%s' at compile time", t.Name, obj.TypeName()).at(t.Pos)
	case *syntax.StarExpr:
		return fatalErr(CodeUnsupported, "use it inside a tuple or list target: first, *rest = xs",
			"a starred assignment target must be inside a tuple or list").at(t.Pos)
	}
	return fatalErr(CodeUnsupported, "assign to a name, a subscript, or a tuple of them",
		"cannot assign to this expression").at(t.Span())
}

// unpack assigns the elements of v to targets, with at most one starred
// target collecting the middle into a list.
func (m *machine) unpack(fr *frame, targets []syntax.Expr, v Value, pos syntax.Span) *Error {
	elts, err := elements(v)
	if err != nil {
		if err.Type == "TypeError" {
			err = typeErr("cannot unpack a '%s' into %d targets", v.TypeName(), len(targets))
		}
		return err.at(pos)
	}
	star := -1
	for i, t := range targets {
		if _, ok := t.(*syntax.StarExpr); ok {
			if star >= 0 {
				return fatalErr(CodeUnsupported, "", "multiple starred expressions in one assignment").at(t.Span())
			}
			star = i
		}
	}
	if star < 0 {
		if len(elts) != len(targets) {
			return newErr("ValueError", "cannot unpack %d values into %d targets: got %d, want %d",
				len(elts), len(targets), len(elts), len(targets)).at(pos).
				withHint("the number of names on the left must match the number of values on the right")
		}
		for i, t := range targets {
			if err := m.assign(fr, t, elts[i]); err != nil {
				return err
			}
		}
		return nil
	}
	after := len(targets) - star - 1
	if len(elts) < star+after {
		return newErr("ValueError", "not enough values to unpack: got %d, want at least %d", len(elts), star+after).at(pos)
	}
	for i := 0; i < star; i++ {
		if err := m.assign(fr, targets[i], elts[i]); err != nil {
			return err
		}
	}
	mid := append([]Value(nil), elts[star:len(elts)-after]...)
	if err := m.assign(fr, targets[star].(*syntax.StarExpr).X, &List{Elts: mid}); err != nil {
		return err
	}
	for i := 0; i < after; i++ {
		if err := m.assign(fr, targets[star+1+i], elts[len(elts)-after+i]); err != nil {
			return err
		}
	}
	return nil
}

// execAugAssign runs target op= value. A list's += extends it in place, as
// in Python; everything else rebinds.
func (m *machine) execAugAssign(fr *frame, s *syntax.AugAssignStmt) *Error {
	var (
		cur       Value
		err       *Error
		container Value
		key       Value
	)
	switch t := s.Target.(type) {
	case *syntax.Ident:
		cur, err = m.lookup(fr, t.Name, t.Pos)
	case *syntax.IndexExpr:
		if container, err = m.eval(fr, t.X); err == nil {
			if key, err = m.evalIndex(fr, t.Index); err == nil {
				cur, err = getItem(container, key)
				if err != nil {
					err = err.at(t.Pos)
				}
			}
		}
	default:
		return fatalErr(CodeUnsupported, "augment a name or a subscript",
			"cannot use %s= on this target", s.Op).at(s.Target.Span())
	}
	if err != nil {
		return err
	}
	rhs, err := m.eval(fr, s.Value)
	if err != nil {
		return err
	}
	var nv Value
	if l, ok := cur.(*List); ok && s.Op == "+" {
		elts, err := elements(rhs)
		if err != nil {
			return err.at(s.Value.Span())
		}
		if len(l.Elts)+len(elts) > maxSeqLen {
			return sizeErr("list").at(s.Pos)
		}
		l.Elts = append(l.Elts, elts...)
		nv = l
		if err := m.chargeValue(Tuple{Elts: elts}, s.Pos); err != nil {
			return err
		}
	} else {
		if nv, err = binary(s.Op, cur, rhs); err != nil {
			return err.at(s.Pos)
		}
		if err := m.chargeValue(nv, s.Pos); err != nil {
			return err
		}
	}
	if container != nil {
		if err := setItem(container, key, nv); err != nil {
			return err.at(s.Pos)
		}
		return nil
	}
	return m.assign(fr, s.Target, nv)
}

// deleteTarget runs del t.
func (m *machine) deleteTarget(fr *frame, t syntax.Expr) *Error {
	switch t := t.(type) {
	case *syntax.Ident:
		return m.unbind(fr, t.Name, t.Pos)
	case *syntax.ParenExpr:
		return m.deleteTarget(fr, t.X)
	case *syntax.TupleLit:
		for _, e := range t.Elts {
			if err := m.deleteTarget(fr, e); err != nil {
				return err
			}
		}
		return nil
	case *syntax.IndexExpr:
		container, err := m.eval(fr, t.X)
		if err != nil {
			return err
		}
		key, err := m.evalIndex(fr, t.Index)
		if err != nil {
			return err
		}
		if err := delItem(container, key); err != nil {
			return err.at(t.Pos)
		}
		return nil
	}
	return fatalErr(CodeUnsupported, "", "cannot delete this expression").at(t.Span())
}
