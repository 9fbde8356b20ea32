package check

import (
	"testing"

	"pldworkbench/engine/ir"
)

// TestOpTableKinds: the checker's table has one row per kind of the IR's
// operation table, except the kinds it does not accept from a program (the
// IR's own primitives, which only lowering emits or the checker emits for
// tuple syntax, and pl.div, which unsupportedOps refuses), and every spelling of a row's kind finds it.
func TestOpTableKinds(t *testing.T) {
	notChecked := map[ir.OpKind]bool{ir.OpView: true, ir.OpBlockIdx: true, ir.OpDiv: true, ir.OpTupleMake: true, ir.OpTupleGet: true, ir.OpTaskDrain: true}
	rows := map[ir.OpKind]bool{}
	for _, s := range opTable {
		if s.kind == ir.OpUnknown || rows[s.kind] || notChecked[s.kind] {
			t.Errorf("row %q: kind unknown, repeated or not meant to be checked", s.name())
		}
		rows[s.kind] = true
		for _, sp := range spellings(s) {
			if lookupOp(sp) != s {
				t.Errorf("lookupOp(%q) does not find its row", sp)
			}
		}
	}
	for _, k := range ir.OpKinds() {
		if !rows[k] && !notChecked[k] {
			t.Errorf("%s has no row in the checker's table", k)
		}
	}
	if !unsupportedOps[ir.OpDiv.String()] {
		t.Error("pl.div is neither checked nor refused as unsupported")
	}
}
