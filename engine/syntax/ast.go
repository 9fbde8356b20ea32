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
	Pos  Span
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
	Pos   Span
}

// StringLit is a (possibly implicitly concatenated) plain string literal,
// with escapes decoded into Value.
type StringLit struct {
	Value string
	Raw   string
	Pos   Span
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
	Pos   Span
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
	Pos  Span
}

// ListLit is [a, b, c].
type ListLit struct {
	Elts []Expr
	Pos  Span
}

// TupleLit is (a, b) or a bare a, b. Paren reports whether parentheses were
// written.
type TupleLit struct {
	Elts  []Expr
	Paren bool
	Pos   Span
}

// DictLit is {k: v, ...}. A {**m} item has a nil key and m as its value.
type DictLit struct {
	Keys   []Expr
	Values []Expr
	Pos    Span
}

// SetLit is {a, b}.
type SetLit struct {
	Elts []Expr
	Pos  Span
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
	Pos  Span
}

// ParenExpr is (x): kept so spans and printing are faithful.
type ParenExpr struct {
	X   Expr
	Pos Span
}

// AttrExpr is X.Name.
type AttrExpr struct {
	X       Expr
	Name    string
	NamePos Span
	Pos     Span
}

// IndexExpr is X[Index]. A subscript with several comma-separated items has
// a *TupleLit index (Paren false), as in Python's AST.
type IndexExpr struct {
	X     Expr
	Index Expr
	Pos   Span
}

// SliceExpr is lo:hi[:step] inside a subscript; any part may be nil.
type SliceExpr struct {
	Lo, Hi, Step Expr
	Pos          Span
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
	Pos    Span
}

// UnaryExpr is -X, +X, ~X or not X. Op is "-", "+", "~" or "not".
type UnaryExpr struct {
	Op    string
	OpPos Span
	X     Expr
	Pos   Span
}

// BinaryExpr is X Op Y for arithmetic and bitwise operators:
// "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>".
type BinaryExpr struct {
	Op    string
	OpPos Span
	X, Y  Expr
	Pos   Span
}

// BoolExpr is X and Y / X or Y. Op is "and" or "or".
type BoolExpr struct {
	Op    string
	OpPos Span
	X, Y  Expr
	Pos   Span
}

// CompareExpr is a (possibly chained) comparison X op0 Y0 op1 Y1 ...;
// Ops are "<", ">", "==", "!=", "<=", ">=", "in", "not in", "is", "is not".
type CompareExpr struct {
	X     Expr
	Ops   []string
	OpPos []Span
	Ys    []Expr
	Pos   Span
}

// CondExpr is Then if Cond else Else.
type CondExpr struct {
	Then, Cond, Else Expr
	Pos              Span
}

// LambdaExpr is lambda params: Body (parsed so harness code loads; never run
// at DSL level).
type LambdaExpr struct {
	Params []*Param
	Body   Expr
	Pos    Span
}

// StarExpr is *X in an assignment target or a list display.
type StarExpr struct {
	X   Expr
	Pos Span
}

func (x *Ident) Span() Span       { return x.Pos }
func (x *NumberLit) Span() Span   { return x.Pos }
func (x *StringLit) Span() Span   { return x.Pos }
func (x *FStringLit) Span() Span  { return x.Pos }
func (x *ConstLit) Span() Span    { return x.Pos }
func (x *ListLit) Span() Span     { return x.Pos }
func (x *TupleLit) Span() Span    { return x.Pos }
func (x *DictLit) Span() Span     { return x.Pos }
func (x *SetLit) Span() Span      { return x.Pos }
func (x *CompExpr) Span() Span    { return x.Pos }
func (x *ParenExpr) Span() Span   { return x.Pos }
func (x *AttrExpr) Span() Span    { return x.Pos }
func (x *IndexExpr) Span() Span   { return x.Pos }
func (x *SliceExpr) Span() Span   { return x.Pos }
func (x *CallExpr) Span() Span    { return x.Pos }
func (x *UnaryExpr) Span() Span   { return x.Pos }
func (x *BinaryExpr) Span() Span  { return x.Pos }
func (x *BoolExpr) Span() Span    { return x.Pos }
func (x *CompareExpr) Span() Span { return x.Pos }
func (x *CondExpr) Span() Span    { return x.Pos }
func (x *LambdaExpr) Span() Span  { return x.Pos }
func (x *StarExpr) Span() Span    { return x.Pos }

func (*Ident) exprNode()       {}
func (*NumberLit) exprNode()   {}
func (*StringLit) exprNode()   {}
func (*FStringLit) exprNode()  {}
func (*ConstLit) exprNode()    {}
func (*ListLit) exprNode()     {}
func (*TupleLit) exprNode()    {}
func (*DictLit) exprNode()     {}
func (*SetLit) exprNode()      {}
func (*CompExpr) exprNode()    {}
func (*ParenExpr) exprNode()   {}
func (*AttrExpr) exprNode()    {}
func (*IndexExpr) exprNode()   {}
func (*SliceExpr) exprNode()   {}
func (*CallExpr) exprNode()    {}
func (*UnaryExpr) exprNode()   {}
func (*BinaryExpr) exprNode()  {}
func (*BoolExpr) exprNode()    {}
func (*CompareExpr) exprNode() {}
func (*CondExpr) exprNode()    {}
func (*LambdaExpr) exprNode()  {}
func (*StarExpr) exprNode()    {}

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
	Pos   Span
}

