package ir

import "testing"

// TestOpTable holds the operation table together: every kind has a row
// with a name, a category and levels, no spelling names two kinds, and
// KindOf finds every spelling of its row.
func TestOpTable(t *testing.T) {
	seen := map[string]OpKind{}
	cats := map[Category]bool{CatCompute: true, CatMemory: true, CatRMA: true, CatNotify: true, CatWait: true, CatSetup: true, CatCollective: true}
	for _, k := range OpKinds() {
		info := k.Info()
		if info.Name == "" || !cats[info.Category] || len(info.Levels) == 0 {
			t.Errorf("kind %d: row %+v lacks a name, a known category or levels", k, info)
		}
		for _, name := range append([]string{info.Name}, info.Aliases...) {
			if other, dup := seen[name]; dup {
				t.Errorf("%s spells both %s and %s", name, other, k)
			}
			seen[name] = k
			if KindOf(name) != k {
				t.Errorf("KindOf(%q) = %s, want %s", name, KindOf(name), k)
			}
		}
		if k.String() != info.Name {
			t.Errorf("kind %d prints as %q, want %q", k, k.String(), info.Name)
		}
	}
	if KindOf("pl.lod") != OpUnknown || OpUnknown.String() != "" || OpUnknown.LegalAt(Host) {
		t.Error("an unknown spelling is not OpUnknown, or OpUnknown has a row")
	}
	if KindOf(ViewOp) != OpView || KindOf(BlockIdxOp) != OpBlockIdx {
		t.Error("the IR's primitives are not in the table")
	}
	for op, want := range map[string]Category{"call": CatCall, "pld.remote_load": CatRMA, "npu.task": CatCompute, "pld.system.wait": CatWait} {
		if got := CategoryOf(op); got != want {
			t.Errorf("CategoryOf(%q) = %s, want %s", op, got, want)
		}
	}
	if !OpRead.LegalAt(Orchestration) || OpLoad.LegalAt(Host) || !OpAllreduce.LegalAt(Host) {
		t.Error("levels: pl.read at orchestration, pl.load not at the host, allreduce at the host")
	}
}
