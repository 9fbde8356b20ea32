package meta

import (
	"sort"
	"strings"

	"pldworkbench/engine/diag"
)

// methodFn implements a method of a builtin value kind.
type methodFn func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error)

// noArgs is a method that takes no arguments: nativeArgs refuses any (the
// message names the method), then f computes the result from the receiver.
func noArgs(name string, f func(recv Value) Value) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 0, 0); err != nil {
			return nil, err
		}
		return f(recv), nil
	}
}

// methodTables holds the methods of each value kind, by the kind's Python
// type name. Like builtinFuncs it is read through the Module (methods such
// as list.sort call back into the machine).
var methodTables = map[string]map[string]methodFn{
	"str":      strMethods,
	"list":     listMethods,
	"dict":     dictMethods,
	"set":      setMethods,
	"tuple":    {"index": seqIndexMethod, "count": seqCountMethod},
	"int":      {"bit_length": intBitLength},
	"float":    {"is_integer": floatIsInteger},
	"DataType": {"get_byte": dtypeGetByte},
}

// getAttr is obj.name.
func (m *machine) getAttr(obj Value, name string) (Value, *Error) {
	switch o := obj.(type) {
	case *Builtin:
		return m.libraryAttr(o, name)
	case *Program:
		if meth := o.Method(name); meth != nil {
			return meth, nil
		}
		if v, ok := o.Attrs[name]; ok {
			return v, nil
		}
		names := make([]string, 0, len(o.Methods))
		for _, meth := range o.Methods {
			names = append(names, meth.Def.Name)
		}
		return nil, newErr("AttributeError", "program %s has no method '%s'", o.Name, name).
			withHint(didYouMean(name, names) + "its DSL methods are " + orNone(names))
	case *Class:
		if v, ok := o.Attrs[name]; ok {
			return v, nil
		}
		return nil, newErr("AttributeError", "class %s has no attribute '%s'", o.Name, name)
	case *Opaque:
		return &Opaque{Desc: o.Desc + "." + name}, nil
	case Enum:
		switch name {
		case "value":
			return Int{int64(o.V)}, nil
		case "name":
			return Str{o.Member}, nil
		}
	case *Exception:
		if name == "args" {
			if o.Msg == "" {
				return Tuple{}, nil
			}
			return Tuple{Elts: []Value{Str{o.Msg}}}, nil
		}
	case *Func:
		if name == "__name__" {
			return Str{o.Name()}, nil
		}
	case *DSLFunc:
		if name == "__name__" {
			return Str{o.Def.Name}, nil
		}
	case *DynVar:
		if name == "name" {
			return Str{o.Name}, nil
		}
	}
	table := m.mod.methods[obj.TypeName()]
	if _, ok := table[name]; ok {
		return &Method{Recv: obj, Name: name}, nil
	}
	e := newErr("AttributeError", "'%s' object has no attribute '%s'", obj.TypeName(), name)
	if len(table) > 0 {
		names := sortedMethodNames(table)
		e.Hint = didYouMean(name, names) + "the " + obj.TypeName() + " methods available at compile time are " + strings.Join(names, ", ")
	}
	return nil, e
}

