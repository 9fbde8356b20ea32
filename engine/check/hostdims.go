package check

import (
	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
)

// hostDims reports a pl.dynamic symbol that a @pl.program host
// orchestrator's tensor parameters name only inside dimensions PyPTO's
// host codegen cannot solve for (EmitHostOrchDynamicDimBindings): the host
// reads each symbol back from one parameter's run-time shape, so one
// dimension must be the symbol or one constant step from it (M, M + 1,
// M * 2, M // 4); M % 4 loses M. A @pl.jit host takes its shapes from the
// tensors it is compiled with, so the rule is the program form's.
func (c *checker) hostDims(fi *funcInfo) {
	d := fi.dsl
	if fi.level != ir.Host || d.Program == nil || !fi.sigOK || len(d.Def.Params) != len(fi.fn.Params)+1 {
		return
	}
	type source struct {
		recovered bool
		at        diag.Span
		dim       ir.Dim
		param     string
	}
	var order []string
	seen := map[string]*source{}
	for i, p := range fi.fn.Params {
		shape, _, ok := ir.ShapeOf(p.Var.Type)
		if !ok {
			continue
		}
		for _, dim := range shape {
			if dim.IsStatic() {
				continue
			}
			for _, sym := range ir.DimSymbols(dim.Sym) {
				s, ok := seen[sym]
				if !ok {
					s = &source{at: d.Def.Params[i+1].NamePos, dim: dim, param: p.Var.Name}
					seen[sym] = s
					order = append(order, sym)
				}
				s.recovered = s.recovered || ir.DimRecovers(dim, sym)
			}
		}
	}
	for _, sym := range order {
		if s := seen[sym]; !s.recovered {
			c.errorf(s.at, ErrHostDim, "",
				"the host cannot recover pl.dynamic dimension %s from its tensor parameters: %s has it only inside %s", sym, s.param, s.dim)
		}
	}
}
