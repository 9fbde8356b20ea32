package lower_test

import (
	"errors"
	"strings"
	"testing"

	"pldworkbench/engine/check"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/lower"
)

func TestPassTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range lower.Passes {
		if p.Name == "" || p.Doc == "" || p.Run == nil {
			t.Errorf("pass %+v lacks a name, a doc or a Run", p)
		}
		if seen[p.Name] {
			t.Errorf("two passes called %s", p.Name)
		}
		seen[p.Name] = true
	}
	if got := strings.Join(lower.PassNames(), " "); got != "incore-collectives host-collectives" {
		t.Errorf("PassNames() = %q", got)
	}
}

// TestEveryPassVerifies runs the passes one by one on every program of the
// corpus that calls a builtin, verifies the program after each with the
// checker's level table, and checks that none is left at the end.
func TestEveryPassVerifies(t *testing.T) {
	n := 0
	for _, in := range corpus(t) {
		p := load(t, in).Clone()
		for _, ps := range lower.Passes {
			var err error
			p, err = ps.Run(p)
			if err != nil {
				t.Fatalf("%s: pass %s: %v", in, ps.Name, err)
			}
			if err := ir.VerifyWith(p, check.LegalAt); err != nil {
				t.Fatalf("%s: after pass %s: %v\n%s", in, ps.Name, err, ir.Print(p))
			}
		}
		if left := lower.Collectives(p); len(left) > 0 {
			t.Errorf("%s: %s at line %d survives lowering", in, left[0].Name, left[0].Span.Line)
		}
		n++
	}
	t.Logf("%d program instances lowered and verified after each of %d passes", n, len(lower.Passes))
}

// TestLowerLeavesItsInputAlone: Lower works on a clone, so the checked
// program prints the same before and after.
func TestLowerLeavesItsInputAlone(t *testing.T) {
	for _, in := range corpus(t) {
		p := load(t, in)
		before := ir.Print(p)
		if _, err := lower.Lower(p, ""); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if ir.Print(p) != before {
			t.Errorf("%s: Lower changed its input", in)
		}
	}
}

func TestLowerUpTo(t *testing.T) {
	in := instance{file: "testdata/host_reduce.py", entry: `build_host_reduce(2, 960, 4, "mesh", "sum").host_orch`, ranks: 2}
	p := load(t, in)
	after := map[string]string{}
	for _, name := range lower.PassNames() {
		q, err := lower.Lower(p, name)
		if err != nil {
			t.Fatalf("up to %s: %v", name, err)
		}
		after[name] = ir.Print(q)
	}
	// The HOST allreduce is untouched by the InCore pass and becomes a
	// dispatch only in host-collectives.
	if after["incore-collectives"] != ir.Print(p) {
		t.Errorf("incore-collectives changed a program without InCore collectives")
	}
	if strings.Contains(after["host-collectives"], "pld.tensor.allreduce(") {
		t.Errorf("host-collectives left the call")
	}
	if _, err := lower.Lower(p, "lower-everything"); err == nil || !strings.Contains(err.Error(), `no pass called "lower-everything"`) {
		t.Errorf("unknown pass: got %v", err)
	}
}

// TestOrigins: the statements without an origin after lowering are exactly
// the checked program's statements minus the builtin calls; every function
// a pass made says where it came from.
func TestOrigins(t *testing.T) {
	count := func(p *ir.Program) (plain, from int) {
		for _, f := range p.Funcs {
			ir.Walk(f.Body, func(s ir.Stmt) bool {
				if s.Origin() == nil {
					plain++
				} else {
					from++
				}
				return true
			})
		}
		return plain, from
	}
	for _, in := range corpus(t) {
		p := load(t, in)
		calls := len(lower.Collectives(p))
		before, _ := count(p)
		q := lowered(t, in)
		after, from := count(q)
		if after != before-calls {
			t.Errorf("%s: %d statements without an origin, want %d (%d before, %d builtin calls)", in, after, before-calls, before, calls)
		}
		if from == 0 {
			t.Errorf("%s: no statement carries an origin", in)
		}
		for _, f := range q.Funcs {
			if p.Func(f.Name) == nil && f.From == nil {
				t.Errorf("%s: synthesized function %s has no origin", in, f.Name)
			}
		}
	}
}

// TestCheckerShouldHaveRejected: a lowering that meets what the checker
// rejects reports it with the call's position instead of guessing.
func TestCheckerShouldHaveRejected(t *testing.T) {
	in := instance{file: "../testdata/programs/14_reduce_scatter.py", entry: "build_reduce_scatter(2, True).host_orch", ranks: 2}
	p := load(t, in)
	for _, f := range p.Funcs {
		ir.Walk(f.Body, func(s ir.Stmt) bool {
			if op, ok := s.(*ir.Op); ok && op.Name == "pld.tensor.reduce_scatter" {
				for i, a := range op.Attrs {
					if a.Key == "op" {
						op.Attrs[i].Value = ir.EnumAttr{Type: "pld.ReduceOp", Member: "Max", V: 1}
					}
				}
			}
			return true
		})
	}
	_, err := lower.Lower(p, "")
	var le *lower.Error
	if !errors.As(err, &le) || le.Op != "pld.tensor.reduce_scatter" || le.Span.Line == 0 ||
		!strings.Contains(err.Error(), "op=Max") || !strings.Contains(err.Error(), "the checker should have rejected it") {
		t.Fatalf("got %v", err)
	}
}
