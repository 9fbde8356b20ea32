package check

import (
	"strings"

	"pldworkbench/engine/meta"
)

// An L2-only program is a chip Orchestration function and the InCore
// kernels it calls, with no HOST level above it. PyPTO's ir.compile turns
// one into a single-chip CompiledProgram: calling it runs the
// orchestration on one device with the caller's tensors as its arguments
// (upstream's tests/st/distributed/test_l3_manual.py and
// test_l2_multi_orch.py). Such an orchestration is an entry here, run on
// exactly one chip; with several in one program, none is the default
// (CompiledProgram refuses a plain call: "select one explicitly").

// ChipEntry reports whether fn may be the entry of an L2-only program: a
// chip Orchestration function of a @pl.program class that declares no
// HOST function, or, outside a class, of a module whose module-level DSL
// functions include no HOST function. An orchestration under a HOST
// level runs only as that host dispatches it.
func ChipEntry(mod *meta.Module, fn *meta.DSLFunc) bool {
	if fn == nil || fn.Kind != meta.Orchestration {
		return false
	}
	if fn.Program != nil {
		for _, m := range fn.Program.Methods {
			if m.Kind == meta.Host {
				return false
			}
		}
		return true
	}
	if mod == nil {
		return false
	}
	for _, f := range mod.DSLFuncs() {
		if f.Program == nil && f.Kind == meta.Host {
			return false
		}
	}
	return true
}

// checkEntry reports whether entry may start a program: a host
// orchestrator, or an L2-only program's chip orchestration. The rank count
// of the latter is the engine's to refuse (one chip): PyPTO compiles such
// a program whatever its distributed config says, so a rank count is no
// compile error.
func (c *checker) checkEntry(entry *meta.DSLFunc) bool {
	if entry.Kind == meta.Host || ChipEntry(c.mod, entry) {
		return true
	}
	hint := ""
	if entry.Kind == meta.Orchestration {
		var hosts []string
		if entry.Program != nil {
			for _, m := range entry.Program.Methods {
				if m.Kind == meta.Host {
					hosts = append(hosts, entry.Program.Name+"."+m.Def.Name)
				}
			}
		} else {
			for _, f := range c.mod.DSLFuncs() {
				if f.Program == nil && f.Kind == meta.Host {
					hosts = append(hosts, f.Def.Name)
				}
			}
		}
		hint = "an orchestration under a HOST level runs as its host orchestrator dispatches it: name " + strings.Join(hosts, " or ")
	}
	c.errorf(entry.Def.NamePos, ErrEntry, hint,
		"entry %s is an %s, want the host orchestrator that dispatches the ranks", entry.Def.Name, entry.Kind)
	return false
}
