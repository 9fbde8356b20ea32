package lower

import (
	"fmt"
	"strconv"
	"strings"

	"pldworkbench/engine/ir"
)

// A builder appends statements to one block of one function. Every
// statement it makes carries the span of the builtin call being lowered and
// its Origin, so the emulator's run-time errors name the learner's line and
// the printer can say which builtin a statement came from. Sub-builders for
// loop and branch bodies share the function's namer.

// namer hands out variable names that are unique in one function: the
// plain name when it is free ("peer"), else the name with a suffix
// ("peer_2"); temporaries continue the checker's %N numbering.
type namer struct {
	used map[string]bool
	temp int
}

func newNamer(f *ir.Func) *namer {
	n := &namer{used: map[string]bool{}}
	note := func(v *ir.Var) {
		if v == nil {
			return
		}
		n.used[v.Name] = true
		if k, err := strconv.Atoi(strings.TrimPrefix(v.Name, "%")); err == nil && strings.HasPrefix(v.Name, "%") && k >= n.temp {
			n.temp = k + 1
		}
	}
	for _, p := range f.Params {
		note(p.Var)
	}
	ir.Walk(f.Body, func(s ir.Stmt) bool {
		switch s := s.(type) {
		case *ir.Op:
			note(s.Result)
		case *ir.Bin:
			note(s.Result)
		case *ir.Unary:
			note(s.Result)
		case *ir.Assign:
			note(s.Dst)
		case *ir.Index:
			note(s.Result)
		case *ir.Call:
			note(s.Result)
			note(s.Task)
		case *ir.For:
			note(s.Var)
		}
		return true
	})
	return n
}

func (n *namer) name(hint string) string {
	name := hint
	for k := 2; n.used[name]; k++ {
		name = hint + "_" + strconv.Itoa(k)
	}
	n.used[name] = true
	return name
}

func (n *namer) tempName() string {
	name := "%" + strconv.Itoa(n.temp)
	n.temp++
	n.used[name] = true
	return name
}

type builder struct {
	names *namer
	block *ir.Block
	// site is the span of the builtin call being lowered and its origin,
	// carried by every statement the builder emits.
	site ir.Site
	// syms are the symbolic dimensions whose value the instance fixes
	// (rankSyms); nil where none is known.
	syms map[string]int64
}

// newBuilder returns a builder that emits into blk, naming variables with
// names, the statements that implement the builtin call op.
func newBuilder(names *namer, blk *ir.Block, op *ir.Op) *builder {
	return &builder{names: names, block: blk, site: ir.Site{Span: op.Span, From: &ir.Origin{Op: op.Name, Span: op.Span}}}
}

func (b *builder) sub(blk *ir.Block) *builder {
	c := *b
	c.block = blk
	return &c
}

func (b *builder) emit(s ir.Stmt) { b.block.Add(s) }

// newVar returns a fresh named variable of type t.
func (b *builder) newVar(hint string, t ir.Type) *ir.Var {
	return &ir.Var{Name: b.names.name(hint), Type: t}
}

func (b *builder) temp(t ir.Type) *ir.Var {
	return &ir.Var{Name: b.names.tempName(), Type: t, Temp: true}
}

// op emits a side-effect operation.
func (b *builder) op(kind ir.OpKind, attrs []ir.Attr, args ...ir.Operand) {
	b.emit(&ir.Op{Name: kind.String(), Args: args, Attrs: attrs, Site: b.site})
}

// value emits an operation whose result goes to res.
func (b *builder) value(res *ir.Var, kind ir.OpKind, attrs []ir.Attr, args ...ir.Operand) *ir.Var {
	b.emit(&ir.Op{Name: kind.String(), Args: args, Attrs: attrs, Result: res, Site: b.site})
	return res
}

func (b *builder) assign(dst *ir.Var, src ir.Operand) {
	b.emit(&ir.Assign{Dst: dst, Src: src, Site: b.site})
}

// Scalar types and constants.
var (
	index = &ir.Scalar{DType: ir.INDEX}
	i32   = &ir.Scalar{DType: ir.INT32}
)

func idx(n int64) *ir.Const { return ir.IntConst(n, ir.INDEX) }

func list(elems ...ir.Operand) *ir.ListOp { return &ir.ListOp{Elems: elems} }

func constOf(o ir.Operand) (int64, bool) {
	c, ok := o.(*ir.Const)
	if !ok || !c.DType.IsInt() {
		return 0, false
	}
	return c.Int, true
}