// FromImportStmt is `from [.]a.b import x [as y], ...` or `from a import *`.
type FromImportStmt struct {
	Level  int          // number of leading dots
	Module []string     // dotted path, may be empty for `from . import x`
	Names  []ImportName // each Path has one element
	Star   bool
	Pos    Span
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
	Pos        Span // from `def` (or the first decorator) to the end of the body
}

// ClassDef is `class Name(bases): Body`.
type ClassDef struct {
	Decorators []*Decorator
	Name       string
	NamePos    Span
	Bases      []Arg
	Doc        *StringLit
	Body       []Stmt
	Pos        Span
}

// AssignStmt is Targets[0] = Targets[1] = ... = Value. A target may be a
// *TupleLit/*ListLit for unpacking. Annotated assignment `x: T = v` sets
// Annotation (with one target; Value may be nil for `x: T`).
type AssignStmt struct {
	Targets    []Expr
	Annotation Expr
	Value      Expr
	Pos        Span
}

// AugAssignStmt is Target Op= Value; Op is the binary operator ("+", "//", ...).
type AugAssignStmt struct {
	Target Expr
	Op     string
	OpPos  Span
	Value  Expr
	Pos    Span
}

// ExprStmt is an expression used as a statement (calls, docstrings).
type ExprStmt struct {
	X   Expr
	Pos Span
}

// IfStmt is if/elif/else; an elif chain is nested IfStmts in Else (Elif
// true on the nested one).
type IfStmt struct {
	Cond Expr
	Body []Stmt
	Else []Stmt // nil when absent
	Elif bool   // this IfStmt was written as `elif`
	Pos  Span
}

// ForStmt is for Target in Iter: Body [else: Else].
type ForStmt struct {
	Target Expr
	Iter   Expr
	Body   []Stmt
	Else   []Stmt
	Pos    Span
}

// WhileStmt is while Cond: Body [else: Else].
type WhileStmt struct {
	Cond Expr
	Body []Stmt
	Else []Stmt
	Pos  Span
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
	Pos   Span
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
	Pos     Span
}

// ReturnStmt is return [Value].
type ReturnStmt struct {
	Value Expr // may be nil
	Pos   Span
}

// YieldStmt is yield [Value] or yield from Value, the statement form: a
// generator's body, parsed so module glue reads, never run by the DSL.
type YieldStmt struct {
	Value Expr // may be nil
	From  bool
	Pos   Span
}

// RaiseStmt is raise [X [from Cause]].
type RaiseStmt struct {
	X     Expr
	Cause Expr
	Pos   Span
}

// AssertStmt is assert Cond [, Msg].
type AssertStmt struct {
	Cond Expr
	Msg  Expr
	Pos  Span
}

// BranchStmt is pass, break or continue; Tok is the keyword.
type BranchStmt struct {
	Tok string
	Pos Span
}

// GlobalStmt is global/nonlocal names; Tok is the keyword.
type GlobalStmt struct {
	Tok   string
	Names []string
	Pos   Span
}

// DelStmt is del targets.
type DelStmt struct {
	Targets []Expr
	Pos     Span
}

// Param, Decorator and ExceptClause are nodes too, so Walk visits them and
// checks can point at them.
func (p *Param) Span() Span        { return p.Pos }
func (d *Decorator) Span() Span    { return d.Pos }
func (c *ExceptClause) Span() Span { return c.Pos }

func (s *ImportStmt) Span() Span     { return s.Pos }
func (s *FromImportStmt) Span() Span { return s.Pos }
func (s *FuncDef) Span() Span        { return s.Pos }
func (s *ClassDef) Span() Span       { return s.Pos }
func (s *AssignStmt) Span() Span     { return s.Pos }
func (s *AugAssignStmt) Span() Span  { return s.Pos }
func (s *ExprStmt) Span() Span       { return s.Pos }
func (s *IfStmt) Span() Span         { return s.Pos }
func (s *ForStmt) Span() Span        { return s.Pos }
func (s *WhileStmt) Span() Span      { return s.Pos }
func (s *WithStmt) Span() Span       { return s.Pos }
func (s *TryStmt) Span() Span        { return s.Pos }
func (s *ReturnStmt) Span() Span     { return s.Pos }
func (s *RaiseStmt) Span() Span      { return s.Pos }
func (s *YieldStmt) Span() Span      { return s.Pos }
func (s *AssertStmt) Span() Span     { return s.Pos }
func (s *BranchStmt) Span() Span     { return s.Pos }
func (s *GlobalStmt) Span() Span     { return s.Pos }
func (s *DelStmt) Span() Span        { return s.Pos }

func (*ImportStmt) stmtNode()     {}
func (*FromImportStmt) stmtNode() {}
func (*FuncDef) stmtNode()        {}
func (*ClassDef) stmtNode()       {}
func (*AssignStmt) stmtNode()     {}
func (*AugAssignStmt) stmtNode()  {}
func (*ExprStmt) stmtNode()       {}
func (*IfStmt) stmtNode()         {}
func (*ForStmt) stmtNode()        {}
func (*WhileStmt) stmtNode()      {}
func (*WithStmt) stmtNode()       {}
func (*TryStmt) stmtNode()        {}
func (*ReturnStmt) stmtNode()     {}
func (*RaiseStmt) stmtNode()      {}
func (*AssertStmt) stmtNode()     {}
func (*BranchStmt) stmtNode()     {}
func (*GlobalStmt) stmtNode()     {}
func (*DelStmt) stmtNode()        {}
func (*YieldStmt) stmtNode()      {}
