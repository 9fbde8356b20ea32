package engine

import (
	"pldworkbench/engine/check"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
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
//
// A dispatch loop with a constant bound, `for r in pl.range(2): ...
// device=r`, pins the rank count before any tensor does: its bound is the
// rank count (the largest stop of the dispatch loops), where a leading dimension
// may count something else, as the rounds of x: [ROUNDS, 2, 1, SIZE]
// indexed x[rd, r].
//
// The chip orchestration of a program with no HOST level (check.ChipEntry)
// is pinned to one rank: it runs on one chip.
func pinnedRanks(mod *meta.Module, fn *meta.DSLFunc) (int, bool) {
	if check.ChipEntry(mod, fn) {
		return 1, true // a program with no HOST level runs on one chip
	}
	if fn == nil || fn.Kind != meta.Host {
		return 0, false
	}
	if n := dispatchLoopRanks(mod, fn); n > 0 {
		return n, true
	}
	if !dispatchesOn(fn.Def.Body, "") {
		// No device= dispatch at all: the host's work runs on one chip
		// (pl.at scopes, a single-chip dispatch), and a leading dimension
		// counts rows, not ranks.
		return 1, true
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

// dispatchLoopRanks is the largest constant stop of fn's dispatch loops,
// `for r in pl.range(N)` or `pl.range(START, N)` whose body dispatches with
// device=r, or 0 (none, or bounds not known here, such as
// pld.world_size()). A loop over some of the ranks dispatches a device
// subset (upstream's two groups pl.range(2) and pl.range(1, 3) run on
// three ranks), so the largest stop, not the first loop, counts them.
func dispatchLoopRanks(mod *meta.Module, fn *meta.DSLFunc) int {
	found := 0
	for _, st := range fn.Def.Body {
		syntax.Walk(st, func(n syntax.Node) bool {
			f, ok := n.(*syntax.ForStmt)
			if !ok {
				return true
			}
			v, isIdent := f.Target.(*syntax.Ident)
			call, isCall := f.Iter.(*syntax.CallExpr)
			if !isIdent || !isCall || len(call.Args) < 1 || len(call.Args) > 2 || !isPlRange(call.Fn) || !dispatchesOn(f.Body, v.Name) {
				return true
			}
			for _, a := range call.Args {
				if a.Name != "" {
					return true
				}
			}
			stop := call.Args[len(call.Args)-1].Value
			if val, d := meta.EvalExpr(mod, stop, fn.Env); d == nil {
				if k, isInt := val.(meta.Int); isInt && int(k.V) > found {
					found = int(k.V)
				}
			}
			return true
		})
	}
	return found
}

// isPlRange reports whether x is written pl.range.
func isPlRange(x syntax.Expr) bool {
	a, ok := x.(*syntax.AttrExpr)
	if !ok || a.Name != "range" {
		return false
	}
	id, ok := a.X.(*syntax.Ident)
	return ok && id.Name == "pl"
}

// dispatchesOn reports whether body has a call with device=name, or with
// any device= when name is empty.
func dispatchesOn(body []syntax.Stmt, name string) bool {
	hit := false
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok {
				for _, a := range c.Args {
					if a.Name != "device" {
						continue
					}
					if id, isIdent := a.Value.(*syntax.Ident); name == "" || isIdent && id.Name == name {
						hit = true
					}
				}
			}
			return !hit
		})
	}
	return hit
}
