package check

import "pldworkbench/engine/ir"

// checkReadBound reports a read that provably runs past a source dimension
// whose extent is symbolic: PyPTO's window-read rule (InferWindowReadValidShape,
// which tile.load applies unless clamp=True) rejects offset + extent <= source
// when its analyzer disproves it, and trusts it when it cannot decide. The
// disproof it makes of a pl.dynamic dimension is an upper bound: (M % 4)
// holds at most 3 rows, so a 4-row load from it is refused at compile time,
// while a load from M rows is the caller's precondition. Static sources are
// checkRegion's. (pld.tile.remote_load applies the same rule upstream; no
// program here reads a window of a bounded symbolic extent, so it is not
// checked yet.)
func (a *opCall) checkReadBound(tensorName, offName string, extents ir.Shape, hint string) {
	shape, _, ok := ir.ShapeOf(a.typeOf(tensorName))
	offs := a.lists[offName]
	if !ok || len(offs) != len(shape) || len(extents) != len(shape) {
		return
	}
	for i, d := range shape {
		if d.IsStatic() || !offs[i].known || !extents[i].IsStatic() {
			continue
		}
		max, ok := ir.DimMax(d)
		if !ok || offs[i].kv+extents[i].N <= max {
			continue
		}
		a.errorf(offName, ErrBounds, hint,
			"%s reads past the end of dimension %d of %s %s: offset %d + extent %d, but %s is at most %d",
			a.path, i, tensorName, shape, offs[i].kv, extents[i].N, d, max)
		return
	}
}
