package meta

import (
	"math"
	"strings"

	"pldworkbench/engine/diag"
)

// This file models the libraries a program imports. Nothing is really
// imported: a module is a *Builtin named by its canonical path, attribute
// access extends the path, and the few leaves compile-time code needs as
// values (dtypes, enum members, pl.dynamic, math) are tables below.

// canonicalRoots renames the PyPTO modules to the short roots the rest of
// the engine uses, longest prefix first.
var canonicalRoots = []struct{ long, short string }{
	{"pypto.language.distributed", "pld"},
	{"pypto.language", "pl"},
	{"pl.distributed", "pld"},
}

// canonicalPath rewrites a dotted path to its canonical form:
// "pypto.language.distributed.NotifyOp" becomes "pld.NotifyOp".
func canonicalPath(path string) string {
	for _, r := range canonicalRoots {
		if path == r.long {
			return r.short
		}
		if strings.HasPrefix(path, r.long+".") {
			return r.short + path[len(r.long):]
		}
	}
	return path
}

// dtypeBits lists PyPTO's data types (pl.<NAME>) and their widths in bits.
var dtypeBits = map[string]int{
	"FP4": 4, "FP8E4M3FN": 8, "FP8E5M2": 8, "FP8E8M0": 8, "FP16": 16, "FP32": 32, "BF16": 16,
	"HF4": 4, "HF8": 8,
	"INT4": 4, "INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64,
	"UINT4": 4, "UINT8": 8, "UINT16": 16, "UINT32": 32, "UINT64": 64,
	"BOOL": 1, "INDEX": 64,
}

// enumMembers lists the members of the PyPTO enums compile-time code names,
// in value order (a member's value is its index). The pld enums are the
// serialized ABI values of pld-spec §4.1.
var enumMembers = map[string][]string{
	"pld.NotifyOp":    {"AtomicAdd", "Set"},
	"pld.WaitCmp":     {"Eq", "Ge"},
	"pld.AtomicType":  {"None_", "Add"},
	"pld.ReduceOp":    {"Sum", "Max", "Min", "Prod"},
	"pl.FunctionType": {"Opaque", "Orchestration", "InCore", "AIC", "AIV", "Group", "Spmd", "Inline", "Graph"},
	"pl.Level":        {"AIV", "AIC", "CORE_GROUP", "CHIP_DIE", "CHIP", "HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL"},
	"pl.Role":         {"Orchestrator", "SubWorker"},
}

// mathConsts are the math module's constants.
var mathConsts = map[string]float64{
	"math.pi": math.Pi, "math.e": math.E, "math.tau": 2 * math.Pi,
	"math.inf": math.Inf(1), "math.nan": math.NaN(),
}

// compileTimeLibrary lists the library symbols that may be called at
// compile time and what they do; every other pl/pld symbol is a DSL op that
// only exists inside a DSL body.
var compileTimeLibrary = map[string]func(args []Value, kw []kwarg) (Value, *Error){
	"pl.dynamic": plDynamic,
	"math.ceil":  mathRound("ceil", math.Ceil),
	"math.floor": mathRound("floor", math.Floor),
	"math.trunc": mathRound("trunc", math.Trunc),
	"math.sqrt":  mathFloat("sqrt", math.Sqrt),
	"math.log2":  mathFloat("log2", math.Log2),
	"math.log10": mathFloat("log10", math.Log10),
	"math.exp":   mathFloat("exp", math.Exp),
	"math.log":   mathFloat("log", math.Log),
	"math.gcd":   mathGCD,
	"math.isqrt": mathIsqrt,
	"math.prod":  mathProd,
}

// dslDecorators are the decorator paths that make a def a DSL function.
var dslDecorators = map[string]Kind{
	"pl.jit":        Orchestration,
	"pl.jit.incore": InCore,
	"pl.jit.host":   Host,
}

func isDSLDecoratorPath(path string) bool {
	_, ok := dslDecorators[path]
	return ok || path == "pl.function"
}

// libraryAttr is b.name for a library symbol.
func (m *machine) libraryAttr(b *Builtin, name string) (Value, *Error) {
	path := canonicalPath(b.Path + "." + name)
	if b.Path == "pl" || b.Path == "pl.DataType" {
		if bits, ok := dtypeBits[name]; ok {
			return DType{Name: name, Bits: bits}, nil
		}
	}
	if members, ok := enumMembers[b.Path]; ok {
		for i, mem := range members {
			if mem == name {
				return Enum{Type: b.Path, Member: name, V: i}, nil
			}
		}
		e := newErr("AttributeError", "%s has no member '%s'", b.Path, name)
		e.Hint = "its members are " + strings.Join(members, ", ")
		return nil, e
	}
	if f, ok := mathConsts[path]; ok {
		return Float{f}, nil
	}
	return &Builtin{Path: path}, nil
}