// didYouMean suggests the candidate closest to name, as the start of a hint.
func didYouMean(name string, candidates []string) string {
	env := NewEnv(nil)
	for _, c := range candidates {
		env.Set(c, None)
	}
	if best := closestName(name, env); best != "" {
		return "did you mean '" + best + "'? "
	}
	return ""
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// callMethod calls a bound method.
func (m *machine) callMethod(meth *Method, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	fn, ok := m.mod.methods[meth.Recv.TypeName()][meth.Name]
	if !ok {
		return nil, newErr("AttributeError", "'%s' object has no attribute '%s'", meth.Recv.TypeName(), meth.Name)
	}
	return fn(m, meth.Recv, args, kw, span)
}

func dtypeGetByte(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("get_byte", args, kw, 0, 0); err != nil {
		return nil, err
	}
	return Int{int64(recv.(DType).Bytes())}, nil
}

func intBitLength(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("bit_length", args, kw, 0, 0); err != nil {
		return nil, err
	}
	u := recv.(Int).V
	if u < 0 {
		u = -u
	}
	n := int64(0)
	for x := uint64(u); x != 0; x >>= 1 {
		n++
	}
	return Int{n}, nil
}

func floatIsInteger(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("is_integer", args, kw, 0, 0); err != nil {
		return nil, err
	}
	f := recv.(Float).V
	return Bool{f == float64(int64(f))}, nil
}

// seqElts returns the elements of a list or tuple receiver.
func seqElts(v Value) []Value {
	switch v := v.(type) {
	case *List:
		return v.Elts
	case Tuple:
		return v.Elts
	}
	return nil
}

func seqIndexMethod(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("index", args, kw, 1, 1); err != nil {
		return nil, err
	}
	for i, e := range seqElts(recv) {
		if equal(e, args[0]) {
			return Int{int64(i)}, nil
		}
	}
	return nil, newErr("ValueError", "%s is not in the %s", Repr(args[0]), recv.TypeName())
}

func seqCountMethod(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("count", args, kw, 1, 1); err != nil {
		return nil, err
	}
	n := int64(0)
	for _, e := range seqElts(recv) {
		if equal(e, args[0]) {
			n++
		}
	}
	return Int{n}, nil
}

var listMethods = map[string]methodFn{
	"append": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("append", args, kw, 1, 1); err != nil {
			return nil, err
		}
		l := recv.(*List)
		if len(l.Elts) >= maxSeqLen {
			return nil, sizeErr("list")
		}
		l.Elts = append(l.Elts, args[0])
		return None, nil
	},
	"extend": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("extend", args, kw, 1, 1); err != nil {
			return nil, err
		}
		elts, err := elements(args[0])
		if err != nil {
			return nil, err
		}
		l := recv.(*List)
		if len(l.Elts)+len(elts) > maxSeqLen {
			return nil, sizeErr("list")
		}
		l.Elts = append(l.Elts, elts...)
		return None, m.chargeLen(len(elts), span)
	},
	"insert": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("insert", args, kw, 2, 2); err != nil {
			return nil, err
		}
		l := recv.(*List)
		i, ok := asIndex(args[0])
		if !ok {
			return nil, typeErr("list.insert() index must be an integer, got '%s'", args[0].TypeName())
		}
		n := int64(len(l.Elts))
		if i < 0 {
			i = max(i+n, 0)
		}
		i = min(i, n)
		l.Elts = append(l.Elts, nil)
		copy(l.Elts[i+1:], l.Elts[i:])
		l.Elts[i] = args[1]
		return None, m.chargeLen(len(l.Elts), span)
	},
	"pop": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("pop", args, kw, 0, 1); err != nil {
			return nil, err
		}
		l := recv.(*List)
		if len(l.Elts) == 0 {
			return nil, newErr("IndexError", "pop from an empty list")
		}
		var idx Value = Int{-1}
		if len(args) == 1 {
			idx = args[0]
		}
		i, err := seqIndex("list", idx, len(l.Elts))
		if err != nil {
			return nil, err
		}
		v := l.Elts[i]
		l.Elts = append(l.Elts[:i:i], l.Elts[i+1:]...)
		return v, nil
	},
	"remove": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("remove", args, kw, 1, 1); err != nil {
			return nil, err
		}
		l := recv.(*List)
		for i, e := range l.Elts {
			if equal(e, args[0]) {
				l.Elts = append(l.Elts[:i:i], l.Elts[i+1:]...)
				return None, nil
			}
		}
		return nil, newErr("ValueError", "list.remove(x): %s is not in the list", Repr(args[0]))
	},
	"clear": noArgs("clear", func(recv Value) Value {
		recv.(*List).Elts = nil
		return None
	}),
	"copy": noArgs("copy", func(recv Value) Value {
		return &List{Elts: append([]Value(nil), recv.(*List).Elts...)}
	}),
	"reverse": noArgs("reverse", func(recv Value) Value {
		e := recv.(*List).Elts
		for i, j := 0, len(e)-1; i < j; i, j = i+1, j-1 {
			e[i], e[j] = e[j], e[i]
		}
		return None
	}),
	"sort": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		opts, err := nativeArgs("sort", args, kw, 0, 0, "key", "reverse")
		if err != nil {
			return nil, err
		}
		l := recv.(*List)
		out, err := sortValues(m, l.Elts, opts["key"], opts["reverse"] != nil && Truth(opts["reverse"]), span)
		if err != nil {
			return nil, err
		}
		l.Elts = out
		return None, nil
	},
	"index": seqIndexMethod,
	"count": seqCountMethod,
}

