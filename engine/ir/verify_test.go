package ir

import (
	"strings"
	"testing"
)

func TestVerifyHandProgram(t *testing.T) {
	if err := Verify(handProgram()); err != nil {
		t.Fatal(err)
	}
}

// findStmt returns the first statement of f (searched depth-first) for
// which pick is true, with the block holding it.
func findStmt(b *Block, pick func(Stmt) bool) (*Block, int) {
	for i, s := range b.Stmts {
		if pick(s) {
			return b, i
		}
		switch s := s.(type) {
		case *For:
			if bb, j := findStmt(s.Body, pick); bb != nil {
				return bb, j
			}
		case *If:
			if bb, j := findStmt(s.Then, pick); bb != nil {
				return bb, j
			}
			if s.Else != nil {
				if bb, j := findStmt(s.Else, pick); bb != nil {
					return bb, j
				}
			}
		}
	}
	return nil, -1
}

func TestVerifyFindsBrokenPrograms(t *testing.T) {
	cases := []struct {
		name   string
		breakP func(p *Program)
		want   string
	}{
		{"use of a var bound only in one branch", func(p *Program) {
			k := p.Func("shift_step")
			_, i := findStmt(k.Body, func(s Stmt) bool { _, ok := s.(*Unary); return ok })
			b, _ := findStmt(k.Body, func(s Stmt) bool { _, ok := s.(*Unary); return ok })
			neg := b.Stmts[i].(*Unary).Result
			k.Body.Stmts = append(k.Body.Stmts[:len(k.Body.Stmts)-1],
				&Bin{Op: Add, X: neg, Y: IntConst(1, INDEX), Result: &Var{Name: "%9", Type: &Scalar{DType: INDEX}}, Site: Site{Span: sp(90)}},
				k.Body.Stmts[len(k.Body.Stmts)-1])
		}, "line 90: %2 used before it is defined on every path"},
		{"loop variable used after the loop", func(p *Program) {
			h := p.Entry
			loop := h.Body.Stmts[3].(*For)
			h.Body.Stmts = append(h.Body.Stmts[:4], &Index{X: h.Params[0].Var, Index: loop.Var,
				Result: &Var{Name: "%7", Type: &Tensor{Shape: ConstShape(1, 64), DType: FP32}}, Site: Site{Span: sp(91)}}, h.Body.Stmts[4])
		}, "line 91: r used before it is defined"},
		{"dispatch without device", func(p *Program) {
			b, i := findStmt(p.Entry.Body, func(s Stmt) bool { _, ok := s.(*Call); return ok })
			b.Stmts[i].(*Call).Device = nil
		}, "host dispatch of per_rank without device="},
		{"host calls the kernel", func(p *Program) {
			b, i := findStmt(p.Entry.Body, func(s Stmt) bool { _, ok := s.(*Call); return ok })
			b.Stmts[i].(*Call).Callee = p.Func("shift_step")
		}, "host function calls incore function shift_step"},
		{"argument type mismatch", func(p *Program) {
			b, i := findStmt(p.Entry.Body, func(s Stmt) bool { _, ok := s.(*Call); return ok })
			c := b.Stmts[i].(*Call)
			c.Args[2], c.Args[0] = c.Args[0], c.Args[2]
		}, "argument 1 of per_rank has type DistributedTensor[[1, 64], FP32], want Tensor[[1, 64], FP32]"},
		{"indexing in a kernel", func(p *Program) {
			k := p.Func("shift_step")
			x := k.Params[0].Var
			k.Body.Stmts = append([]Stmt{&Index{X: x, Index: IntConst(0, INDEX), Result: &Var{Name: "%8", Type: &Tensor{Shape: ConstShape(64), DType: FP32}}, Site: Site{Span: sp(92)}}}, k.Body.Stmts...)
		}, "line 92: tensor indexing at the incore level"},
		{"invalid type", func(p *Program) {
			p.Func("shift_step").Body.Stmts[0].(*Op).Result.Type = &Invalid{}
		}, "ctx has the invalid type"},
		{"return mismatch", func(p *Program) {
			k := p.Func("shift_step")
			k.Body.Stmts[len(k.Body.Stmts)-1] = &Return{Value: IntConst(1, INDEX), Site: Site{Span: sp(93)}}
		}, "line 93: returns INDEX, want Tensor[[1, 64], FP32]"},
		{"condition not bool", func(p *Program) {
			b, i := findStmt(p.Func("shift_step").Body, func(s Stmt) bool { _, ok := s.(*If); return ok })
			b.Stmts[i].(*If).Cond = IntConst(1, INDEX)
		}, "if condition of type INDEX, want BOOL"},
		{"entry not host", func(p *Program) { p.Entry = p.Func("per_rank") }, "entry per_rank is orchestration at 2 ranks, want host"},
	}
	for _, c := range cases {
		p := handProgram()
		c.breakP(p)
		err := Verify(p)
		if err == nil {
			t.Errorf("%s: Verify passed", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant it to mention %q", c.name, err, c.want)
		}
	}
}

func TestVerifyWithOpLevels(t *testing.T) {
	p := handProgram()
	hostOnly := map[string]bool{"pld.world_size": true, "pld.alloc_window_buffer": true, "pld.window": true}
	legal := func(op string, at Level) bool { return !hostOnly[op] || at == Host }
	if err := VerifyWith(p, legal); err != nil {
		t.Fatalf("legal program rejected: %v", err)
	}
	k := p.Func("shift_step")
	k.Body.Stmts = append([]Stmt{&Op{Name: "pld.world_size", Result: &Var{Name: "%5", Type: &Scalar{DType: INT64}}, Site: Site{Span: sp(94)}}}, k.Body.Stmts...)
	err := VerifyWith(p, legal)
	if err == nil || !strings.Contains(err.Error(), "line 94: pld.world_size is not allowed at the incore level") {
		t.Fatalf("got %v", err)
	}
}
