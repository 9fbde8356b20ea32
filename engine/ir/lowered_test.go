package ir

import (
	"strings"
	"testing"
)

// loweredProgram adds to handProgram what only lowered programs hold: a
// kernel launched as a grid of blocks that reads its block index and views
// its window flat, every new statement marked with the builtin it came from.
func loweredProgram() *Program {
	p := handProgram()
	from := &Origin{Op: "pld.tensor.allreduce", Span: sp(50)}
	win := &DistributedTensor{Shape: ConstShape(1, 64), DType: FP32}
	flatT := &DistributedTensor{Shape: ConstShape(64), DType: FP32}
	kdata := &Var{Name: "data", Type: win}
	b := &Var{Name: "b", Type: &Scalar{DType: INDEX}}
	flat := &Var{Name: "flat", Type: flatT}
	kernel := &Func{Name: "__host_allreduce_mesh_50", Level: InCore, Span: sp(50), From: from,
		Params: []*Param{{Var: kdata, Dir: InOut}},
		Body: &Block{Stmts: []Stmt{
			&Op{Name: BlockIdxOp, Result: b, Site: Site{Span: sp(50), From: from}},
			&Op{Name: ViewOp, Args: []Operand{kdata, &ListOp{Elems: []Operand{IntConst(64, INDEX)}}}, Result: flat, Site: Site{Span: sp(50), From: from}},
		}},
	}
	odata := &Var{Name: "data", Type: win}
	wrapper := &Func{Name: "__host_allreduce_mesh_50_orch", Level: Orchestration, Span: sp(50), From: from,
		Params: []*Param{{Var: odata, Dir: InOut}},
		Body: &Block{Stmts: []Stmt{
			&Call{Callee: kernel, Args: []Operand{odata}, Blocks: 4, Site: Site{Span: sp(50), From: from}},
		}},
	}
	p.Funcs = append(p.Funcs, wrapper, kernel)
	return p
}

func TestLoweredPrint(t *testing.T) {
	p := loweredProgram()
	if err := Verify(p); err != nil {
		t.Fatal(err)
	}
	out := Print(p)
	for _, want := range []string{
		"incore __host_allreduce_mesh_50(data: InOut[DistributedTensor[[1, 64], FP32]]):",
		"__host_allreduce_mesh_50(data, blocks=4)",
		"b: INDEX = pl.get_block_idx()",
		"flat: DistributedTensor[[64], FP32] = pl.tensor.view(data, [64])",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("print lacks %q:\n%s", want, out)
		}
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "# from pld.tensor.allreduce (line 50)"); i >= 0 {
			n++
			if i < LineColumn {
				t.Errorf("origin comment at column %d, want >= %d: %q", i, LineColumn, l)
			}
		}
	}
	// Two function headers, the block index, the view and the launch.
	if n != 5 {
		t.Errorf("%d origin comments, want 5:\n%s", n, out)
	}
	// The unlowered part prints exactly as before.
	if !strings.HasPrefix(out, Print(handProgram())) {
		t.Errorf("lowering additions changed the print of the unlowered functions")
	}
	c := p.Clone()
	if Print(c) != out {
		t.Errorf("clone prints differently:\n%s", Print(c))
	}
	if c.Func("__host_allreduce_mesh_50").Body.Stmts[0].Origin() == nil {
		t.Errorf("clone lost the origin")
	}
}

func TestLoweredVerify(t *testing.T) {
	cases := []struct {
		name   string
		breakP func(p *Program)
		want   string
	}{
		{"block grid on a host dispatch", func(p *Program) {
			b, i := findStmt(p.Entry.Body, func(s Stmt) bool { _, ok := s.(*Call); return ok })
			b.Stmts[i].(*Call).Blocks = 2
		}, "host function launches orchestration function per_rank as 2 blocks"},
		{"negative blocks", func(p *Program) {
			p.Func("__host_allreduce_mesh_50_orch").Body.Stmts[0].(*Call).Blocks = -1
		}, "with -1 blocks"},
		{"block index outside a kernel", func(p *Program) {
			w := p.Func("per_rank")
			w.Body.Stmts = append([]Stmt{&Op{Name: BlockIdxOp, Result: &Var{Name: "b", Type: &Scalar{DType: INDEX}}, Site: Site{Span: sp(95)}}}, w.Body.Stmts...)
		}, "line 95: pl.get_block_idx is not allowed at the orchestration level"},
		{"block index typed INT32", func(p *Program) {
			p.Func("__host_allreduce_mesh_50").Body.Stmts[0].(*Op).Result.Type = &Scalar{DType: INT32}
		}, "result b has type INT32, want INDEX"},
		{"view changes the element count", func(p *Program) {
			op := p.Func("__host_allreduce_mesh_50").Body.Stmts[1].(*Op)
			op.Args[1] = &ListOp{Elems: []Operand{IntConst(32, INDEX)}}
			op.Result.Type = &DistributedTensor{Shape: ConstShape(32), DType: FP32}
		}, "view of 64 elements as [32] (32 elements)"},
		{"view drops the window", func(p *Program) {
			p.Func("__host_allreduce_mesh_50").Body.Stmts[1].(*Op).Result.Type = &Tensor{Shape: ConstShape(64), DType: FP32}
		}, "want the same kind and dtype"},
	}
	for _, c := range cases {
		p := loweredProgram()
		c.breakP(p)
		err := VerifyWith(p, func(string, Level) bool { return true })
		if err == nil {
			t.Errorf("%s: Verify passed", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant it to mention %q", c.name, err, c.want)
		}
	}
}

// TestPrimitivesSkipLegal: the checker's table does not know the IR's own
// primitives, so VerifyWith must not ask it about them.
func TestPrimitivesSkipLegal(t *testing.T) {
	p := loweredProgram()
	legal := func(op string, _ Level) bool { return !IsPrimitive(op) && op != "" }
	if err := VerifyWith(p, legal); err != nil {
		t.Fatal(err)
	}
}
