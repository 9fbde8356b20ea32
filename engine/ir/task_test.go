package ir

import (
	"strings"
	"testing"
)

// taskProgram is an orchestration that submits a waiter task (its id bound
// to w) and a task that depends on it, then drains.
func taskProgram() (*Program, *Call) {
	flag := &DistributedTensor{Shape: ConstShape(1, 1), DType: INT32}
	kflag := &Var{Name: "flag", Type: flag}
	waiter := &Func{Name: "park", Level: InCore, Span: sp(2), Params: []*Param{{Var: kflag}},
		Body: &Block{Stmts: []Stmt{
			&Op{Name: "pld.system.defer_wait", Args: []Operand{kflag, &ListOp{Elems: []Operand{IntConst(0, INDEX), IntConst(0, INDEX)}}, IntConst(1, INT32)},
				Attrs: []Attr{{Key: "cmp", Value: EnumAttr{Type: "pld.WaitCmp", Member: "Ge", V: 1}}}, Site: Site{Span: sp(3)}},
			&Return{Site: Site{Span: sp(3)}},
		}}}
	rflag := &Var{Name: "flag", Type: flag}
	reader := &Func{Name: "read", Level: InCore, Span: sp(4), Params: []*Param{{Var: rflag}}, Body: &Block{Stmts: []Stmt{&Return{Site: Site{Span: sp(5)}}}}}
	oflag := &Var{Name: "flag", Type: flag}
	w := &Var{Name: "w", Type: &TaskID{}}
	dep := &Call{Callee: reader, Args: []Operand{oflag}, Deps: []Operand{w}, Site: Site{Span: sp(8)}}
	orch := &Func{Name: "orch", Level: Orchestration, Span: sp(6), Params: []*Param{{Var: oflag, Dir: InOut}},
		Body: &Block{Stmts: []Stmt{
			&Call{Callee: waiter, Args: []Operand{oflag}, Task: w, Site: Site{Span: sp(7)}},
			dep,
			&Op{Name: TaskDrainOp, Site: Site{Span: sp(9)}},
			&Return{Site: Site{Span: sp(10)}},
		}}}
	return &Program{Name: "tasks", Funcs: []*Func{orch, waiter, reader}}, dep
}

func TestTaskCalls(t *testing.T) {
	p, dep := taskProgram()
	if err := Verify(p); err != nil {
		t.Fatal(err)
	}
	text := Print(p)
	for _, want := range []string{"park(flag) as w\n", "read(flag, deps=[w])\n", "task.drain()\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("printed IR lacks %q:\n%s", want, text)
		}
	}
	if c := p.Clone(); Print(c) != text {
		t.Errorf("a clone prints differently:\n%s", Print(c))
	}

	dep.Deps = []Operand{IntConst(0, INDEX)}
	if err := Verify(p); err == nil || !strings.Contains(err.Error(), "is not a task id") {
		t.Errorf("a dependency that is no task id: got %v", err)
	}
	dep.Deps = []Operand{&Var{Name: "later", Type: &TaskID{}}}
	if err := Verify(p); err == nil || !strings.Contains(err.Error(), "used before it is defined") {
		t.Errorf("a dependency on an undefined task id: got %v", err)
	}
}
