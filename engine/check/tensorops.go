package check

import (
	"strconv"
	"strings"

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
		return fc.opCall(lookupOp("pl.load"), path, &syntax.CallExpr{Fn: e.Fn, Args: load, Lparen: e.Lparen, Rparen: e.Rparen, ExprNode: e.ExprNode}), true
	case "pl.tensor.add", "pl.tensor.sub", "pl.tensor.mul", "pl.add", "pl.sub", "pl.mul":
		// Element-wise on whole tensors: the tiles of the whole tensors.
		args, changed := fc.wholeTiles(e.Args)
		if !changed {
			return nil, false
		}
		tile := "pl." + path[strings.LastIndex(path, ".")+1:]
		return fc.opCall(lookupOp(tile), path, &syntax.CallExpr{Fn: e.Fn, Args: args, Lparen: e.Lparen, Rparen: e.Rparen, ExprNode: e.ExprNode}), true
	case "pld.tensor.remote_store":
		// The tensor form with a computed tile is the tile form.
		return fc.opCall(lookupOp("pld.tile.remote_store"), path, e), true
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
		return fc.opCall(lookupOp("pl.store"), path, &syntax.CallExpr{Fn: e.Fn, Args: store, Lparen: e.Lparen, Rparen: e.Rparen, ExprNode: e.ExprNode}), true
	}
	return nil, false
}

// wholeTiles replaces each argument naming a whole tensor of static shape
// by pl.load of all of it; changed is false when none does.
func (fc *funcChecker) wholeTiles(in []syntax.Arg) ([]syntax.Arg, bool) {
	out := make([]syntax.Arg, len(in))
	changed := false
	for i, a := range in {
		out[i] = a
		id, ok := a.Value.(*syntax.Ident)
		if !ok || a.Name != "" {
			continue
		}
		b, ok := fc.scope.vars[id.Name]
		if !ok || b.v == nil {
			continue
		}
		shape, _, isTensor := ir.ShapeOf(b.v.Type)
		if _, tile := b.v.Type.(*ir.Tile); tile || !isTensor || !shape.IsStatic() {
			continue
		}
		var zeros, dims []syntax.Expr
		for _, d := range shape {
			zeros = append(zeros, &syntax.NumberLit{Kind: syntax.IntNumber, Raw: "0", ExprNode: id.ExprNode})
			dims = append(dims, &syntax.NumberLit{Kind: syntax.IntNumber, Int: d.N, Raw: strconv.FormatInt(d.N, 10), ExprNode: id.ExprNode})
		}
		load := &syntax.CallExpr{Fn: id, Args: []syntax.Arg{
			{Value: id}, {Value: &syntax.ListLit{Elts: zeros, ExprNode: id.ExprNode}}, {Value: &syntax.ListLit{Elts: dims, ExprNode: id.ExprNode}},
		}, Lparen: id.Pos, Rparen: id.Pos, ExprNode: id.ExprNode}
		if fc.synth == nil {
			fc.synth = map[*syntax.CallExpr]string{}
		}
		fc.synth[load] = "pl.load"
		out[i] = syntax.Arg{Value: load}
		changed = true
	}
	return out, changed
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
