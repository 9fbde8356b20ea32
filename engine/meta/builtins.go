package meta

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"pldworkbench/engine/diag"
)

// builtinFn implements a Python builtin function in Go.
type builtinFn func(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error)

// builtinFuncs is the table of Python builtins the evaluator implements,
// by name. The machine reads it through Module.builtins (the table refers to
// functions that call back into the machine, and Go forbids the
// initialization cycle a direct reference would make).
var builtinFuncs = map[string]builtinFn{
	"abs":          biAbs,
	"all":          biAllAny(true),
	"any":          biAllAny(false),
	"bin":          biRadix("bin", 'b'),
	"bool":         biBool,
	"callable":     biCallable,
	"chr":          biChr,
	"classmethod":  biIdentity("classmethod"),
	"dict":         biDict,
	"divmod":       biDivmod,
	"enumerate":    biEnumerate,
	"filter":       biFilter,
	"float":        biFloat,
	"format":       biFormat,
	"frozenset":    biSet,
	"getattr":      biGetattr,
	"hasattr":      biHasattr,
	"hex":          biRadix("hex", 'x'),
	"int":          biInt,
	"isinstance":   biIsinstance,
	"len":          biLen,
	"list":         biList,
	"map":          biMap,
	"max":          biMinMax("max", ">"),
	"min":          biMinMax("min", "<"),
	"object":       biObject,
	"oct":          biRadix("oct", 'o'),
	"ord":          biOrd,
	"pow":          biPow,
	"print":        biPrint,
	"property":     biIdentity("property"),
	"range":        biRange,
	"repr":         biRepr,
	"reversed":     biReversed,
	"round":        biRound,
	"set":          biSet,
	"sorted":       biSorted,
	"staticmethod": biIdentity("staticmethod"),
	"str":          biStr,
	"sum":          biSum,
	"tuple":        biTuple,
	"type":         biType,
	"zip":          biZip,
}

// pyTypes are the builtins that are types (isinstance's second argument).
var pyTypes = map[string]bool{
	"int": true, "float": true, "str": true, "bool": true, "list": true, "tuple": true,
	"dict": true, "set": true, "frozenset": true, "range": true, "object": true, "type": true,
}

// exceptionParents is Python's exception hierarchy, child to parent.
var exceptionParents = map[string]string{
	"BaseException":       "",
	"SystemExit":          "BaseException",
	"KeyboardInterrupt":   "BaseException",
	"Exception":           "BaseException",
	"ArithmeticError":     "Exception",
	"ZeroDivisionError":   "ArithmeticError",
	"OverflowError":       "ArithmeticError",
	"AssertionError":      "Exception",
	"AttributeError":      "Exception",
	"ImportError":         "Exception",
	"LookupError":         "Exception",
	"IndexError":          "LookupError",
	"KeyError":            "LookupError",
	"NameError":           "Exception",
	"UnboundLocalError":   "NameError",
	"OSError":             "Exception",
	"RuntimeError":        "Exception",
	"NotImplementedError": "RuntimeError",
	"RecursionError":      "RuntimeError",
	"StopIteration":       "Exception",
	"TypeError":           "Exception",
	"ValueError":          "Exception",
}

// builtinNames lists every name the builtin scope binds.
func builtinNames() []string {
	var names []string
	for n := range builtinFuncs {
		names = append(names, n)
	}
	for n := range exceptionParents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func isExceptionClass(path string) bool {
	_, ok := exceptionParents[path]
	return ok
}

// isSubclass reports whether exception class typ is cls or derives from it,
// counting the program's own exception classes.
func (mod *Module) isSubclass(typ, cls string) bool {
	for t, seen := typ, 0; t != "" && seen < 32; seen++ {
		if t == cls {
			return true
		}
		if p, ok := mod.userExc[t]; ok {
			t = p
		} else {
			t = exceptionParents[t]
		}
	}
	return false
}

// callBuiltin calls a Python builtin, constructs an exception, or calls a
// library symbol (library.go).
func (m *machine) callBuiltin(b *Builtin, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if fn, ok := m.mod.builtins[b.Path]; ok {
		return fn(m, args, kw, span)
	}
	if isExceptionClass(b.Path) {
		return newException(b.Path, args), nil
	}
	return m.callLibrary(b, args, kw, span)
}

// newException builds an exception value the way BaseException.__init__
// does: str() of one argument, the tuple's repr for several.
func newException(typ string, args []Value) *Exception {
	switch len(args) {
	case 0:
		return &Exception{Type: typ}
	case 1:
		if typ == "KeyError" {
			return &Exception{Type: typ, Msg: Repr(args[0])} // str(KeyError("k")) is "'k'"
		}
		return &Exception{Type: typ, Msg: args[0].String()}
	}
	return &Exception{Type: typ, Msg: Repr(Tuple{Elts: args})}
}

func biIdentity(name string) builtinFn {
	return func(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
			return nil, err
		}
		return args[0], nil
	}
}

