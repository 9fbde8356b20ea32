package kernels_test

import (
	"pldworkbench/engine/emu"
	"pldworkbench/tutorials/check"
)

// golden is the tests' view of a check.Golden. The goldens themselves live
// in tutorials/check, where `workbench step` and `workbench verify` use
// them too.
type golden struct {
	exact bool
	want  func(p int, in map[string]*emu.Tensor) map[string]*emu.Tensor
}

// goldens maps "kernel name/entry as written in its header" to the golden
// of that entry. TestRun fails for an entry missing here, so a new kernel
// cannot slip in untested.
var goldens = func() map[string]golden {
	out := map[string]golden{}
	for key, g := range check.Goldens() {
		out[key] = golden{exact: g.Exact, want: g.Want}
	}
	return out
}()
