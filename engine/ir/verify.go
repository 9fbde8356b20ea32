package ir

import (
	"errors"
	"fmt"
	"strings"
)

// Verify checks the invariants every stage may rely on:
//
//   - the entry is a host function of the program, and every callee is one
//     of p.Funcs;
//   - every Var is defined before it is used along every path (parameters
//     at entry; a name bound in only one branch of an If, or only inside a
//     For or While body, is not defined after it), and break and continue
//     are inside a loop;
//   - types are consistent: operands of scalar arithmetic are scalars,
//     conditions are BOOL, assignments and call arguments match the
//     declared types, returns match the function's result, and no value
//     has the Invalid type;
//   - calls respect the levels: the host dispatches orchestration
//     functions with device=, orchestration calls InCore kernels without
//     it, and host tensor indexing happens only at the host;
//   - lowered programs are well formed: the IR's own primitives (BlockIdxOp,
//     ViewOp) have their operands and run in kernels, and only an
//     orchestration function's call of a kernel launches a block grid.
//
// Which pl/pld operation may run at which level is the level column of the
// operation table (ops.go), restricted to the operations the checker
// accepts; VerifyWith takes that as a function (check.LegalAt).
func Verify(p *Program) error { return VerifyWith(p, nil) }

// VerifyWith is Verify plus, when legal is not nil, a check that every Op
// is legal at the level of its function. The IR's own primitives are not
// passed to legal; Verify knows their levels.
func VerifyWith(p *Program, legal func(op string, at Level) bool) error {
	v := &verifier{prog: p, legal: legal, funcs: map[*Func]bool{}}
	v.run()
	if len(v.errs) == 0 {
		return nil
	}
	return errors.New("ir: " + strings.Join(v.errs, "\n    "))
}

type verifier struct {
	prog  *Program
	legal func(string, Level) bool
	funcs map[*Func]bool
	fn    *Func
	errs  []string
	loops int // enclosing For and While statements (break, continue)
}

// maxVerifyErrors bounds the report: a broken pass tends to break every
// statement after the first mistake.
const maxVerifyErrors = 20

func (v *verifier) errorf(sp Span, format string, args ...any) {
	if len(v.errs) >= maxVerifyErrors {
		return
	}
	where := ""
	if v.fn != nil {
		where = "func " + v.fn.Name + ": "
	}
	if sp.Line > 0 {
		where += fmt.Sprintf("line %d: ", sp.Line)
	}
	v.errs = append(v.errs, where+fmt.Sprintf(format, args...))
}

// defs is the set of variables definitely defined at a program point.
type defs map[*Var]bool

func (d defs) clone() defs {
	c := make(defs, len(d))
	for k := range d {
		c[k] = true
	}
	return c
}

func (v *verifier) run() {
	names := map[string]bool{}
	for _, f := range v.prog.Funcs {
		if names[f.Name] {
			v.errorf(f.Span, "two functions named %s", f.Name)
		}
		names[f.Name] = true
		v.funcs[f] = true
	}
	if e := v.prog.Entry; e != nil {
		if !v.funcs[e] {
			v.errorf(e.Span, "entry %s is not in the program's functions", e.Name)
		} else if e.Level == InCore || e.Level == Orchestration && v.prog.Ranks != 1 {
			// An orchestration is an entry only of a program with no host
			// level (an L2-only program), which runs on one chip.
			v.errorf(e.Span, "entry %s is %s at %d ranks, want host (or orchestration at 1 rank)", e.Name, e.Level, v.prog.Ranks)
		}
	}
	for _, f := range v.prog.Funcs {
		v.fn = f
		d := defs{}
		for _, p := range f.Params {
			if p.Var == nil {
				v.errorf(f.Span, "nil parameter")
				continue
			}
			v.checkType(f.Span, p.Var)
			if d[p.Var] {
				v.errorf(f.Span, "parameter %s declared twice", p.Var.Name)
			}
			d[p.Var] = true
		}
		if f.Body == nil {
			v.errorf(f.Span, "no body")
			continue
		}
		v.block(f.Body, d)
	}
	v.fn = nil
}

func (v *verifier) checkType(sp Span, x *Var) {
	switch x.Type.(type) {
	case nil:
		v.errorf(sp, "%s has no type", x.Name)
	case *Invalid:
		v.errorf(sp, "%s has the invalid type", x.Name)
	}
}