func biPrint(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	_, err := nativeArgs("print", args, kw, 0, -1, "sep", "end", "file", "flush")
	return None, err
}

func biObject(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("object", args, kw, 0, 0); err != nil {
		return nil, err
	}
	return &Opaque{Desc: "object()"}, nil
}

func biLen(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("len", args, kw, 1, 1); err != nil {
		return nil, err
	}
	switch v := args[0].(type) {
	case Str:
		return Int{int64(len([]rune(v.V)))}, nil
	case Tuple:
		return Int{int64(len(v.Elts))}, nil
	case *List:
		return Int{int64(len(v.Elts))}, nil
	case *Dict:
		return Int{int64(len(v.Keys))}, nil
	case *Set:
		return Int{int64(len(v.Elts))}, nil
	case Range:
		return Int{v.Len()}, nil
	}
	return nil, typeErr("object of type '%s' has no len()", args[0].TypeName())
}

func biRange(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("range", args, kw, 1, 3); err != nil {
		return nil, err
	}
	var n [3]int64
	for i, a := range args {
		v, ok := asIndex(a)
		if !ok {
			return nil, typeErr("range() wants integers, got '%s'", a.TypeName()).
				withHint("convert with int(...) first; range does not accept floats")
		}
		n[i] = v
	}
	switch len(args) {
	case 1:
		return Range{0, n[0], 1}, nil
	case 2:
		return Range{n[0], n[1], 1}, nil
	}
	if n[2] == 0 {
		return nil, newErr("ValueError", "range() step must not be zero")
	}
	return Range{n[0], n[1], n[2]}, nil
}

func biInt(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	opts, err := nativeArgs("int", args, kw, 0, 2, "base")
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return Int{0}, nil
	}
	base := int64(10)
	if b, ok := opts["base"]; ok {
		args = append(args, b)
	}
	if len(args) == 2 {
		var ok bool
		if base, ok = asIndex(args[1]); !ok || base == 1 || base < 0 || base > 36 {
			return nil, newErr("ValueError", "int() base must be 0 or 2..36, got %s", Repr(args[1]))
		}
		if _, isStr := args[0].(Str); !isStr {
			return nil, typeErr("int() can't convert a non-string with an explicit base")
		}
	}
	switch v := args[0].(type) {
	case Int:
		return v, nil
	case Bool:
		i, _, _, _ := number(v)
		return Int{i}, nil
	case Float:
		if math.IsNaN(v.V) || math.IsInf(v.V, 0) {
			return nil, newErr("ValueError", "cannot convert float %s to an integer", formatFloatRepr(v.V))
		}
		t := math.Trunc(v.V)
		if t >= 1<<63 || t < -(1<<63) {
			return nil, newErr("OverflowError", "float %s does not fit in 64 bits", formatFloatRepr(v.V))
		}
		return Int{int64(t)}, nil
	case Str:
		s := strings.ReplaceAll(strings.TrimSpace(v.V), "_", "")
		i, perr := strconv.ParseInt(s, int(base), 64)
		if perr != nil && base == 10 {
			// Python accepts a leading '+' and leading zeros in base 10 only.
			i, perr = strconv.ParseInt(strings.TrimLeft(s, "+"), 10, 64)
		}
		if perr != nil {
			return nil, newErr("ValueError", "invalid literal for int() with base %d: %s", base, quoteStr(v.V))
		}
		return Int{i}, nil
	}
	return nil, typeErr("int() argument must be a string or a number, got '%s'", args[0].TypeName())
}

