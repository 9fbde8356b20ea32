package check

import (
	"pldworkbench/engine/ir"
	"pldworkbench/engine/syntax"
)

// Tensor-level operations in an InCore kernel, as upstream's kernels
// write them:
//
//	x_row = pl.slice(x, [1, COLS], [row, 0])   # a [1, COLS] piece of x
//	y_row = pl.add(x_row, 1.0)
//	y = pl.assemble(y, y_row, [row, 0])        # written back at [row, 0]
//
// PyPTO's compiler turns tensor operations inside a kernel into tile
// operations (the kernel computes on tiles either way); the checker does
// the same before checking: pl.slice (and pl.tensor.slice) of a tensor is
// pl.load of that region, and pl.assemble (pl.tensor.assemble) of a tile
// is pl.store of it, with the user's own argument nodes, so every
// diagnostic keeps its position.

// tensorLevelCall rewrites a tensor-level call to its tile form and checks
// it; it reports false when e is none.
func (fc *funcChecker) tensorLevelCall(path string, e *syntax.CallExpr) (*operand, bool) {
	if fc.level != ir.InCore {
		return nil, false
	}
	switch path {
	case "pl.slice", "pl.tensor.slice":
		// slice(tensor, shape, offset, valid_shape=None, ...) is
		// load(tensor, offsets, shapes, valid_shape=...).
		args := fc.reorder(e, []string{"tensor", "shape", "offset", "valid_shape"})
		if args == nil {
			return nil, false
		}
		load := []syntax.Arg{args["tensor"], args["offset"], args["shape"]}
		if v, ok := args["valid_shape"]; ok {
			v.Name = "valid_shape"
			load = append(load, v)
		}
		return fc.opCall(lookupOp("pl.load"), path, &syntax.CallExpr{Fn: e.Fn, Args: load, Lparen: e.Lparen, Rparen: e.Rparen, Pos: e.Pos}), true
	case "pl.assemble", "pl.tensor.assemble":
		// assemble(target, source, offset, atomic=) is
		// store(source, offset, target, atomic=).
		args := fc.reorder(e, []string{"target", "source", "offset"})
		if args == nil {
			return nil, false
		}
		store := []syntax.Arg{args["source"], args["offset"], args["target"]}
		for _, a := range e.Args {
			if a.Name == "atomic" {
				store = append(store, a)
			}
		}
		return fc.opCall(lookupOp("pl.store"), path, &syntax.CallExpr{Fn: e.Fn, Args: store, Lparen: e.Lparen, Rparen: e.Rparen, Pos: e.Pos}), true
	}
	return nil, false
}

// reorder binds a call's arguments to names, positional ones in order;
// nil when an argument is neither (the call is left to the usual error).
func (fc *funcChecker) reorder(e *syntax.CallExpr, names []string) map[string]syntax.Arg {
	out := map[string]syntax.Arg{}
	pos := 0
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	for _, a := range e.Args {
		switch {
		case a.Star || a.DoubleStar:
			return nil
		case a.Name == "":
			if pos >= len(names) {
				return nil
			}
			out[names[pos]] = syntax.Arg{Value: a.Value}
			pos++
		case known[a.Name]:
			out[a.Name] = syntax.Arg{Value: a.Value}
		case a.Name == "atomic":
		default:
			return nil
		}
	}
	for _, n := range names[:3] {
		if _, ok := out[n]; !ok {
			return nil
		}
	}
	return out
}
