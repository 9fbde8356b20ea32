package meta

import (
	"sort"

	"pldworkbench/engine/diag"
)

// This file holds the builtins that consume or build sequences. Python's
// lazy iterators (enumerate, zip, map, reversed, filter) are built eagerly
// as lists: compile-time code consumes them at once.

func biList(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	elts, err := seqArg(m, "list", args, kw, span)
	if err != nil {
		return nil, err
	}
	return &List{Elts: append([]Value(nil), elts...)}, nil
}

func biTuple(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	elts, err := seqArg(m, "tuple", args, kw, span)
	if err != nil {
		return nil, err
	}
	return Tuple{Elts: append([]Value(nil), elts...)}, nil
}

func biSet(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	elts, err := seqArg(m, "set", args, kw, span)
	if err != nil {
		return nil, err
	}
	if err := m.chargeLen(len(elts)*len(elts)/64, span); err != nil {
		return nil, err
	}
	s := &Set{}
	for _, e := range elts {
		if err := setAdd(s, e); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// seqArg reads the optional single iterable argument of list(), tuple() and
// set().
func seqArg(m *machine, name string, args []Value, kw []kwarg, span diag.Span) ([]Value, *Error) {
	if _, err := nativeArgs(name, args, kw, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, nil
	}
	elts, err := elements(args[0])
	if err != nil {
		return nil, err
	}
	return elts, m.chargeLen(len(elts), span)
}

func biDict(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("dict", args, nil, 0, 1); err != nil {
		return nil, err
	}
	d := &Dict{}
	if len(args) == 1 {
		if src, ok := args[0].(*Dict); ok {
			d.Keys = append(d.Keys, src.Keys...)
			d.Values = append(d.Values, src.Values...)
		} else {
			pairs, err := elements(args[0])
			if err != nil {
				return nil, err
			}
			if err := m.chargeLen(len(pairs)*len(pairs)/64, span); err != nil {
				return nil, err
			}
			for i, p := range pairs {
				kv, err := elements(p)
				if err != nil || len(kv) != 2 {
					return nil, newErr("ValueError", "dict() element %d must be a (key, value) pair, got %s", i, Repr(p))
				}
				if err := dictSet(d, kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, k := range kw {
		if err := dictSet(d, Str{k.name}, k.v); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func biAllAny(all bool) builtinFn {
	name := "any"
	if all {
		name = "all"
	}
	return func(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
			return nil, err
		}
		elts, err := elements(args[0])
		if err != nil {
			return nil, err
		}
		for _, e := range elts {
			if Truth(e) != all {
				return Bool{!all}, nil
			}
		}
		return Bool{all}, nil
	}
}

func biEnumerate(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	opts, err := nativeArgs("enumerate", args, kw, 1, 2, "start")
	if err != nil {
		return nil, err
	}
	start := int64(0)
	if s, ok := opts["start"]; ok {
		args = append(args, s)
	}
	if len(args) == 2 {
		var ok bool
		if start, ok = asIndex(args[1]); !ok {
			return nil, typeErr("enumerate() start must be an integer, got '%s'", args[1].TypeName())
		}
	}
	elts, err := elements(args[0])
	if err != nil {
		return nil, err
	}
	if err := m.chargeLen(len(elts), span); err != nil {
		return nil, err
	}
	out := make([]Value, len(elts))
	for i, e := range elts {
		out[i] = Tuple{Elts: []Value{Int{start + int64(i)}, e}}
	}
	return &List{Elts: out}, nil
}

func biZip(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	opts, err := nativeArgs("zip", args, kw, 0, -1, "strict")
	if err != nil {
		return nil, err
	}
	seqs := make([][]Value, len(args))
	n := -1
	for i, a := range args {
		if seqs[i], err = elements(a); err != nil {
			return nil, err
		}
		if n < 0 || len(seqs[i]) < n {
			if n >= 0 && opts["strict"] != nil && Truth(opts["strict"]) {
				return nil, newErr("ValueError", "zip() argument %d is shorter than the others", i+1)
			}
			n = len(seqs[i])
		}
	}
	if n < 0 {
		n = 0
	}
	if err := m.chargeLen(n*len(args), span); err != nil {
		return nil, err
	}
	out := make([]Value, n)
	for j := 0; j < n; j++ {
		row := make([]Value, len(seqs))
		for i := range seqs {
			row[i] = seqs[i][j]
		}
		out[j] = Tuple{Elts: row}
	}
	return &List{Elts: out}, nil
}

func biReversed(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("reversed", args, kw, 1, 1); err != nil {
		return nil, err
	}
	switch args[0].(type) {
	case *Dict, *Set:
		return nil, typeErr("'%s' object is not reversible", args[0].TypeName())
	}
	elts, err := elements(args[0])
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(elts))
	for i, e := range elts {
		out[len(elts)-1-i] = e
	}
	return &List{Elts: out}, m.chargeLen(len(elts), span)
}

func biSum(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	opts, err := nativeArgs("sum", args, kw, 1, 2, "start")
	if err != nil {
		return nil, err
	}
	var acc Value = Int{0}
	if len(args) == 2 {
		acc = args[1]
	} else if s, ok := opts["start"]; ok {
		acc = s
	}
	if _, isStr := acc.(Str); isStr {
		return nil, typeErr("sum() can't sum strings; use ''.join(seq) instead")
	}
	elts, err := elements(args[0])
	if err != nil {
		return nil, err
	}
	if err := m.chargeLen(len(elts), span); err != nil {
		return nil, err
	}
	for _, e := range elts {
		if acc, err = binary("+", acc, e); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// keyed applies the key= function of min, max and sorted to each element.
func keyed(m *machine, elts []Value, key Value, span diag.Span) ([]Value, *Error) {
	if key == nil || key == Value(None) {
		return elts, nil
	}
	keys := make([]Value, len(elts))
	for i, e := range elts {
		k, err := m.callValue(key, []Value{e}, nil, span, "")
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

func biMinMax(name, op string) builtinFn {
	return func(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		opts, err := nativeArgs(name, args, kw, 1, -1, "key", "default")
		if err != nil {
			return nil, err
		}
		elts := args
		if len(args) == 1 {
			if elts, err = elements(args[0]); err != nil {
				return nil, err
			}
		}
		if len(elts) == 0 {
			if d, ok := opts["default"]; ok {
				return d, nil
			}
			return nil, newErr("ValueError", "%s() arg is an empty sequence", name)
		}
		keys, err := keyed(m, elts, opts["key"], span)
		if err != nil {
			return nil, err
		}
		best := 0
		for i := 1; i < len(elts); i++ {
			better, err := compare(op, keys[i], keys[best])
			if err != nil {
				return nil, err
			}
			if better {
				best = i
			}
		}
		return elts[best], nil
	}
}

func biSorted(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	opts, err := nativeArgs("sorted", args, kw, 1, 1, "key", "reverse")
	if err != nil {
		return nil, err
	}
	elts, err := elements(args[0])
	if err != nil {
		return nil, err
	}
	out, err := sortValues(m, elts, opts["key"], opts["reverse"] != nil && Truth(opts["reverse"]), span)
	if err != nil {
		return nil, err
	}
	return &List{Elts: out}, nil
}

// sortValues returns a stably sorted copy of elts, as sorted() and
// list.sort() do.
func sortValues(m *machine, elts []Value, key Value, reverse bool, span diag.Span) ([]Value, *Error) {
	if err := m.chargeLen(len(elts)*8, span); err != nil {
		return nil, err
	}
	keys, err := keyed(m, elts, key, span)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(elts))
	for i := range idx {
		idx[i] = i
	}
	var cmpErr *Error
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := keys[idx[a]], keys[idx[b]]
		if reverse {
			x, y = y, x
		}
		lt, err := less("<", x, y)
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		return lt
	})
	if cmpErr != nil {
		return nil, cmpErr
	}
	out := make([]Value, len(elts))
	for i, j := range idx {
		out[i] = elts[j]
	}
	return out, nil
}

func biMap(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("map", args, kw, 2, -1); err != nil {
		return nil, err
	}
	zipped, err := biZip(m, args[1:], nil, span)
	if err != nil {
		return nil, err
	}
	rows := zipped.(*List).Elts
	out := make([]Value, len(rows))
	for i, row := range rows {
		if out[i], err = m.callValue(args[0], row.(Tuple).Elts, nil, span, ""); err != nil {
			return nil, err
		}
	}
	return &List{Elts: out}, nil
}

func biFilter(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("filter", args, kw, 2, 2); err != nil {
		return nil, err
	}
	elts, err := elements(args[1])
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, e := range elts {
		keep := e
		if args[0] != Value(None) {
			if keep, err = m.callValue(args[0], []Value{e}, nil, span, ""); err != nil {
				return nil, err
			}
		}
		if Truth(keep) {
			out = append(out, e)
		}
	}
	return &List{Elts: out}, nil
}

func biGetattr(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("getattr", args, kw, 2, 3); err != nil {
		return nil, err
	}
	name, ok := args[1].(Str)
	if !ok {
		return nil, typeErr("getattr() attribute name must be a string, got '%s'", args[1].TypeName())
	}
	v, err := m.getAttr(args[0], name.V)
	if err != nil && len(args) == 3 && err.Type == "AttributeError" {
		return args[2], nil
	}
	return v, err
}

func biHasattr(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("hasattr", args, kw, 2, 2); err != nil {
		return nil, err
	}
	name, ok := args[1].(Str)
	if !ok {
		return nil, typeErr("hasattr() attribute name must be a string, got '%s'", args[1].TypeName())
	}
	_, err := m.getAttr(args[0], name.V)
	if err != nil && !err.Fatal && err.Type == "AttributeError" {
		return Bool{false}, nil
	}
	return Bool{err == nil}, err
}