// fold evaluates op on two integer constants (all lowering arithmetic is
// on non-negative values, where Python's // and % agree with the device's
// truncating ones) and applies the identities x+0, x-0, x*1 and x//1.
func fold(op ir.BinOp, x, y ir.Operand) (ir.Operand, bool) {
	a, okx := constOf(x)
	c, oky := constOf(y)
	if okx && oky {
		switch op {
		case ir.Add:
			return idx(a + c), true
		case ir.Sub:
			return idx(a - c), true
		case ir.Mul:
			return idx(a * c), true
		case ir.FloorDiv:
			if c != 0 {
				return idx(floorDiv(a, c)), true
			}
		case ir.Mod:
			if c != 0 {
				return idx(a - floorDiv(a, c)*c), true
			}
		}
		return nil, false
	}
	switch {
	case oky && c == 0 && (op == ir.Add || op == ir.Sub):
		return x, true
	case okx && a == 0 && op == ir.Add:
		return y, true
	case oky && c == 1 && (op == ir.Mul || op == ir.FloorDiv):
		return x, true
	case okx && a == 1 && op == ir.Mul:
		return y, true
	}
	return nil, false
}

func floorDiv(a, c int64) int64 {
	q := a / c
	if (a%c != 0) && ((a < 0) != (c < 0)) {
		q--
	}
	return q
}

// arith returns x op y on integers: a constant when both are constants,
// else a temporary INDEX bound by a new Bin.
func (b *builder) arith(op ir.BinOp, x, y ir.Operand) ir.Operand {
	if v, ok := fold(op, x, y); ok {
		return v
	}
	return b.bin(b.temp(index), op, x, y)
}

// named is arith with the result bound to a readable name (left, idx, ...)
// even when it folds, so the lowered program reads like the hand-written
// one.
func (b *builder) named(hint string, op ir.BinOp, x, y ir.Operand) *ir.Var {
	res := b.newVar(hint, index)
	if v, ok := fold(op, x, y); ok {
		b.assign(res, v)
		return res
	}
	return b.bin(res, op, x, y)
}

func (b *builder) bin(res *ir.Var, op ir.BinOp, x, y ir.Operand) *ir.Var {
	b.emit(&ir.Bin{Op: op, X: x, Y: y, Result: res, Site: b.site})
	return res
}

func (b *builder) add(x, y ir.Operand) ir.Operand   { return b.arith(ir.Add, x, y) }
func (b *builder) minus(x, y ir.Operand) ir.Operand { return b.arith(ir.Sub, x, y) }
func (b *builder) mul(x, y ir.Operand) ir.Operand   { return b.arith(ir.Mul, x, y) }
func (b *builder) div(x, y ir.Operand) ir.Operand   { return b.arith(ir.FloorDiv, x, y) }

// cmp returns the BOOL x op y, folded when both are constants.
func (b *builder) cmp(op ir.BinOp, x, y ir.Operand) ir.Operand {
	a, okx := constOf(x)
	c, oky := constOf(y)
	if okx && oky {
		switch op {
		case ir.Lt:
			return ir.BoolConst(a < c)
		case ir.Ne:
			return ir.BoolConst(a != c)
		case ir.Eq:
			return ir.BoolConst(a == c)
		}
	}
	return b.bin(b.temp(ir.Bool), op, x, y)
}

// ceilDiv returns ceil(x / y) for positive values.
func (b *builder) ceilDiv(x ir.Operand, y int64) ir.Operand {
	return b.div(b.add(x, idx(y-1)), idx(y))
}

// minOf returns min(x, y) in a variable called hint: a constant when both
// are, else "hint = x; if y < x: hint = y" (the IR has no min operator).
func (b *builder) minOf(hint string, x, y ir.Operand) ir.Operand {
	a, okx := constOf(x)
	c, oky := constOf(y)
	if okx && oky {
		return idx(min(a, c))
	}
	res := b.newVar(hint, index)
	b.assign(res, x)
	b.when(b.cmp(ir.Lt, y, x), func(t *builder) { t.assign(res, y) })
	return res
}

// loop emits for v in range(start, stop, step) with the body built by body.
func (b *builder) loop(hint string, start, stop, step ir.Operand, body func(*builder, *ir.Var)) {
	v := b.newVar(hint, index)
	f := &ir.For{Var: v, Start: start, Stop: stop, Step: step, Body: &ir.Block{}, Site: b.site}
	body(b.sub(f.Body), v)
	b.emit(f)
}

// when emits if cond: then.
func (b *builder) when(cond ir.Operand, then func(*builder)) {
	s := &ir.If{Cond: cond, Then: &ir.Block{}, Site: b.site}
	then(b.sub(s.Then))
	b.emit(s)
}

// ifElse emits if cond: then else: els.
func (b *builder) ifElse(cond ir.Operand, then, els func(*builder)) {
	s := &ir.If{Cond: cond, Then: &ir.Block{}, Else: &ir.Block{}, Site: b.site}
	then(b.sub(s.Then))
	els(b.sub(s.Else))
	b.emit(s)
}

func (b *builder) errorf(format string, args ...any) error {
	return &Error{Span: b.site.Span, Op: b.site.From.Op, Msg: fmt.Sprintf(format, args...)}
}
