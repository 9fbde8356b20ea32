package engine

import "pldworkbench/engine/ir"

// ArgDims binds the entry's pl.dynamic dimensions to the shapes of the
// host tensors a caller will hand it, in parameter order (nil for one it
// does not know), as RunOptions.Dims takes them; nil when they bind none
// or p did not compile.
func (p *Program) ArgDims(shapes [][]int) map[string]int64 {
	if p == nil || p.lowered == nil || p.lowered.Entry == nil || len(shapes) == 0 {
		return nil
	}
	dims := map[string]int64{}
	for i, p := range p.lowered.Entry.Params {
		if i >= len(shapes) || shapes[i] == nil {
			continue
		}
		t, ok := p.Var.Type.(*ir.Tensor)
		if !ok || len(t.Shape) != len(shapes[i]) {
			continue
		}
		for j, dim := range t.Shape {
			if !dim.IsStatic() {
				if _, bound := ir.DimValue(dim.Sym, dims); !bound {
					ir.BindDim(dim.Sym, int64(shapes[i][j]), dims)
				}
			}
		}
	}
	if len(dims) == 0 {
		return nil
	}
	return dims
}
