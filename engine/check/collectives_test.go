package check

import (
	"strings"
	"testing"

	"pldworkbench/engine/ir"
)

func shapeOf(dims ...int64) ir.Shape { return ir.ConstShape(dims...) }

// TestSignalContract pins the signal-shape contract of pld-spec §4.7 and
// §4.8.4 at several rank counts.
func TestSignalContract(t *testing.T) {
	cases := []struct {
		op, mode string
		path     Path
		p, cores int
		shape    ir.Shape
		fits     bool
		want     string
	}{
		{"pld.tensor.allreduce", "mesh", InCorePath, 4, 1, shapeOf(4, 1), true, "[>=4, 1]"},
		{"pld.tensor.allreduce", "mesh", InCorePath, 4, 1, shapeOf(8, 1), true, "[>=4, 1]"},
		{"pld.tensor.allreduce", "mesh", InCorePath, 4, 1, shapeOf(3, 1), false, "[>=4, 1]"},
		{"pld.tensor.allreduce", "mesh", InCorePath, 4, 1, shapeOf(6, 4), false, "[>=4, 1]"},
		{"pld.tensor.allreduce", "ring", InCorePath, 4, 1, shapeOf(6, 4), true, "[6, 4]"},
		{"pld.tensor.allreduce", "ring", InCorePath, 4, 1, shapeOf(4, 1), false, "[6, 4]"},
		{"pld.tensor.allreduce", "ring", InCorePath, 2, 1, shapeOf(2, 2), true, "[2, 2]"},
		{"pld.tensor.allreduce", "ring", InCorePath, 8, 1, shapeOf(14, 8), true, "[14, 8]"},
		{"pld.tensor.allreduce", "ring", InCorePath, 4, 1, ir.Shape{ir.SymDim("R"), ir.SymDim("NR")}, true, "[6, 4]"},
		{"pld.tensor.barrier", "", InCorePath, 4, 1, ir.Shape{ir.SymDim("NR"), ir.ConstDim(1)}, true, "[>=4, 1]"},
		{"pld.tensor.barrier", "", InCorePath, 4, 1, ir.Shape{ir.SymDim("NR"), ir.ConstDim(2)}, false, "[>=4, 1]"},
		{"pld.tensor.allgather", "", InCorePath, 2, 1, shapeOf(2, 1), true, "[>=2, 1]"},
		{"pld.tensor.allreduce", "mesh", HostPath, 4, 1, shapeOf(4), true, "[>=4] or [>=4, >=1]"},
		{"pld.tensor.allreduce", "mesh", HostPath, 4, 8, shapeOf(4), false, "[>=4, >=8]"},
		{"pld.tensor.allreduce", "mesh", HostPath, 4, 8, shapeOf(4, 8), true, "[>=4, >=8]"},
		{"pld.tensor.allreduce", "mesh", HostPath, 4, 8, shapeOf(4, 4), false, "[>=4, >=8]"},
		{"pld.tensor.allreduce", "ring", HostPath, 4, 1, shapeOf(7, 4), true, "[7, 4]"},
		{"pld.tensor.allreduce", "ring", HostPath, 4, 1, shapeOf(6, 4), false, "[7, 4]"},
		{"pld.tensor.barrier", "", HostPath, 4, 1, shapeOf(4, 1), false, "[>=4]"},
		{"pld.tensor.barrier", "", HostPath, 4, 1, shapeOf(8), true, "[>=4]"},
		{"pld.tensor.all_to_all", "", HostPath, 4, 1, shapeOf(4, 1), true, "[>=4] or [>=4, 1]"},
	}
	for _, c := range cases {
		r := LookupSignal(c.op, c.mode, c.path)
		if r == nil {
			t.Errorf("no contract row for %s %s %s", c.path, c.op, c.mode)
			continue
		}
		if got := r.Fits(c.shape, c.p, c.cores); got != c.fits {
			t.Errorf("%s at P=%d cores=%d: Fits(%s) = %v, want %v", r.Name, c.p, c.cores, c.shape, got, c.fits)
		}
		if got := r.Want(c.p, c.cores); got != c.want {
			t.Errorf("%s at P=%d cores=%d: Want = %s, want %s", r.Name, c.p, c.cores, got, c.want)
		}
	}
	ring := LookupSignal("pld.tensor.allreduce", "ring", InCorePath)
	if got := ring.Shape(4); len(got) != 2 || got[0] != 6 || got[1] != 4 {
		t.Errorf("InCore ring canonical shape at P=4 = %v, want [6 4]", got)
	}
	// Every collective in the operation table has a contract row for both
	// of its forms (allreduce per mode).
	for _, s := range opTable {
		if s.param("signal") == nil || s.kind.Category() != ir.CatCollective {
			continue
		}
		for _, path := range []Path{InCorePath, HostPath} {
			modes := []string{""}
			if s.kind == ir.OpAllreduce {
				modes = []string{"mesh", "ring"}
			}
			for _, m := range modes {
				if LookupSignal(s.name(), m, path) == nil {
					t.Errorf("%s %s %s has no signal contract row", path, s.name(), m)
				}
			}
		}
	}
}

func TestLegalAt(t *testing.T) {
	cases := []struct {
		op    string
		level ir.Level
		want  bool
	}{
		{"pld.world_size", ir.Host, true},
		{"pld.world_size", ir.InCore, false},
		{"pld.system.world_size", ir.Host, true},
		{"pld.remote_load", ir.InCore, true},
		{"pld.tile.remote_load", ir.Host, false},
		{"pld.system.notify", ir.InCore, true},
		{"pld.system.notify", ir.Orchestration, false},
		{"pld.tensor.allreduce", ir.Host, true},
		{"pld.tensor.allreduce", ir.InCore, true},
		{"pld.tensor.allreduce", ir.Orchestration, false},
		{"pld.get_comm_ctx", ir.Host, true},
		{"pl.read", ir.Orchestration, true},
		{"pl.lod", ir.InCore, false},
	}
	for _, c := range cases {
		if got := LegalAt(c.op, c.level); got != c.want {
			t.Errorf("LegalAt(%s, %s) = %v, want %v", c.op, c.level, got, c.want)
		}
	}
}

func TestOpArgs(t *testing.T) {
	if got := strings.Join(OpArgs("pld.tensor.put"), ","); got != "dst,peer,src,dst_offsets,src_offsets,shape" {
		t.Errorf("OpArgs(put) = %s", got)
	}
	if got := strings.Join(OpArgs("pld.alloc_window_buffer"), ","); got != "size" {
		t.Errorf("OpArgs(alloc) = %s", got)
	}
	sig := &ir.Var{Name: "sig"}
	op := &ir.Op{Name: "pld.tensor.allreduce", Args: []ir.Operand{&ir.Var{Name: "data"}, sig}}
	if OpArg(op, "signal") != ir.Operand(sig) {
		t.Errorf("OpArg(allreduce, signal) is not the signal")
	}
	op.Args = op.Args[:1]
	if OpArg(op, "signal") != nil || OpArg(op, "nope") != nil {
		t.Errorf("OpArg of an omitted or unknown parameter is not nil")
	}
}
