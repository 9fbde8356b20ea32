package ir

import (
	"math"
	"strconv"
	"strings"
)

// The canonical text form. It reads like the DSL with every value's type
// written where it is bound:
//
//	# program MeshAllreduce, 4 ranks, platform 910B
//
//	host mesh_allreduce(x: Tensor[[4, 1, 64], FP32], y: Out[Tensor[[4, 1, 64], FP32]]) -> Tensor[[4, 1, 64], FP32]:
//	  data_buf: Ptr[256 B] = pld.alloc_window_buffer([1, 64], dtype=FP32)
//	  %0: INT64 = pld.world_size()
//	  for r: INDEX in range(0, %0, 1):
//	    data: DistributedTensor[[1, 64], FP32] = pld.window(data_buf, [1, 64], dtype=FP32)
//	    %1: Tensor[[1, 64], FP32] = x[r]
//	    per_rank(%1, data, device=r)
//	  return y
//
// One statement per line, two spaces per nesting level, functions in
// Program.Funcs order separated by a blank line. After lowering, every
// statement a pass emitted ends in the builtin it came from:
//
//	  for peer: INDEX in range(0, nranks, 1):                               # from pld.tensor.allreduce (line 42)
//
// and a kernel launched as a grid of blocks shows it in the call:
// __host_allreduce_mesh_42(data, sig, blocks=4). Nothing in it depends on
// map order or pointers, so two prints of equal programs are equal text and
// a diff of two prints is a diff of the programs.

// PrintOptions adjusts the text form.
type PrintOptions struct {
	// Lines appends "# line N" (the statement's source line) to every
	// statement, padded to column LineColumn so that edits to a statement
	// rarely move its comment.
	Lines bool
}

// LineColumn is where Lines comments start (or one space after a longer
// statement).
const LineColumn = 72

// Print returns the canonical text of p.
func Print(p *Program) string { return PrintOptions{}.Print(p) }

// Print returns the text of p under o.
func (o PrintOptions) Print(p *Program) string {
	pr := &printer{opts: o}
	pr.program(p)
	return pr.b.String()
}

// String returns the canonical text of f alone.
func (f *Func) String() string { return PrintOptions{}.Func(f) }

// Func returns the text of f alone under o.
func (o PrintOptions) Func(f *Func) string {
	pr := &printer{opts: o}
	pr.fn(f)
	return pr.b.String()
}

type printer struct {
	opts PrintOptions
	b    strings.Builder
}

func (pr *printer) program(p *Program) {
	ranks := strconv.Itoa(p.Ranks) + " ranks"
	if p.Ranks == 1 {
		ranks = "1 rank"
	}
	pr.b.WriteString("# program " + p.Name + ", " + ranks + ", platform " + p.Platform + "\n")
	for _, f := range p.Funcs {
		pr.b.WriteByte('\n')
		pr.fn(f)
	}
}

func (pr *printer) fn(f *Func) {
	var b strings.Builder
	b.WriteString(f.Level.String() + " " + f.Name + "(")
	for i, p := range f.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Var.Name + ": ")
		if p.Dir != In {
			b.WriteString(p.Dir.String() + "[" + typeString(p.Var.Type) + "]")
		} else {
			b.WriteString(typeString(p.Var.Type))
		}
	}
	b.WriteString(")")
	if f.Result != nil {
		b.WriteString(" -> " + f.Result.String())
	}
	b.WriteString(":")
	pr.line(0, b.String(), f.Span, f.From)
	pr.block(1, f.Body)
}

func (pr *printer) block(depth int, b *Block) {
	if b == nil || len(b.Stmts) == 0 {
		pr.line(depth, "pass", Span{}, nil)
		return
	}
	for _, s := range b.Stmts {
		pr.stmt(depth, s)
	}
}

// line writes one line of text at depth. A statement a lowering pass
// emitted ends in the builtin it came from ("# from pld.tensor.allreduce
// (line 42)"), whatever the options; with Lines, any other statement ends in
// its source line.
func (pr *printer) line(depth int, text string, sp Span, from *Origin) {
	start := pr.b.Len()
	pr.b.WriteString(strings.Repeat("  ", depth))
	pr.b.WriteString(text)
	comment := ""
	switch {
	case from != nil:
		comment = "# " + from.String()
	case pr.opts.Lines && sp.Line > 0:
		comment = "# line " + strconv.Itoa(sp.Line)
	}
	if comment != "" {
		if n := pr.b.Len() - start; n < LineColumn {
			pr.b.WriteString(strings.Repeat(" ", LineColumn-n))
		} else {
			pr.b.WriteByte(' ')
		}
		pr.b.WriteString(comment)
	}
	pr.b.WriteByte('\n')
}

