package check

import (
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// checkProgramAllocNames holds PyPTO's rule that a window buffer's name is
// unique in the whole @pl.program: its parser declares every
// alloc_window_buffer name when the class is built, whichever entry is
// compiled later, so two host orchestrators that both allocate data_buf
// are refused even when only one of them is run. The entry's own allocs
// are judged by checkAlloc as they are checked (E0220 with the line); this
// pass reads the source of every HOST method of the class, in order.
func (c *checker) checkProgramAllocNames(p *meta.Program) {
	if p == nil {
		return
	}
	type decl struct {
		fn   string
		line int
	}
	seen := map[string]decl{}
	for _, m := range p.Methods {
		if m.Kind != meta.Host {
			continue
		}
		own := map[string]bool{}
		for _, st := range m.Def.Body {
			syntax.Walk(st, func(n syntax.Node) bool {
				as, ok := n.(*syntax.AssignStmt)
				if !ok || len(as.Targets) != 1 || !isCallOf(as.Value, "alloc_window_buffer") {
					return true
				}
				id, ok := as.Targets[0].(*syntax.Ident)
				if !ok {
					return true
				}
				if prev, dup := seen[id.Name]; dup && !own[id.Name] {
					c.errorf(id.Pos, ErrAllocName, "",
						"window buffer name %s is already declared in this program, by host orchestrator %s at line %d (names are unique across a @pl.program)",
						id.Name, prev.fn, prev.line)
				} else if !dup {
					seen[id.Name] = decl{m.Def.Name, id.Pos.Start.Line}
				}
				own[id.Name] = true
				return true
			})
		}
	}
}