// use checks that every variable in o is defined and returns o's type.
func (v *verifier) use(sp Span, o Operand, d defs) Type {
	switch o := o.(type) {
	case nil:
		v.errorf(sp, "missing operand")
		return &Invalid{}
	case *Var:
		if !d[o] {
			v.errorf(sp, "%s used before it is defined on every path", o.Name)
		}
	case *ListOp:
		for _, e := range o.Elems {
			if _, nested := e.(*ListOp); nested {
				v.errorf(sp, "nested list operand")
			}
			v.use(sp, e, d)
		}
	}
	return TypeOf(o)
}

func (v *verifier) define(sp Span, x *Var, d defs) {
	if x == nil {
		return
	}
	v.checkType(sp, x)
	d[x] = true
}

// assignable reports whether a value of type src may be stored in a
// variable of type dst.
func assignable(dst, src Type) bool {
	if Identical(dst, src) {
		return true
	}
	ds, ok1 := dst.(*Scalar)
	ss, ok2 := src.(*Scalar)
	return ok1 && ok2 && ((ds.DType.IsInt() && ss.DType.IsInt()) || (ds.DType.IsFloat() && ss.DType.IsFloat()))
}

func (v *verifier) block(b *Block, d defs) {
	for _, s := range b.Stmts {
		v.stmt(s, d)
	}
}

func (v *verifier) stmt(s Stmt, d defs) {
	sp := s.Pos()
	switch s := s.(type) {
	case *Op:
		for _, a := range s.Args {
			if a != nil {
				v.use(sp, a, d)
			}
		}
		if prim, ok := primitives[s.Name]; ok {
			prim(v, s)
		} else if v.legal != nil && !v.legal(s.Name, v.fn.Level) {
			v.errorf(sp, "%s is not allowed at the %s level", s.Name, v.fn.Level)
		}
		v.define(sp, s.Result, d)
	case *Bin:
		x, y := v.use(sp, s.X, d), v.use(sp, s.Y, d)
		xs, ok1 := x.(*Scalar)
		ys, ok2 := y.(*Scalar)
		if !ok1 || !ok2 {
			v.errorf(sp, "%s of %s and %s, want scalars", s.Op, x, y)
		} else if s.Result != nil {
			rs, ok := s.Result.Type.(*Scalar)
			switch {
			case !ok:
				v.errorf(sp, "%s result %s is not a scalar", s.Op, s.Result.Name)
			case (s.Op.IsCompare() || s.Op == And || s.Op == Or) && rs.DType != BOOL:
				v.errorf(sp, "%s result has type %s, want BOOL", s.Op, rs)
			case (s.Op == And || s.Op == Or) && (xs.DType != BOOL || ys.DType != BOOL):
				v.errorf(sp, "%s of %s and %s, want BOOL operands", s.Op, xs, ys)
			}
		}
		if s.Result == nil {
			v.errorf(sp, "%s without a result", s.Op)
		}
		v.define(sp, s.Result, d)
	case *Unary:
		if _, ok := v.use(sp, s.X, d).(*Scalar); !ok {
			v.errorf(sp, "%s of a non-scalar", s.Op)
		}
		if s.Result == nil {
			v.errorf(sp, "%s without a result", s.Op)
		}
		v.define(sp, s.Result, d)
	case *Assign:
		t := v.use(sp, s.Src, d)
		if s.Dst == nil {
			v.errorf(sp, "assignment without a destination")
			return
		}
		if s.Dst.Type != nil && !assignable(s.Dst.Type, t) {
			v.errorf(sp, "assigns %s to %s of type %s", t, s.Dst.Name, s.Dst.Type)
		}
		v.define(sp, s.Dst, d)
	case *Index:
		if v.fn.Level != Host {
			v.errorf(sp, "tensor indexing at the %s level, want host", v.fn.Level)
		}
		xt := v.use(sp, s.X, d)
		it := v.use(sp, s.Index, d)
		if is, ok := it.(*Scalar); !ok || !is.DType.IsInt() {
			v.errorf(sp, "index of type %s, want an integer scalar", it)
		}
		tt, ok := xt.(*Tensor)
		switch {
		case !ok || len(tt.Shape) == 0:
			v.errorf(sp, "indexes %s, want a tensor of rank >= 1", xt)
		case s.Result != nil:
			want := &Tensor{Shape: tt.Shape[1:], DType: tt.DType}
			if !Identical(want, s.Result.Type) {
				v.errorf(sp, "%s[...] has type %s, want %s", s.X.Name, s.Result.Type, want)
			}
		}
		v.define(sp, s.Result, d)
	case *Call:
		v.call(s, d)
	case *For:
		for _, o := range []Operand{s.Start, s.Stop, s.Step} {
			if t, ok := v.use(sp, o, d).(*Scalar); !ok || !t.DType.IsInt() {
				v.errorf(sp, "range bound %s is not an integer scalar", operand(o))
			}
		}
		if s.Var == nil {
			v.errorf(sp, "for without a loop variable")
			return
		}
		if t, ok := s.Var.Type.(*Scalar); !ok || !t.DType.IsInt() {
			v.errorf(sp, "loop variable %s has type %s, want an integer scalar", s.Var.Name, typeString(s.Var.Type))
		}
		inner := d.clone()
		inner[s.Var] = true
		if s.Body == nil {
			v.errorf(sp, "for without a body")
			return
		}
		v.loops++
		v.block(s.Body, inner)
		v.loops--
	case *While:
		if s.Cond == nil {
			v.errorf(sp, "while without a condition")
		} else if t, ok := v.use(sp, s.Cond, d).(*Scalar); !ok || t.DType != BOOL {
			v.errorf(sp, "while condition of type %s, want BOOL", TypeOf(s.Cond))
		}
		if s.Body == nil {
			v.errorf(sp, "while without a body")
			return
		}
		// What the body defines is not defined after it (it may run no
		// iteration), as for a For.
		v.loops++
		v.block(s.Body, d.clone())
		v.loops--
	case *Break, *Continue:
		if v.loops == 0 {
			v.errorf(sp, "break or continue outside a loop")
		}
	case *If:
		if t, ok := v.use(sp, s.Cond, d).(*Scalar); !ok || t.DType != BOOL {
			v.errorf(sp, "if condition of type %s, want BOOL", TypeOf(s.Cond))
		}
		then := d.clone()
		if s.Then != nil {
			v.block(s.Then, then)
		}
		els := d.clone()
		if s.Else != nil {
			v.block(s.Else, els)
		}
		for x := range then {
			if els[x] {
				d[x] = true
			}
		}
	case *Return:
		switch {
		case s.Value == nil && v.fn.Result != nil:
			v.errorf(sp, "bare return in a function returning %s", v.fn.Result)
		case s.Value != nil:
			t := v.use(sp, s.Value, d)
			if v.fn.Result == nil {
				v.errorf(sp, "returns %s from a function without a result type", t)
			} else if !Returnable(v.fn.Result, t) {
				v.errorf(sp, "returns %s, want %s", t, v.fn.Result)
			}
		}
	default:
		v.errorf(sp, "unknown statement %T", s)
	}
}

