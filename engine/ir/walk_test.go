package ir

import "testing"

func TestWalkVisitsNestedStatements(t *testing.T) {
	p := handProgram()
	var ops []string
	Walk(p.Func("shift_step").Body, func(s Stmt) bool {
		if op, ok := s.(*Op); ok {
			ops = append(ops, op.Name)
		}
		return true
	})
	// The wait sits inside the If: a walk that skipped bodies would miss it.
	want := []string{"pld.get_comm_ctx", "pld.rank", "pld.nranks", "pl.load", "pl.store",
		"pld.system.notify", "pld.system.wait", "pld.tile.remote_load", "pl.mul", "pl.store"}
	if len(ops) != len(want) {
		t.Fatalf("walk saw %v, want %v", ops, want)
	}
	for i := range want {
		if ops[i] != want[i] {
			t.Fatalf("walk saw %v, want %v", ops, want)
		}
	}
	n := 0
	Walk(p.Func("shift_step").Body, func(s Stmt) bool { n++; _, isIf := s.(*If); return !isIf })
	if n != 15 {
		t.Errorf("walk without If bodies saw %d statements, want 15", n)
	}
}

func TestCloneIsDeepAndEqual(t *testing.T) {
	p := handProgram()
	c := p.Clone()
	if Print(c) != Print(p) {
		t.Fatalf("clone prints differently:\n%s\nvs\n%s", Print(c), Print(p))
	}
	if err := Verify(c); err != nil {
		t.Fatalf("clone does not verify: %v", err)
	}
	// The clone's call targets are the clone's functions.
	Walk(c.Entry.Body, func(s Stmt) bool {
		if call, ok := s.(*Call); ok && call.Callee != c.Func("per_rank") {
			t.Errorf("clone's call targets the original function")
		}
		return true
	})
	// Mutating the clone leaves the original alone.
	before := Print(p)
	k := c.Func("shift_step")
	k.Body.Stmts[0].(*Op).Result.Name = "context"
	k.Body.Stmts = k.Body.Stmts[:3]
	if Print(p) != before {
		t.Errorf("mutating the clone changed the original")
	}
}
