package ir

// verifyTupleMake checks tuple.make(a, b, ...): its result is the tuple of
// its operands' types, at any level.
func verifyTupleMake(v *verifier, s *Op) {
	if s.Result == nil {
		v.errorf(s.Span, "%s without a result", s.Name)
		return
	}
	t, ok := s.Result.Type.(*Tuple)
	if !ok || len(t.Elems) != len(s.Args) || len(s.Args) < 2 {
		v.errorf(s.Span, "%s of %d values into %s, want a tuple of as many (at least 2)", s.Name, len(s.Args), typeString(s.Result.Type))
		return
	}
	for i, a := range s.Args {
		if !Compatible(t.Elems[i], TypeOf(a)) {
			v.errorf(s.Span, "%s element %d is %s, want %s", s.Name, i, TypeOf(a), t.Elems[i])
		}
	}
}

// verifyTupleGet checks tuple.get(t, index=i): the result has the type of
// element i of the tuple t.
func verifyTupleGet(v *verifier, s *Op) {
	if len(s.Args) != 1 || s.Result == nil {
		v.errorf(s.Span, "%s wants a tuple and a result", s.Name)
		return
	}
	t, ok := TypeOf(s.Args[0]).(*Tuple)
	i, iok := s.Attr("index").(IntAttr)
	if !ok || !iok || int(i) < 0 || int(i) >= len(t.Elems) {
		v.errorf(s.Span, "%s of %s at index %v, want a tuple and an index inside it", s.Name, TypeOf(s.Args[0]), s.Attr("index"))
		return
	}
	if !Identical(t.Elems[i], s.Result.Type) {
		v.errorf(s.Span, "%s element %d has type %s, but its result %s is %s", s.Name, i, t.Elems[i], s.Result.Name, typeString(s.Result.Type))
	}
}
