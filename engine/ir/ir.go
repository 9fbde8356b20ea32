// Package ir is the workbench's structured intermediate representation of a
// checked pl/pld program, its canonical text form and its verifier.
//
// The IR keeps the shape of the DSL rather than flattening it into a CFG:
// a Program holds Funcs at three levels (the host orchestrator, the
// per-device orchestration wrappers, the InCore kernels), each Func a Block
// of statements, and For and If nest Blocks the way the source nests its
// suites. That keeps the text form close to what a learner wrote, so the
// diff a lowering pass makes (a builtin collective replaced by notify, wait
// and remote_load loops) reads as a diff of code, and it is all the
// emulator needs: it interprets the tree directly on every rank.
//
// Values are *Var (named, mutable locals, because the DSL rebinds names
// freely: data = pl.store(local, [0, 0], data), and a name bound inside an if
// is visible after it; plus compiler temporaries %0, %1, ... for nested
// expressions), typed constants and lists of operands (offsets, shapes).
// Every DSL call becomes one statement: an Op named by its canonical path
// ("pl.load", "pld.system.notify", "pld.tensor.allreduce") with operand
// Args in signature order and compile-time keyword Attrs; a call of another
// DSL function becomes a Call. Scalar arithmetic is a Bin or Unary with the
// operator recorded as written: Mod and FloorDiv are Python's % and //, and
// the run-time rounding rule (truncation toward zero on the device) belongs
// to whoever executes them.
//
// Lowering passes (package lower) rewrite the builtin collectives into
// those primitives and mark every statement they emit with its Origin; the
// few operations no DSL call produces (pl.get_block_idx, pl.tensor.view)
// and the block grid of a kernel launch (Call.Blocks) are defined here, in
// lowered.go.
//
// The package imports nothing else of the project, so every later stage
// (lower, emu, npu) can depend on it alone.
package ir

import "fmt"

// Span locates a construct in the source: 1-based lines and byte columns,
// the end exclusive.
type Span struct {
	File            string
	Line, Col       int
	EndLine, EndCol int
}