func (v *verifier) call(s *Call, d defs) {
	sp := s.Span
	for _, a := range s.Args {
		v.use(sp, a, d)
	}
	if s.Device != nil {
		v.use(sp, s.Device, d)
	}
	v.taskCall(s, d)
	c := s.Callee
	if c == nil || !v.funcs[c] {
		v.errorf(sp, "call of a function that is not in the program")
		v.define(sp, s.Result, d)
		return
	}
	v.verifyBlocks(s)
	switch caller := v.fn.Level; {
	case caller == Host && c.Level == Orchestration:
		if s.Device == nil {
			v.errorf(sp, "host dispatch of %s without device=", c.Name)
		}
	case caller == Orchestration && c.Level == InCore:
		if s.Device != nil {
			v.errorf(sp, "device= on a call of kernel %s", c.Name)
		}
	default:
		v.errorf(sp, "%s function calls %s function %s", caller, c.Level, c.Name)
	}
	if len(s.Args) != len(c.Params) {
		v.errorf(sp, "%s called with %d arguments, want %d", c.Name, len(s.Args), len(c.Params))
	} else {
		for i, a := range s.Args {
			want := c.Params[i].Var.Type
			if t := TypeOf(a); !Compatible(want, t) && !(v.fn.Level == Host && WindowReshapes(want, t)) {
				v.errorf(sp, "argument %d of %s has type %s, want %s", i+1, c.Name, t, want)
			}
		}
	}
	if s.Result != nil {
		if c.Result == nil {
			v.errorf(sp, "%s returns nothing but its result is bound to %s", c.Name, s.Result.Name)
		} else if !Compatible(c.Result, s.Result.Type) {
			v.errorf(sp, "%s returns %s, bound to %s of type %s", c.Name, c.Result, s.Result.Name, s.Result.Type)
		}
		v.define(sp, s.Result, d)
	}
}