var dictMethods = map[string]methodFn{
	"get": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("get", args, kw, 1, 2); err != nil {
			return nil, err
		}
		d := recv.(*Dict)
		if err := m.chargeLen(len(d.Keys), span); err != nil {
			return nil, err
		}
		if _, err := hashKey(args[0]); err != nil {
			return nil, err
		}
		if i := dictIndex(d, args[0]); i >= 0 {
			return d.Values[i], nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return None, nil
	},
	"keys": noArgs("keys", func(recv Value) Value {
		return &List{Elts: append([]Value(nil), recv.(*Dict).Keys...)}
	}),
	"values": noArgs("values", func(recv Value) Value {
		return &List{Elts: append([]Value(nil), recv.(*Dict).Values...)}
	}),
	"items": noArgs("items", func(recv Value) Value {
		d := recv.(*Dict)
		out := make([]Value, len(d.Keys))
		for i := range d.Keys {
			out[i] = Tuple{Elts: []Value{d.Keys[i], d.Values[i]}}
		}
		return &List{Elts: out}
	}),
	"pop": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("pop", args, kw, 1, 2); err != nil {
			return nil, err
		}
		d := recv.(*Dict)
		i := dictIndex(d, args[0])
		if i < 0 {
			if len(args) == 2 {
				return args[1], nil
			}
			return nil, keyErr(d, args[0])
		}
		v := d.Values[i]
		return v, dictDelete(d, args[0])
	},
	"setdefault": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("setdefault", args, kw, 1, 2); err != nil {
			return nil, err
		}
		d := recv.(*Dict)
		if i := dictIndex(d, args[0]); i >= 0 {
			return d.Values[i], nil
		}
		var def Value = None
		if len(args) == 2 {
			def = args[1]
		}
		return def, dictSet(d, args[0], def)
	},
	"update": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		src, err := biDict(m, args, kw, span)
		if err != nil {
			return nil, err
		}
		d, s := recv.(*Dict), src.(*Dict)
		for i, k := range s.Keys {
			if err := dictSet(d, k, s.Values[i]); err != nil {
				return nil, err
			}
		}
		return None, m.chargeLen(len(d.Keys)*len(s.Keys)/16, span)
	},
	"copy": noArgs("copy", func(recv Value) Value {
		d := recv.(*Dict)
		return &Dict{Keys: append([]Value(nil), d.Keys...), Values: append([]Value(nil), d.Values...)}
	}),
	"clear": noArgs("clear", func(recv Value) Value {
		d := recv.(*Dict)
		d.Keys, d.Values = nil, nil
		return None
	}),
}

// setOp builds the set methods that combine the receiver with other
// iterables.
func setOp(name string, keep func(inSelf, inOther bool) bool, fromOther bool) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 0, -1); err != nil {
			return nil, err
		}
		cur := recv.(*Set)
		for _, a := range args {
			elts, err := elements(a)
			if err != nil {
				return nil, err
			}
			other := &Set{}
			for _, e := range elts {
				if err := setAdd(other, e); err != nil {
					return nil, err
				}
			}
			next := &Set{}
			for _, e := range cur.Elts {
				if keep(true, setIndex(other, e) >= 0) {
					next.Elts = append(next.Elts, e)
				}
			}
			if fromOther {
				for _, e := range other.Elts {
					if setIndex(cur, e) < 0 && keep(false, true) {
						next.Elts = append(next.Elts, e)
					}
				}
			}
			cur = next
		}
		if cur == recv.(*Set) {
			return &Set{Elts: append([]Value(nil), cur.Elts...)}, nil
		}
		return cur, nil
	}
}

var setMethods = map[string]methodFn{
	"add": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("add", args, kw, 1, 1); err != nil {
			return nil, err
		}
		s := recv.(*Set)
		return None, setAdd(s, args[0])
	},
	"discard": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("discard", args, kw, 1, 1); err != nil {
			return nil, err
		}
		s := recv.(*Set)
		if i := setIndex(s, args[0]); i >= 0 {
			s.Elts = append(s.Elts[:i:i], s.Elts[i+1:]...)
		}
		return None, nil
	},
	"remove": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("remove", args, kw, 1, 1); err != nil {
			return nil, err
		}
		s := recv.(*Set)
		i := setIndex(s, args[0])
		if i < 0 {
			return nil, newErr("KeyError", "%s is not in the set", Repr(args[0]))
		}
		s.Elts = append(s.Elts[:i:i], s.Elts[i+1:]...)
		return None, nil
	},
	"union":        setOp("union", func(a, b bool) bool { return a || b }, true),
	"intersection": setOp("intersection", func(a, b bool) bool { return a && b }, false),
	"difference":   setOp("difference", func(a, b bool) bool { return a && !b }, false),
	"copy": noArgs("copy", func(recv Value) Value {
		return &Set{Elts: append([]Value(nil), recv.(*Set).Elts...)}
	}),
	"issubset": func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs("issubset", args, kw, 1, 1); err != nil {
			return nil, err
		}
		elts, err := elements(args[0])
		if err != nil {
			return nil, err
		}
		for _, e := range recv.(*Set).Elts {
			if !containsElt(elts, e) {
				return Bool{false}, nil
			}
		}
		return Bool{true}, nil
	},
}

// sortedMethodNames lists a kind's method names, for hints.
func sortedMethodNames(table map[string]methodFn) []string {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
