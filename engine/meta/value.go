package meta

import (
	"pldworkbench/engine/syntax"
)

// Value is a compile-time Python value.
//
// The concrete kinds are the types below; a type switch over them is how the
// checker reads a value. Values other than *List and *Dict are immutable.
type Value interface {
	// TypeName is Python's name for the value's type ("int", "str",
	// "function", ...), used in error messages.
	TypeName() string
	// String renders the value the way Python's str() would (for f-strings
	// and messages), or a readable form for DSL objects.
	String() string
}

// Int is a Python int. Values outside int64 are a compile error ("integer
// overflow"): no PyPTO program needs them.
type Int struct{ V int64 }

// Float is a Python float.
type Float struct{ V float64 }

// Str is a Python str.
type Str struct{ V string }

// Bool is a Python bool (a subclass of int in Python: True + 1 == 2).
type Bool struct{ V bool }

// NoneType is Python's None; use the None variable.
type NoneType struct{}

// None is the one None value.
var None = NoneType{}

// Tuple is an immutable sequence.
type Tuple struct{ Elts []Value }

// List is a mutable sequence; it is shared by reference like Python's.
type List struct{ Elts []Value }

// Dict is an insertion-ordered mapping with hashable keys (Int, Str, Bool,
// Float, None, Tuple of those).
type Dict struct {
	Keys   []Value
	Values []Value
}

// Func is a plain Python function (a def without a DSL decorator, or a
// lambda): factories such as build_ring_allreduce(nr) are Funcs, and calling
// one at compile time runs its body with Python semantics.
type Func struct {
	Def    *syntax.FuncDef    // nil for a lambda
	Lambda *syntax.LambdaExpr // set for a lambda
	Env    *Env               // the scope the def was evaluated in (its closure)
	// Defaults holds the evaluated default of each parameter of Def (nil
	// where the parameter has none), evaluated when the def ran.
	Defaults []Value
	// SubWorker is set on a @pl.function(level=pl.Level.HOST,
	// role=pl.Role.SubWorker) callback: plain Python the host runs
	// between dispatches, kept as a function and never evaluated.
	SubWorker bool
}

// Kind is the level a DSL function runs at.
type Kind int

const (
	InCore        Kind = iota // @pl.jit.incore, @pl.function(type=pl.FunctionType.InCore)
	Orchestration             // @pl.jit, @pl.function(type=pl.FunctionType.Orchestration)
	Host                      // @pl.jit.host, @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
)

func (k Kind) String() string {
	switch k {
	case InCore:
		return "InCore kernel"
	case Orchestration:
		return "orchestration function"
	case Host:
		return "host orchestrator"
	}
	return "?"
}

// DSLFunc is a function carrying a DSL decorator. Its body is never run by
// the evaluator: the checker reads it, resolving free names through Env.
type DSLFunc struct {
	Def     *syntax.FuncDef
	Kind    Kind
	Env     *Env     // the scope the def was evaluated in: module globals, or a factory call's locals
	Program *Program // the @pl.program class it is a method of; nil for the @pl.jit forms
	// Decorator is the decorator that made it a DSL function (for spans).
	Decorator *syntax.Decorator
}

// Program is a @pl.program class. Each instantiation of a factory creates a
// new Program whose methods close over that call's locals.
type Program struct {
	Name    string
	Def     *syntax.ClassDef
	Env     *Env       // the scope the class statement ran in
	Methods []*DSLFunc // DSL methods in source order
	// Attrs holds every other class attribute (plain methods as *Func,
	// constants), by name.
	Attrs map[string]Value
}

// Method returns the DSL method called name, or nil.
func (p *Program) Method(name string) *DSLFunc {
	for _, m := range p.Methods {
		if m.Def.Name == name {
			return m
		}
	}
	return nil
}

// Class is a plain (non-@pl.program) class: parsed and kept, not
// instantiable at compile time.
type Class struct {
	Name  string
	Def   *syntax.ClassDef
	Attrs map[string]Value
}

// Builtin is a symbol of a library namespace, by its canonical dotted path:
// "pl", "pl.Tensor", "pl.FunctionType.InCore", "pld.tensor.allreduce",
// "torch.randn", "argparse.ArgumentParser", or a Python builtin such as
// "range", "len", "ValueError". The roots are canonical whatever alias the
// program imported them under: pypto.language is "pl" and
// pypto.language.distributed is "pld"; other modules keep their dotted name.
type Builtin struct{ Path string }

// Generic is a library symbol subscripted at compile time, as in type
// annotations: pl.Tensor[[nr, 1, SIZE], pl.FP32] is
// Generic{Base: pl.Tensor, Args: [List[Int nr, Int 1, Int 64], DType FP32]}
// and pl.Out[...] wraps another Generic.
type Generic struct {
	Base *Builtin
	Args []Value
	Expr *syntax.IndexExpr // where it was written
}

// DType is a PyPTO data type: pl.FP32, pl.INT32, ...
type DType struct {
	Name string // "FP32", "INT32", "INDEX", ...
	Bits int
}

// Bytes is get_byte(): ceil(bits/8).
func (d DType) Bytes() int { return (d.Bits + 7) / 8 }

// Enum is a member of a PyPTO enum: pld.NotifyOp.AtomicAdd is
// Enum{Type: "pld.NotifyOp", Member: "AtomicAdd", V: 0}.
type Enum struct {
	Type   string
	Member string
	V      int
}

// DynVar is pl.dynamic("NR"): a dimension bound at run time.
type DynVar struct{ Name string }

// Opaque is a value the evaluator does not model (a torch tensor, an argparse
// parser, the result of calling an unknown library function). Using it where
// a DSL needs a concrete value is a compile error that quotes Desc.
type Opaque struct{ Desc string }

// Exception is a raised exception's value (ValueError("msg")): Type is the
// class name, Msg the str() of its first argument.
type Exception struct {
	Type string
	Msg  string
}
