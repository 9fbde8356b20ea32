package check

import "pldworkbench/engine/ir"

// readsOnly are the operations that read their tensor operands and write
// none of them (their result, if any, is a fresh value, not a view).
var readsOnly = map[ir.OpKind]bool{
	ir.OpLoad: true, ir.OpRead: true, ir.OpWait: true, ir.OpRemoteLoad: true,
	ir.OpGetCommCtx: true, ir.OpRank: true, ir.OpNRanks: true,
	ir.OpCast: true, ir.OpAdd: true, ir.OpSub: true, ir.OpMul: true, ir.OpDiv: true,
	ir.OpMaximum: true, ir.OpMinimum: true, ir.OpMin: true, ir.OpMax: true, ir.OpMatmul: true,
}

// mayWriteParam reports whether fn's body may write its parameter i,
// directly or through a function it calls. W0302 asks it because a
// parameter declared pl.InOut whose body never writes it (upstream's
// multicore allreduce test hands the HOST signal to a publish kernel that
// way) cannot disturb the builtin's self-clearing lanes. It errs towards
// "may write": an operation it does not know, a subscript, a tuple, an
// unchecked body.
func mayWriteParam(fn *ir.Func, i int) bool {
	return mayWrite(fn, i, map[*ir.Func]bool{})
}

func mayWrite(fn *ir.Func, i int, seen map[*ir.Func]bool) bool {
	if fn == nil || fn.Body == nil || i >= len(fn.Params) {
		return true
	}
	if seen[fn] {
		return true // recursion is refused elsewhere; stay conservative
	}
	seen[fn] = true
	defer delete(seen, fn)
	alias := map[*ir.Var]bool{fn.Params[i].Var: true}
	is := func(o ir.Operand) bool {
		v, ok := o.(*ir.Var)
		return ok && alias[v]
	}
	writes := false
	ir.Walk(fn.Body, func(s ir.Stmt) bool {
		if writes {
			return false
		}
		switch s := s.(type) {
		case *ir.Op:
			for _, a := range s.Args {
				if !is(a) {
					continue
				}
				switch k := s.Kind(); {
				case k == ir.OpView && s.Result != nil:
					alias[s.Result] = true // a view of the parameter
				case !readsOnly[k]:
					writes = true
				}
			}
		case *ir.Call:
			for j, a := range s.Args {
				if is(a) && mayWrite(s.Callee, j, seen) {
					writes = true
				}
			}
		case *ir.Assign:
			if is(s.Src) {
				alias[s.Dst] = true
			}
		case *ir.Index:
			if is(s.X) {
				writes = true
			}
		}
		return true
	})
	return writes
}