func (pr *printer) stmt(depth int, s Stmt) {
	switch s := s.(type) {
	case *Op:
		call := s.Name + "(" + operands(s.Args)
		for i, a := range s.Attrs {
			if i > 0 || len(s.Args) > 0 {
				call += ", "
			}
			call += a.Key + "=" + attrString(a.Value)
		}
		call += ")"
		pr.line(depth, bind(s.Result)+call, s.Span, s.From)
	case *Bin:
		pr.line(depth, bind(s.Result)+s.Op.String()+"("+operand(s.X)+", "+operand(s.Y)+")", s.Span, s.From)
	case *Unary:
		pr.line(depth, bind(s.Result)+s.Op.String()+"("+operand(s.X)+")", s.Span, s.From)
	case *Assign:
		pr.line(depth, bind(s.Dst)+operand(s.Src), s.Span, s.From)
	case *Index:
		pr.line(depth, bind(s.Result)+s.X.Name+"["+operand(s.Index)+"]", s.Span, s.From)
	case *Call:
		name := "?"
		if s.Callee != nil {
			name = s.Callee.Name
		}
		call := name + "(" + operands(s.Args)
		if s.Device != nil {
			if len(s.Args) > 0 {
				call += ", "
			}
			call += "device=" + operand(s.Device)
		}
		if g := blocksString(s.Blocks); g != "" {
			if len(s.Args) > 0 || s.Device != nil {
				call += ", "
			}
			call += g
		}
		if len(s.Deps) > 0 {
			if len(s.Args) > 0 || s.Device != nil || s.Blocks > 1 {
				call += ", "
			}
			call += "deps=[" + operands(s.Deps) + "]"
		}
		call += ")"
		if s.Task != nil {
			call += " as " + s.Task.Name
		}
		if len(s.Binds) > 0 {
			call += " where "
			for i, bd := range s.Binds {
				if i > 0 {
					call += ", "
				}
				call += bd.Sym + "=" + bd.Dim.String()
			}
		}
		pr.line(depth, bind(s.Result)+call, s.Span, s.From)
	case *For:
		head := "for " + s.Var.Name + ": " + typeString(s.Var.Type) + " in range(" +
			operand(s.Start) + ", " + operand(s.Stop) + ", " + operand(s.Step) + "):"
		pr.line(depth, head, s.Span, s.From)
		pr.block(depth+1, s.Body)
	case *If:
		pr.line(depth, "if "+operand(s.Cond)+":", s.Span, s.From)
		pr.block(depth+1, s.Then)
		if s.Else != nil {
			pr.line(depth, "else:", Span{}, s.From)
			pr.block(depth+1, s.Else)
		}
	case *While:
		pr.line(depth, "while "+operand(s.Cond)+":", s.Span, s.From)
		pr.block(depth+1, s.Body)
	case *Break:
		pr.line(depth, "break", s.Span, s.From)
	case *Continue:
		pr.line(depth, "continue", s.Span, s.From)
	case *Return:
		if s.Value == nil {
			pr.line(depth, "return", s.Span, s.From)
		} else {
			pr.line(depth, "return "+operand(s.Value), s.Span, s.From)
		}
	default:
		pr.line(depth, "<unknown statement>", Span{}, nil)
	}
}

// bind renders the "name: Type = " prefix of a statement that defines v.
func bind(v *Var) string {
	if v == nil {
		return ""
	}
	return v.Name + ": " + typeString(v.Type) + " = "
}

func typeString(t Type) string {
	if t == nil {
		return "None"
	}
	return t.String()
}

func operands(ops []Operand) string {
	var b strings.Builder
	for i, o := range ops {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(operand(o))
	}
	return b.String()
}

func operand(o Operand) string {
	if o == nil {
		return "None"
	}
	return o.String()
}

func attrString(v AttrValue) string {
	if v == nil {
		return "None"
	}
	return v.String()
}

// String renders an integer or bool constant as Python would write it, and
// a float with a decimal point; a constant whose type is not the default of
// its literal (INDEX for integers, FP32 for floats) carries ":DTYPE".
func (c *Const) String() string {
	switch {
	case c.DType == BOOL:
		if c.Int != 0 {
			return "True"
		}
		return "False"
	case c.DType.IsFloat():
		s := formatFloat(c.Float)
		if c.DType != FP32 {
			s += ":" + c.DType.String()
		}
		return s
	}
	s := strconv.FormatInt(c.Int, 10)
	if c.DType != INDEX {
		s += ":" + c.DType.String()
	}
	return s
}

func formatFloat(f float64) string {
	if s := NonFiniteText(f); s != "" {
		return s
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// NonFiniteText is Python's spelling of a float that is no finite number,
// "inf", "-inf" or "nan", or "" for a finite f: the IR text writes them
// so, and the compile-time evaluator's repr(float) too.
func NonFiniteText(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f != f:
		return "nan"
	}
	return ""
}

func (l *ListOp) String() string { return "[" + operands(l.Elems) + "]" }

func (s *SymRef) String() string { return s.Name }

func (a IntAttr) String() string   { return strconv.FormatInt(int64(a), 10) }
func (a StrAttr) String() string   { return strconv.Quote(string(a)) }
func (a DTypeAttr) String() string { return DType(a).String() }
func (NoneAttr) String() string    { return "None" }
func (a EnumAttr) String() string  { return a.Member }

func (a BoolAttr) String() string {
	if a {
		return "True"
	}
	return "False"
}