func biFloat(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("float", args, kw, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return Float{0}, nil
	}
	if s, ok := args[0].(Str); ok {
		t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s.V), "_", ""))
		switch strings.TrimLeft(t, "+-") {
		case "inf", "infinity", "nan":
			f, _ := strconv.ParseFloat(t, 64)
			return Float{f}, nil
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, newErr("ValueError", "could not convert string to float: %s", quoteStr(s.V))
		}
		return Float{f}, nil
	}
	i, f, isF, ok := number(args[0])
	if !ok {
		return nil, typeErr("float() argument must be a string or a number, got '%s'", args[0].TypeName())
	}
	if !isF {
		f = float64(i)
	}
	return Float{f}, nil
}

func biStr(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("str", args, kw, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return Str{}, nil
	}
	return Str{args[0].String()}, nil
}

func biRepr(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("repr", args, kw, 1, 1); err != nil {
		return nil, err
	}
	return Str{Repr(args[0])}, nil
}

func biBool(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("bool", args, kw, 0, 1); err != nil {
		return nil, err
	}
	return Bool{len(args) == 1 && Truth(args[0])}, nil
}

func biAbs(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("abs", args, kw, 1, 1); err != nil {
		return nil, err
	}
	i, f, isF, ok := number(args[0])
	switch {
	case !ok:
		return nil, typeErr("bad operand type for abs(): got '%s'", args[0].TypeName())
	case isF:
		return Float{math.Abs(f)}, nil
	case i == math.MinInt64:
		return nil, newErr("OverflowError", "integer overflow: abs(%d) does not fit in 64 bits", i)
	case i < 0:
		return Int{-i}, nil
	}
	return Int{i}, nil
}

func biRound(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	opts, err := nativeArgs("round", args, kw, 1, 2, "ndigits")
	if err != nil {
		return nil, err
	}
	if nd, ok := opts["ndigits"]; ok {
		args = append(args, nd)
	}
	i, f, isF, ok := number(args[0])
	if !ok {
		return nil, typeErr("type '%s' doesn't define __round__", args[0].TypeName())
	}
	if len(args) == 1 || args[1] == Value(None) {
		if !isF {
			return Int{i}, nil
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, newErr("ValueError", "cannot round %s to an integer", formatFloatRepr(f))
		}
		return Int{int64(math.RoundToEven(f))}, nil
	}
	nd, ok := asIndex(args[1])
	if !ok {
		return nil, typeErr("round() ndigits must be an integer, got '%s'", args[1].TypeName())
	}
	if !isF {
		if nd >= 0 {
			return Int{i}, nil
		}
		p := math.Pow(10, float64(-nd))
		return Int{int64(math.RoundToEven(float64(i)/p) * p)}, nil
	}
	if nd > 300 || math.IsNaN(f) || math.IsInf(f, 0) {
		return Float{f}, nil
	}
	if nd >= 0 {
		// Round the exact binary value, as Python does: round(2.675, 2)
		// is 2.67 because 2.675 is really 2.67499999...
		r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', int(nd), 64), 64)
		return Float{r}, nil
	}
	p := math.Pow(10, float64(-nd))
	return Float{math.RoundToEven(f/p) * p}, nil
}

func biDivmod(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("divmod", args, kw, 2, 2); err != nil {
		return nil, err
	}
	q, err := binary("//", args[0], args[1])
	if err != nil {
		return nil, err
	}
	r, err := binary("%", args[0], args[1])
	if err != nil {
		return nil, err
	}
	return Tuple{Elts: []Value{q, r}}, nil
}

