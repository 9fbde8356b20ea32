package syntax

import "pldworkbench/engine/diag"

// Pos and Span are the diagnostic package's, so a node's span can be handed
// to a diagnostic without conversion.
type (
	Pos  = diag.Pos
	Span = diag.Span
)

// Node is any syntax tree node.
type Node interface {
	Span() Span
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// ExprNode and StmtNode hold a node's span. Every expression type embeds an
// ExprNode and every statement type a StmtNode, which give it the methods
// that make it an Expr or a Stmt, so a new node type needs no list of its
// own.
type (
	ExprNode struct{ Pos Span }
	StmtNode struct{ Pos Span }
)

// Span returns the expression's span.
func (n *ExprNode) Span() Span { return n.Pos }

// Span returns the statement's span.
func (n *StmtNode) Span() Span { return n.Pos }

func (*ExprNode) exprNode() {}
func (*StmtNode) stmtNode() {}

// File is a parsed module.
type File struct {
	Name  string // file name used in spans
	Src   []byte
	Doc   *StringLit // module docstring, if any (also present as the first ExprStmt)
	Body  []Stmt
	Whole Span
}

// Span returns the whole file's span.
func (f *File) Span() Span { return f.Whole }

// ---- Expressions ----

// Ident is a name: x, pl, self.
type Ident struct {
	Name string
	ExprNode
}

// NumberKind says how a NumberLit was written.
type NumberKind int

const (
	IntNumber NumberKind = iota
	FloatNumber
)

// NumberLit is an integer or float literal. Int holds the value of an integer
// literal (decimal, 0x, 0o, 0b, underscores allowed); Float the value of a
// float literal (1.0, 1e-5, .5).
type NumberLit struct {
	Kind  NumberKind
	Raw   string
	Int   int64
	Float float64
	ExprNode
}

// StringLit is a (possibly implicitly concatenated) plain string literal,
// with escapes decoded into Value.
type StringLit struct {
	Value string
	Raw   string
	ExprNode
}

// FStringPart is one piece of an f-string: literal text, or an expression
// (with its optional !conversion and :format spec kept as text).
type FStringPart struct {
	Text   string // literal text when Expr == nil
	Expr   Expr
	Conv   string // "r", "s", "a" or ""
	Format string // format spec text after ':' (nested {} kept verbatim)
}

// FStringLit is an f-string literal f"...{expr}...".
type FStringLit struct {
	Parts []FStringPart
	ExprNode
}

// ConstKind names the keyword constants.
type ConstKind int

const (
	ConstTrue ConstKind = iota
	ConstFalse
	ConstNone
	ConstEllipsis
)

// ConstLit is True, False, None or ... .
type ConstLit struct {
	Kind ConstKind
	ExprNode
}

// ListLit is [a, b, c].
type ListLit struct {
	Elts []Expr
	ExprNode
}

// TupleLit is (a, b) or a bare a, b. Paren reports whether parentheses were
// written.
type TupleLit struct {
	Elts  []Expr
	Paren bool
	ExprNode
}

// DictLit is {k: v, ...}. A {**m} item has a nil key and m as its value.
type DictLit struct {
	Keys   []Expr
	Values []Expr
	ExprNode
}

// SetLit is {a, b}.
type SetLit struct {
	Elts []Expr
	ExprNode
}

// Comprehension is one `for Target in Iter [if Cond]...` clause.
type Comprehension struct {
	Target Expr
	Iter   Expr
	Ifs    []Expr
}

// CompKind says which brackets a comprehension used.
type CompKind int

const (
	ListComp CompKind = iota
	GenComp
	SetComp
	DictComp
)

// CompExpr is a list/set/dict comprehension or a generator expression.
// For DictComp, Key and Elt are the key and value.
type CompExpr struct {
	Kind CompKind
	Key  Expr // DictComp only
	Elt  Expr
	Fors []Comprehension
	ExprNode
}

// ParenExpr is (x): kept so spans and printing are faithful.
type ParenExpr struct {
	X Expr
	ExprNode
}

// AttrExpr is X.Name.
type AttrExpr struct {
	X       Expr
	Name    string
	NamePos Span
	ExprNode
}

// IndexExpr is X[Index]. A subscript with several comma-separated items has
// a *TupleLit index (Paren false), as in Python's AST.
type IndexExpr struct {
	X     Expr
	Index Expr
	ExprNode
}

// SliceExpr is lo:hi[:step] inside a subscript; any part may be nil.
type SliceExpr struct {
	Lo, Hi, Step Expr
	ExprNode
}

// Arg is one call argument: positional (Name == ""), keyword (Name set),
// *args (Star) or **kwargs (DoubleStar).
type Arg struct {
	Name       string
	NamePos    Span
	Value      Expr
	Star       bool
	DoubleStar bool
}

// CallExpr is Fn(args...).
type CallExpr struct {
	Fn     Expr
	Args   []Arg
	Lparen Span
	Rparen Span
	ExprNode
}

// UnaryExpr is -X, +X, ~X or not X. Op is "-", "+", "~" or "not".
type UnaryExpr struct {
	Op    string
	OpPos Span
	X     Expr
	ExprNode
}

// BinaryExpr is X Op Y for arithmetic and bitwise operators:
// "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>".
type BinaryExpr struct {
	Op    string
	OpPos Span
	X, Y  Expr
	ExprNode
}

// BoolExpr is X and Y / X or Y. Op is "and" or "or".
type BoolExpr struct {
	Op    string
	OpPos Span
	X, Y  Expr
	ExprNode
}

// CompareExpr is a (possibly chained) comparison X op0 Y0 op1 Y1 ...;
// Ops are "<", ">", "==", "!=", "<=", ">=", "in", "not in", "is", "is not".
type CompareExpr struct {
	X     Expr
	Ops   []string
	OpPos []Span
	Ys    []Expr
	ExprNode
}

// CondExpr is Then if Cond else Else.
type CondExpr struct {
	Then, Cond, Else Expr
	ExprNode
}

// LambdaExpr is lambda params: Body (parsed so harness code loads; never run
// at DSL level).
type LambdaExpr struct {
	Params []*Param
	Body   Expr
	ExprNode
}

// StarExpr is *X in an assignment target or a list display.
type StarExpr struct {
	X Expr
	ExprNode
}

// ---- Statements ----

// ImportName is one `a.b.c [as x]` of an import statement.
type ImportName struct {
	Path []string // dotted path ("pypto", "language")
	As   string   // alias or ""
	Pos  Span
}

// ImportStmt is `import a.b as x, c`.
type ImportStmt struct {
	Names []ImportName
	StmtNode
}

// FromImportStmt is `from [.]a.b import x [as y], ...` or `from a import *`.
type FromImportStmt struct {
	Level  int          // number of leading dots
	Module []string     // dotted path, may be empty for `from . import x`
	Names  []ImportName // each Path has one element
	Star   bool
	StmtNode
}

// Param is one function parameter. Kind distinguishes ordinary parameters,
// *args, keyword-only parameters (after a bare * or *args) and **kwargs. A
// bare `*` separator is not a Param: it sets KwOnly on the ones after it.
type Param struct {
	Name       string
	NamePos    Span
	Annotation Expr // may be nil
	Default    Expr // may be nil
	Star       bool // *args
	DoubleStar bool // **kwargs
	KwOnly     bool
	Pos        Span
}

// Decorator is @Expr above a def or class.
type Decorator struct {
	X   Expr
	Pos Span
}

// FuncDef is `def Name(params) -> Result: Body`.
type FuncDef struct {
	Decorators []*Decorator
	Name       string
	NamePos    Span
	Params     []*Param
	Result     Expr       // return annotation, may be nil
	Doc        *StringLit // docstring, if the body starts with one
	Body       []Stmt
	StmtNode   // from `def` (or the first decorator) to the end of the body
}

// ClassDef is `class Name(bases): Body`.
type ClassDef struct {
	Decorators []*Decorator
	Name       string
	NamePos    Span
	Bases      []Arg
	Doc        *StringLit
	Body       []Stmt
	StmtNode
}

// AssignStmt is Targets[0] = Targets[1] = ... = Value. A target may be a
// *TupleLit/*ListLit for unpacking. Annotated assignment `x: T = v` sets
// Annotation (with one target; Value may be nil for `x: T`).
type AssignStmt struct {
	Targets    []Expr
	Annotation Expr
	Value      Expr
	StmtNode
}

// AugAssignStmt is Target Op= Value; Op is the binary operator ("+", "//", ...).
type AugAssignStmt struct {
	Target Expr
	Op     string
	OpPos  Span
	Value  Expr
	StmtNode
}

// ExprStmt is an expression used as a statement (calls, docstrings).
type ExprStmt struct {
	X Expr
	StmtNode
}

// IfStmt is if/elif/else; an elif chain is nested IfStmts in Else (Elif
// true on the nested one).
type IfStmt struct {
	Cond Expr
	Body []Stmt
	Else []Stmt // nil when absent
	Elif bool   // this IfStmt was written as `elif`
	StmtNode
}

// ForStmt is for Target in Iter: Body [else: Else].
type ForStmt struct {
	Target Expr
	Iter   Expr
	Body   []Stmt
	Else   []Stmt
	StmtNode
}

// WhileStmt is while Cond: Body [else: Else].
type WhileStmt struct {
	Cond Expr
	Body []Stmt
	Else []Stmt
	StmtNode
}

// WithItem is one `expr [as target]` of a with statement.
type WithItem struct {
	X      Expr
	Target Expr
}

// WithStmt is with items: Body (parsed for harness code only).
type WithStmt struct {
	Items []WithItem
	Body  []Stmt
	StmtNode
}

// ExceptClause is except [Type [as Name]]: Body.
type ExceptClause struct {
	Type Expr
	Name string
	Body []Stmt
	Pos  Span
}

// TryStmt is try/except/else/finally (parsed for harness code only).
type TryStmt struct {
	Body    []Stmt
	Excepts []*ExceptClause
	Else    []Stmt
	Finally []Stmt
	StmtNode
}

// ReturnStmt is return [Value].
type ReturnStmt struct {
	Value Expr // may be nil
	StmtNode
}

// YieldStmt is yield [Value] or yield from Value, the statement form: a
// generator's body, parsed so module glue reads, never run by the DSL.
type YieldStmt struct {
	Value Expr // may be nil
	From  bool
	StmtNode
}

// RaiseStmt is raise [X [from Cause]].
type RaiseStmt struct {
	X     Expr
	Cause Expr
	StmtNode
}

// AssertStmt is assert Cond [, Msg].
type AssertStmt struct {
	Cond Expr
	Msg  Expr
	StmtNode
}

// BranchStmt is pass, break or continue; Tok is the keyword.
type BranchStmt struct {
	Tok string
	StmtNode
}

// GlobalStmt is global/nonlocal names; Tok is the keyword.
type GlobalStmt struct {
	Tok   string
	Names []string
	StmtNode
}

// DelStmt is del targets.
type DelStmt struct {
	Targets []Expr
	StmtNode
}

// Param, Decorator and ExceptClause are nodes too, so Walk visits them and
// checks can point at them.
func (p *Param) Span() Span        { return p.Pos }
func (d *Decorator) Span() Span    { return d.Pos }
func (c *ExceptClause) Span() Span { return c.Pos }