func (s Span) String() string {
	if s.File == "" {
		return fmt.Sprintf("%d:%d", s.Line, s.Col)
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
}

// Level is where a function runs.
type Level int

// The three levels of a distributed PyPTO program.
const (
	Host          Level = iota // host CPU: allocates windows, dispatches ranks
	Orchestration              // AICPU of one device: forwards to its kernel
	InCore                     // AI cores of one device: compute and RMA
)

func (l Level) String() string {
	switch l {
	case Host:
		return "host"
	case Orchestration:
		return "orchestration"
	case InCore:
		return "incore"
	}
	return "level?"
}

// Dir is a parameter's direction (pl.Out, pl.InOut, or none).
type Dir int

// Parameter directions.
const (
	In Dir = iota
	Out
	InOut
)

func (d Dir) String() string {
	switch d {
	case Out:
		return "Out"
	case InOut:
		return "InOut"
	}
	return "In"
}

// Program is a checked program instantiated at Ranks ranks.
type Program struct {
	Name     string // the @pl.program class, or the host function's name
	Ranks    int
	Platform string // a row of engine/platform, e.g. "910B"
	// Funcs lists the host orchestrator first, then orchestration
	// functions, then InCore kernels, each group in first-call order.
	Funcs []*Func
	// Entry is the host orchestrator, or for a program with no host level
	// (an L2-only program, Ranks 1) the chip orchestration it runs.
	Entry *Func
}

// Func is one DSL function.
type Func struct {
	Name   string
	Level  Level
	Params []*Param
	Result Type // nil when the function returns nothing
	Body   *Block
	Span   Span
	// From is set on a function a lowering pass synthesized (the kernel
	// that runs a HOST builtin): the builtin call it implements.
	From *Origin
}

// Param is one declared parameter.
type Param struct {
	Var *Var
	Dir Dir
}

// Block is a sequence of statements.
type Block struct {
	Stmts []Stmt
}

// Add appends s to b.
func (b *Block) Add(s Stmt) { b.Stmts = append(b.Stmts, s) }

// Operand is an argument of a statement: a *Var, a *Const or a *ListOp.
// TypeOf gives its type.
type Operand interface {
	String() string
	isOperand()
}

// TypeOf returns the type of an operand.
func TypeOf(o Operand) Type {
	switch o := o.(type) {
	case *Var:
		return o.Type
	case *Const:
		return &Scalar{DType: o.DType}
	case *ListOp:
		return &List{Len: len(o.Elems)}
	case *SymRef:
		return &Scalar{DType: INDEX}
	}
	return &Invalid{}
}

// Var is a mutable local: a parameter, a DSL name, a loop variable or a
// compiler temporary (Temp, printed %N). Identity is the pointer; two Vars
// may share a Name only if the checker had to split one DSL name whose type
// changed, in which case the later one carries a suffix.
type Var struct {
	Name string
	Type Type
	Temp bool
}

func (v *Var) String() string { return v.Name }

// Const is a typed constant: an integer, float or bool scalar.
type Const struct {
	DType DType
	Int   int64   // integer and BOOL (0/1) constants
	Float float64 // float constants
}

// IntConst returns the integer constant v of type d.
func IntConst(v int64, d DType) *Const { return &Const{DType: d, Int: v} }

// FloatConst returns the float constant v of type d.
func FloatConst(v float64, d DType) *Const { return &Const{DType: d, Float: v} }

// BoolConst returns True or False.
func BoolConst(b bool) *Const {
	c := &Const{DType: BOOL}
	if b {
		c.Int = 1
	}
	return c
}

// SymRef is a symbolic dimension (pl.dynamic("NR")) used as an operand,
// as in the shape of a view pld.window(buf, [NR, 1], dtype=INT32). It is an
// INDEX value bound at dispatch, defined everywhere.
type SymRef struct {
	Name string
}

// ListOp is a list of operands: offsets, shapes.
type ListOp struct {
	Elems []Operand
}

func (*Var) isOperand()    {}
func (*Const) isOperand()  {}
func (*ListOp) isOperand() {}
func (*SymRef) isOperand() {}

// AttrValue is the value of a compile-time keyword attribute.
type AttrValue interface {
	String() string
	isAttr()
}

// Attr is one keyword attribute of an Op.
type Attr struct {
	Key   string
	Value AttrValue
}

// IntAttr is an integer attribute (root=0, core_num=1, chunk_rows=0).
type IntAttr int64

// StrAttr is a string attribute (mode="mesh").
type StrAttr string

// BoolAttr is a bool attribute (pipeline=False).
type BoolAttr bool

// EnumAttr is an enum member (op=pld.NotifyOp.AtomicAdd).
type EnumAttr struct {
	Type   string // "pld.NotifyOp"
	Member string // "AtomicAdd"
	V      int    // serialized value
}

// DTypeAttr is a data type attribute (dtype=pl.FP32).
type DTypeAttr DType

// NoneAttr is None given explicitly.
type NoneAttr struct{}

func (IntAttr) isAttr()   {}
func (StrAttr) isAttr()   {}
func (BoolAttr) isAttr()  {}
func (EnumAttr) isAttr()  {}
func (DTypeAttr) isAttr() {}
func (NoneAttr) isAttr()  {}

// Stmt is one statement. Every statement type embeds a Site, which gives it
// the methods below, so a new statement type needs no list of its own.
type Stmt interface {
	Pos() Span
	Origin() *Origin
	isStmt()
}

// Site is where a statement stands: its span in the source and, on
// statements a lowering pass emitted, the builtin call it came from (nil on
// those the checker emitted from the source itself).
type Site struct {
	Span Span
	From *Origin
}

// Pos returns the statement's span in the source.
func (s *Site) Pos() Span { return s.Span }

// Origin returns the builtin call the statement was lowered from, or nil.
func (s *Site) Origin() *Origin { return s.From }

func (*Site) isStmt() {}

// Op is one call of a pl/pld operation. Args are its operand parameters in
// signature order, with trailing omitted optional ones left out and
// interior omitted ones nil; Attrs its compile-time keyword parameters,
// defaults filled in, in signature order. Result is nil for side-effect-only
// operations.
type Op struct {
	Name   string
	Args   []Operand
	Attrs  []Attr
	Result *Var
	Site
}

// Attr returns the attribute called key, or nil.
func (o *Op) Attr(key string) AttrValue {
	for _, a := range o.Attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return nil
}

// BinOp is a scalar binary operator.
type BinOp int

// Scalar binary operators. Mod and FloorDiv are Python's % and //.
const (
	Add BinOp = iota
	Sub
	Mul
	Div
	FloorDiv
	Mod
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	And
	Or
	// Min and Max are pl.min and pl.max of two scalars.
	Min
	Max
)

var binOpNames = [...]string{
	Add: "add", Sub: "sub", Mul: "mul", Div: "truediv", FloorDiv: "floordiv", Mod: "mod",
	Eq: "eq", Ne: "ne", Lt: "lt", Le: "le", Gt: "gt", Ge: "ge", And: "and", Or: "or", Min: "min", Max: "max",
}

func (o BinOp) String() string {
	if o < 0 || int(o) >= len(binOpNames) {
		return "binop?"
	}
	return binOpNames[o]
}

// IsCompare reports whether o is a comparison (its result is BOOL).
func (o BinOp) IsCompare() bool { return o >= Eq && o <= Ge }

// Bin is Result = X op Y on scalars.
type Bin struct {
	Op     BinOp
	X, Y   Operand
	Result *Var
	Site
}

// UnOp is a scalar unary operator.
type UnOp int

// Scalar unary operators.
const (
	Neg UnOp = iota
	Not
)

func (o UnOp) String() string {
	if o == Not {
		return "not"
	}
	return "neg"
}

// Unary is Result = op X on a scalar.
type Unary struct {
	Op     UnOp
	X      Operand
	Result *Var
	Site
}

// Assign is Dst = Src (a DSL rebinding such as chunk_elems = 16, or
// left = right).
type Assign struct {
	Dst *Var
	Src Operand
	Site
}

// Index is Result = X[Index] at the host: a view of X without its leading
// dimension.
type Index struct {
	X      *Var
	Index  Operand
	Result *Var
	Site
}

// Bind records that a symbolic dimension of a callee's signature was bound
// to an extent at a call site (NR = 4).
type Bind struct {
	Sym string
	Dim Dim
}

// Call calls another DSL function. Device is set only on a host dispatch of
// an orchestration function (device=r). Binds lists, sorted by symbol, the
// symbolic dimensions of the callee's parameters this call binds.
//
// Blocks, on an orchestration function's call of an InCore kernel, launches
// the kernel as a grid of Blocks concurrent blocks on the device (0 and 1
// both mean the single block every DSL call runs as). Each block runs the
// whole kernel body with its own locals and tiles, sharing the rank's
// tensors and windows; pl.get_block_idx() (BlockIdxOp) tells it which block
// it is, and the call returns when every block has finished. Only lowering
// passes set it: the HOST mesh allreduce with core_num=C becomes a kernel
// launched with Blocks=C.
type Call struct {
	Callee *Func
	Args   []Operand
	Device Operand
	Blocks int
	Binds  []Bind
	Result *Var
	// Task binds the call's task id (`with pl.at(...) as tid:`) and Deps
	// are the task ids it must wait for (`deps=[tid]`); see task.go.
	Task *Var
	Deps []Operand
	Site
}

// For is for Var in range(Start, Stop, Step): Body.
type For struct {
	Var               *Var
	Start, Stop, Step Operand
	Body              *Block
	Site
}

// If is if Cond: Then else: Else. Else may be nil.
type If struct {
	Cond       Operand
	Then, Else *Block
	Site
}

// While is while Cond: Body. Cond is read before every iteration; it is a
// constant (while True:) or a variable the body rebinds. A condition the
// checker computes from an expression (while i < n:) is not a Cond: the
// loop is while True: whose body starts by computing it and breaking out
// when it is false, so the statements that compute it run, and are
// scheduled, on every iteration as any others do.
type While struct {
	Cond Operand
	Body *Block
	Site
}

// Break leaves the innermost enclosing For or While.
type Break struct {
	Site
}

// Continue ends the current iteration of the innermost enclosing For or
// While: a For advances its variable, a While reads its condition again.
type Continue struct {
	Site
}

// Return returns Value (nil for a bare return).
type Return struct {
	Value Operand
	Site
}

// Func returns the function called name, or nil.
func (p *Program) Func(name string) *Func {
	for _, f := range p.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}
