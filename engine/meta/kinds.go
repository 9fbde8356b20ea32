package meta

import (
	"math"
	"strconv"
	"strings"
)

// This file makes every kind declared in value.go implement Value, and adds
// the three kinds the evaluator needs beyond them: Set, Range and Method.
//
// Which form of a kind is the Value matters for type switches. The scalar
// kinds are plain values: Int, Float, Str, Bool, NoneType, Tuple, Range,
// DType and Enum. Everything with identity or mutable state is a pointer:
// *List, *Dict, *Set, *Func, *DSLFunc, *Program, *Class, *Builtin, *Generic,
// *DynVar, *Opaque, *Exception and *Method. The evaluator never produces a
// pointer to a scalar kind (*Int, *Tuple, ...), so a switch needs only the
// forms listed here.

// Set is a Python set: insertion-ordered here so listings are stable. It is
// shared by reference like *List.
type Set struct{ Elts []Value }

// Range is a Python range object: range(Start, Stop, Step), evaluated lazily
// so range(10**9) costs nothing until it is iterated.
type Range struct{ Start, Stop, Step int64 }

// Len is the number of integers the range yields.
// A range longer than math.MaxInt64 reports math.MaxInt64.
func (r Range) Len() int64 {
	var span, step uint64
	switch {
	case r.Step > 0 && r.Start < r.Stop:
		span, step = uint64(r.Stop)-uint64(r.Start), uint64(r.Step)
	case r.Step < 0 && r.Start > r.Stop:
		span, step = uint64(r.Start)-uint64(r.Stop), -uint64(r.Step)
	default:
		return 0
	}
	n := (span-1)/step + 1
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// At returns the i-th integer of the range (0 <= i < Len()).
func (r Range) At(i int64) int64 { return r.Start + i*r.Step }

// Method is a method bound to its receiver: "a,b".split, xs.append,
// pl.FP32.get_byte. Calling it runs the method at compile time.
type Method struct {
	Recv Value
	Name string
}

func (Int) TypeName() string          { return "int" }
func (Float) TypeName() string        { return "float" }
func (Str) TypeName() string          { return "str" }
func (Bool) TypeName() string         { return "bool" }
func (NoneType) TypeName() string     { return "NoneType" }
func (Tuple) TypeName() string        { return "tuple" }
func (*List) TypeName() string        { return "list" }
func (*Dict) TypeName() string        { return "dict" }
func (*Set) TypeName() string         { return "set" }
func (Range) TypeName() string        { return "range" }
func (*Func) TypeName() string        { return "function" }
func (*DSLFunc) TypeName() string     { return "DSL function" }
func (*Program) TypeName() string     { return "program" }
func (*Class) TypeName() string       { return "type" }
func (*Generic) TypeName() string     { return "type annotation" }
func (DType) TypeName() string        { return "DataType" }
func (e Enum) TypeName() string       { return e.Type }
func (*DynVar) TypeName() string      { return "DynVar" }
func (*Opaque) TypeName() string      { return "runtime object" }
func (e *Exception) TypeName() string { return e.Type }
func (*Method) TypeName() string      { return "method" }

// TypeName reports what kind of symbol b is: a Python type or exception
// class, a Python builtin function, or a library symbol.
func (b *Builtin) TypeName() string {
	if _, ok := pyTypes[b.Path]; ok {
		return "type"
	}
	if _, ok := exceptionParents[b.Path]; ok {
		return "type"
	}
	if _, ok := builtinFuncs[b.Path]; ok {
		return "builtin_function_or_method"
	}
	return "library symbol"
}

func (v Int) String() string      { return strconv.FormatInt(v.V, 10) }
func (v Float) String() string    { return formatFloatRepr(v.V) }
func (v Str) String() string      { return v.V }
func (v Bool) String() string     { return boolText(v.V) }
func (NoneType) String() string   { return "None" }
func (v Tuple) String() string    { return Repr(v) }
func (v *List) String() string    { return Repr(v) }
func (v *Dict) String() string    { return Repr(v) }
func (v *Set) String() string     { return Repr(v) }
func (v Range) String() string    { return Repr(v) }
func (v *Func) String() string    { return "<function " + v.Name() + ">" }
func (v *DSLFunc) String() string { return "<" + v.Kind.String() + " " + v.Def.Name + ">" }
func (v *Program) String() string { return "<program " + v.Name + ">" }
func (v *Class) String() string   { return "<class '" + v.Name + "'>" }
func (v *Builtin) String() string { return v.Path }
func (v *Generic) String() string { return Repr(v) }
func (v DType) String() string    { return "pl." + v.Name }
func (v Enum) String() string     { return v.Type + "." + v.Member }
func (v *DynVar) String() string  { return v.Name }
func (v *Opaque) String() string  { return "<" + v.Desc + ">" }
func (v *Method) String() string {
	return "<method " + v.Name + " of " + v.Recv.TypeName() + ">"
}

// String is str(exception): its message.
func (v *Exception) String() string { return v.Msg }

// Name is the function's name, "<lambda>" for a lambda.
func (f *Func) Name() string {
	if f.Def != nil {
		return f.Def.Name
	}
	return "<lambda>"
}

func boolText(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// Repr renders v the way Python's repr() would: strings quoted, floats in
// their shortest round-tripping form, containers with their elements'
// reprs. DSL objects get a readable form.
func Repr(v Value) string {
	var b strings.Builder
	writeRepr(&b, v, 0)
	return b.String()
}

// maxReprDepth stops a self-containing list from recursing forever; Python
// prints [...] for the cycle, which is what deep nesting renders as here.
const maxReprDepth = 64

func writeRepr(b *strings.Builder, v Value, depth int) {
	if depth > maxReprDepth {
		b.WriteString("...")
		return
	}
	seq := func(open, close string, elts []Value) {
		b.WriteString(open)
		for i, e := range elts {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e, depth+1)
		}
		b.WriteString(close)
	}
	switch v := v.(type) {
	case Str:
		b.WriteString(quoteStr(v.V))
	case Tuple:
		if len(v.Elts) == 1 {
			b.WriteString("(")
			writeRepr(b, v.Elts[0], depth+1)
			b.WriteString(",)")
			return
		}
		seq("(", ")", v.Elts)
	case *List:
		seq("[", "]", v.Elts)
	case *Set:
		if len(v.Elts) == 0 {
			b.WriteString("set()")
			return
		}
		seq("{", "}", v.Elts)
	case *Dict:
		b.WriteString("{")
		for i := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, v.Keys[i], depth+1)
			b.WriteString(": ")
			writeRepr(b, v.Values[i], depth+1)
		}
		b.WriteString("}")
	case Range:
		b.WriteString("range(" + strconv.FormatInt(v.Start, 10) + ", " + strconv.FormatInt(v.Stop, 10))
		if v.Step != 1 {
			b.WriteString(", " + strconv.FormatInt(v.Step, 10))
		}
		b.WriteString(")")
	case *Generic:
		b.WriteString(v.Base.Path)
		seq("[", "]", v.Args)
	case *DynVar:
		b.WriteString("pl.dynamic(" + quoteStr(v.Name) + ")")
	case *Exception:
		b.WriteString(v.Type + "(")
		if v.Msg != "" {
			b.WriteString(quoteStr(v.Msg))
		}
		b.WriteString(")")
	case nil:
		b.WriteString("<nil>")
	default:
		b.WriteString(v.String())
	}
}

// quoteStr quotes s as Python's repr does: single quotes unless s contains
// a single quote and no double quote; backslash escapes for the quote,
// backslash and control characters.
func quoteStr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatInt(int64(r)+0x100, 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