func biPow(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("pow", args, kw, 2, 3); err != nil {
		return nil, err
	}
	if len(args) == 2 || args[2] == Value(None) {
		return binary("**", args[0], args[1])
	}
	b, okB := asIndex(args[0])
	e, okE := asIndex(args[1])
	mod, okM := asIndex(args[2])
	if !okB || !okE || !okM {
		return nil, typeErr("pow() with 3 arguments wants integers")
	}
	if mod == 0 {
		return nil, newErr("ValueError", "pow() 3rd argument cannot be 0")
	}
	if e < 0 {
		return nil, newErr("ValueError", "pow() with a modulus wants a non-negative exponent here")
	}
	r, _ := binary("%", Int{b}, Int{mod})
	base, result := r.(Int).V, int64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			p, ok := mulInt(result, base)
			if !ok {
				return nil, newErr("OverflowError", "integer overflow in pow()")
			}
			v, _ := binary("%", Int{p}, Int{mod})
			result = v.(Int).V
		}
		p, ok := mulInt(base, base)
		if !ok {
			return nil, newErr("OverflowError", "integer overflow in pow()")
		}
		v, _ := binary("%", Int{p}, Int{mod})
		base = v.(Int).V
	}
	v, _ := binary("%", Int{result}, Int{mod})
	return v, nil
}

func biOrd(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("ord", args, kw, 1, 1); err != nil {
		return nil, err
	}
	s, ok := args[0].(Str)
	if !ok || len([]rune(s.V)) != 1 {
		return nil, typeErr("ord() wants a string of one character, got %s", Repr(args[0]))
	}
	return Int{int64([]rune(s.V)[0])}, nil
}

func biChr(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("chr", args, kw, 1, 1); err != nil {
		return nil, err
	}
	i, ok := asIndex(args[0])
	if !ok || i < 0 || i > 0x10ffff {
		return nil, newErr("ValueError", "chr() wants an integer in 0..0x10ffff, got %s", Repr(args[0]))
	}
	return Str{string(rune(i))}, nil
}

func biRadix(name string, typ byte) builtinFn {
	return func(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
			return nil, err
		}
		i, ok := asIndex(args[0])
		if !ok {
			return nil, typeErr("%s() wants an integer, got '%s'", name, args[0].TypeName())
		}
		s, err := formatInt(i, fmtSpec{fill: ' ', prec: -1, alt: true, typ: typ})
		return Str{s}, err
	}
}

func biFormat(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("format", args, kw, 1, 2); err != nil {
		return nil, err
	}
	spec := ""
	if len(args) == 2 {
		s, ok := args[1].(Str)
		if !ok {
			return nil, typeErr("format() spec must be a str, got '%s'", args[1].TypeName())
		}
		spec = s.V
	}
	s, err := formatValue(args[0], spec)
	return Str{s}, err
}

func biCallable(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("callable", args, kw, 1, 1); err != nil {
		return nil, err
	}
	switch args[0].(type) {
	case *Func, *Builtin, *Method, *Class, *DSLFunc:
		return Bool{true}, nil
	}
	return Bool{false}, nil
}

func biType(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("type", args, kw, 1, 1); err != nil {
		return nil, err
	}
	name := args[0].TypeName()
	if pyTypes[name] || isExceptionClass(name) {
		return &Builtin{Path: name}, nil
	}
	return &Opaque{Desc: "type " + name}, nil
}

func biIsinstance(m *machine, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("isinstance", args, kw, 2, 2); err != nil {
		return nil, err
	}
	classes := []Value{args[1]}
	if t, ok := args[1].(Tuple); ok {
		classes = t.Elts
	}
	for _, c := range classes {
		switch c := c.(type) {
		case *Builtin:
			if m.mod.instanceOf(args[0], c.Path) {
				return Bool{true}, nil
			}
		case *Class:
			if e, ok := args[0].(*Exception); ok && m.mod.isSubclass(e.Type, c.Name) {
				return Bool{true}, nil
			}
		default:
			return nil, typeErr("isinstance() arg 2 must be a type or a tuple of types, got '%s'", c.TypeName())
		}
	}
	return Bool{false}, nil
}

// instanceOf reports whether v is an instance of the builtin class named
// path (bool counts as int, as in Python).
func (mod *Module) instanceOf(v Value, path string) bool {
	switch path {
	case "object":
		return true
	case "int":
		switch v.(type) {
		case Int, Bool:
			return true
		}
		return false
	case "frozenset":
		path = "set"
	}
	if e, ok := v.(*Exception); ok {
		return mod.isSubclass(e.Type, path)
	}
	return pyTypes[path] && v.TypeName() == path
}