// callLibrary calls a library symbol at compile time.
func (m *machine) callLibrary(b *Builtin, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if f, ok := compileTimeLibrary[b.Path]; ok {
		return f(args, kw)
	}
	root, _, _ := strings.Cut(b.Path, ".")
	if root != "pl" && root != "pld" {
		return &Opaque{Desc: b.Path + "(...)"}, nil
	}
	if isDSLDecoratorPath(b.Path) || b.Path == "pl.program" {
		return nil, fatalErr(CodeDecorator, "write it on the line above the def or class: @"+b.Path,
			"%s only works as a decorator", b.Path)
	}
	return nil, fatalErr(CodeDSLOnly,
		"module code and factories run as plain Python at compile time; call "+b.Path+" inside a @pl.jit or @pl.function body",
		"%s can only be used inside a DSL function", b.Path)
}

// plDynamic is pl.dynamic(name): a dimension bound at run time.
func plDynamic(args []Value, kw []kwarg) (Value, *Error) {
	if _, err := nativeArgs("pl.dynamic", args, kw, 1, 1); err != nil {
		return nil, err
	}
	s, ok := args[0].(Str)
	if !ok || !isIdentifier(s.V) {
		e := fatalErr(CodeDynamic, "name the dimension like a Python variable: NR = pl.dynamic(\"NR\")",
			"pl.dynamic name must be an identifier, got %s", Repr(args[0]))
		return nil, e
	}
	return &DynVar{Name: s.V}, nil
}

func mathArg(name string, args []Value, kw []kwarg) (float64, Value, *Error) {
	if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
		return 0, nil, err
	}
	i, f, isF, ok := number(args[0])
	if !ok {
		return 0, nil, typeErr("math.%s() wants a number, got '%s'", name, args[0].TypeName())
	}
	if !isF {
		return float64(i), Int{i}, nil
	}
	return f, nil, nil
}

func mathRound(name string, f func(float64) float64) func([]Value, []kwarg) (Value, *Error) {
	return func(args []Value, kw []kwarg) (Value, *Error) {
		x, asInt, err := mathArg(name, args, kw)
		if err != nil {
			return nil, err
		}
		if asInt != nil {
			return asInt, nil
		}
		r := f(x)
		if math.IsNaN(r) || math.IsInf(r, 0) || r >= 1<<63 || r < -(1<<63) {
			return nil, newErr("ValueError", "math.%s(%s) has no 64-bit integer value", name, formatFloatRepr(x))
		}
		return Int{int64(r)}, nil
	}
}

func mathFloat(name string, f func(float64) float64) func([]Value, []kwarg) (Value, *Error) {
	return func(args []Value, kw []kwarg) (Value, *Error) {
		x, _, err := mathArg(name, args, kw)
		if err != nil {
			return nil, err
		}
		r := f(x)
		if math.IsNaN(r) && !math.IsNaN(x) {
			return nil, newErr("ValueError", "math domain error: math.%s(%s)", name, formatFloatRepr(x))
		}
		return Float{r}, nil
	}
}

func mathGCD(args []Value, kw []kwarg) (Value, *Error) {
	if _, err := nativeArgs("math.gcd", args, kw, 0, -1); err != nil {
		return nil, err
	}
	g := int64(0)
	for _, a := range args {
		x, ok := asIndex(a)
		if !ok {
			return nil, typeErr("math.gcd() wants integers, got '%s'", a.TypeName())
		}
		if x < 0 {
			x = -x
		}
		for x != 0 {
			g, x = x, g%x
		}
	}
	return Int{g}, nil
}

func mathIsqrt(args []Value, kw []kwarg) (Value, *Error) {
	if _, err := nativeArgs("math.isqrt", args, kw, 1, 1); err != nil {
		return nil, err
	}
	n, ok := asIndex(args[0])
	if !ok || n < 0 {
		return nil, newErr("ValueError", "math.isqrt() wants a non-negative integer, got %s", Repr(args[0]))
	}
	r := int64(math.Sqrt(float64(n)))
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	return Int{r}, nil
}

func mathProd(args []Value, kw []kwarg) (Value, *Error) {
	opts, err := nativeArgs("math.prod", args, kw, 1, 1, "start")
	if err != nil {
		return nil, err
	}
	var acc Value = Int{1}
	if s, ok := opts["start"]; ok {
		acc = s
	}
	elts, err := elements(args[0])
	if err != nil {
		return nil, err
	}
	for _, e := range elts {
		if acc, err = binary("*", acc, e); err != nil {
			return nil, err
		}
	}
	return acc, nil
}
