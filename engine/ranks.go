package engine

import (
	"pldworkbench/engine/meta"
)

// pinnedRanks reports the rank count a host orchestrator's own annotations
// pin it to: the leading dimension of its per-rank host tensors, as in
// `x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]`. PyPTO binds that dimension to
// len(device_ids), so a program written for two devices is only valid at
// two ranks; checking it at four would report the mismatch, true but not
// what a learner who typed no --ranks asked about. Tensors with a dynamic
// leading dimension (pl.dynamic("NR")) pin nothing, and neither do 1-D
// tensors; the largest leading dimension wins, so an unsliced [1, SIZE]
// weight passed to every rank does not count.
func pinnedRanks(mod *meta.Module, fn *meta.DSLFunc) (int, bool) {
	if fn == nil || fn.Kind != meta.Host {
		return 0, false
	}
	best := 0
	for _, p := range fn.Def.Params {
		if p.Annotation == nil {
			continue
		}
		v, d := meta.EvalExpr(mod, p.Annotation, fn.Env)
		if d != nil {
			return 0, false // the checker reports it
		}
		g, ok := v.(*meta.Generic)
		for ok && (g.Base.Path == "pl.Out" || g.Base.Path == "pl.InOut") && len(g.Args) == 1 {
			g, ok = g.Args[0].(*meta.Generic)
		}
		if !ok || g.Base.Path != "pl.Tensor" || len(g.Args) == 0 {
			continue
		}
		var dims []meta.Value
		switch s := g.Args[0].(type) {
		case *meta.List:
			dims = s.Elts
		case meta.Tuple:
			dims = s.Elts
		}
		if len(dims) < 2 {
			continue
		}
		if n, isInt := dims[0].(meta.Int); isInt && int(n.V) > best {
			best = int(n.V)
		}
	}
	return best, best > 0
}
