package meta

import (
	"strings"
	"testing"
	"time"

	"pldworkbench/engine/syntax"
)

// factorySrc is a rank-count factory in the shape the tutorials use: a
// guard that raises, derived constants, a mode switch on a string with
// tuple assignment, and a @pl.program class with one method per level.
const factorySrc = `"""A two-level exchange, built per rank count."""
import pypto.language as pl
import pypto.language.distributed as pld

ELEMS = 64


def build_exchange(nr: int, mode: str):
    if ELEMS % nr != 0:
        raise ValueError(f"ELEMS={ELEMS} needs a rank count that divides it, got {nr}")
    part = ELEMS // nr
    rounds = 2 * (nr - 1)
    if mode == "pairs":
        rows, cols = rounds, nr
    elif mode == "flat":
        rows, cols = nr, 1
    else:
        raise ValueError(f"no such mode: {mode!r}")

    @pl.program
    class Exchange:
        @pl.function(type=pl.FunctionType.InCore)
        def step(
            self,
            src: pl.Tensor[[1, ELEMS], pl.FP32],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, ELEMS], pl.FP32]:
            return src

        @pl.function(type=pl.FunctionType.Orchestration)
        def on_chip(self, src: pl.Tensor[[1, ELEMS], pl.FP32]):
            return self.step(src)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def on_host(self, src: pl.Tensor[[nr, 1, ELEMS], pl.FP32]):
            for r in pl.range(nr):
                self.on_chip(src[r], device=r)

    return Exchange


def helper(x):
    return x + 1


if __name__ == "__main__":
    raise SystemExit(helper(1))
`

func TestFactory(t *testing.T) {
	m := load(t, factorySrc)
	if got := m.DSLFuncs(); len(got) != 0 {
		t.Errorf("DSLFuncs() = %v, want none at module level", got)
	}
	facs := m.Factories()
	if len(facs) != 1 || facs[0].Name != "build_exchange" {
		t.Fatalf("Factories() = %v, want [build_exchange]", facs)
	}
	if got := strings.Join(facs[0].Params, ","); got != "nr,mode" || facs[0].Required != 2 {
		t.Errorf("factory params %q (required %d), want nr,mode (2)", got, facs[0].Required)
	}

	v, errs := m.Call(facs[0].Func, []Value{Int{4}, Str{"pairs"}}, nil)
	if len(errs) > 0 {
		t.Fatalf("build_exchange(4, 'pairs'): %v", errs)
	}
	p, ok := v.(*Program)
	if !ok {
		t.Fatalf("factory returned %s, want a program", v.TypeName())
	}
	if p.Name != "Exchange" || len(p.Methods) != 3 {
		t.Fatalf("program %s with %d methods, want Exchange with 3", p.Name, len(p.Methods))
	}
	wantKinds := map[string]Kind{"step": InCore, "on_chip": Orchestration, "on_host": Host}
	for _, meth := range p.Methods {
		if meth.Kind != wantKinds[meth.Def.Name] || meth.Program != p {
			t.Errorf("method %s: kind %v program %p, want %v %p", meth.Def.Name, meth.Kind, meth.Program, wantKinds[meth.Def.Name], p)
		}
		if meth.Env != p.Env {
			t.Errorf("method %s: Env is not the factory call's scope", meth.Def.Name)
		}
		if meth.Decorator == nil || meth.Decorator.Pos.Start.Line != meth.Def.Pos.Start.Line {
			t.Errorf("method %s: decorator not recorded", meth.Def.Name)
		}
	}
	// The methods see the factory's locals and the module's globals.
	for name, want := range map[string]string{
		"nr": "4", "mode": "'pairs'", "part": "16", "rounds": "6", "rows": "6", "cols": "4",
		"ELEMS": "64", "Exchange": "<program Exchange>",
	} {
		got, ok := p.Methods[0].Env.Lookup(name)
		if !ok || Repr(got) != want {
			t.Errorf("method env %s = %v, want %s", name, got, want)
		}
	}
	if _, ok := p.Env.Vars["ELEMS"]; ok {
		t.Errorf("factory scope holds the module's ELEMS; want it only in globals")
	}

	// A second call makes a fresh program over fresh locals.
	v2 := evalOK(t, m, `build_exchange(2, mode="flat")`)
	p2 := v2.(*Program)
	if p2 == p || Repr(p2.Env.Vars["rows"]) != "2" || Repr(p2.Env.Vars["cols"]) != "1" {
		t.Errorf("second instantiation: rows=%v cols=%v, want fresh program with 2, 1", p2.Env.Vars["rows"], p2.Env.Vars["cols"])
	}

	// The entry forms the CLI uses.
	host := evalOK(t, m, `build_exchange(8, "pairs").on_host`)
	if d, ok := host.(*DSLFunc); !ok || d.Kind != Host || Repr(d.Env.Vars["part"]) != "8" {
		t.Errorf("entry on_host = %v, want the host orchestrator with part=8", host)
	}

	// EvalExpr folds an annotation in the method's scope.
	sig := p.Methods[0].Def.Params[2].Annotation
	ann, d := EvalExpr(m, sig, p.Methods[0].Env)
	if d != nil {
		t.Fatalf("EvalExpr(%s): %v", "sig annotation", d)
	}
	if got := Repr(ann); got != "pl.InOut[pld.DistributedTensor[[6, 4], pl.INT32]]" {
		t.Errorf("annotation = %s", got)
	}
	inner := ann.(*Generic).Args[0].(*Generic)
	shape := inner.Args[0].(*List)
	if inner.Base.Path != "pld.DistributedTensor" || shape.Elts[0] != Value(Int{6}) || inner.Args[1] != Value(DType{Name: "INT32", Bits: 32}) {
		t.Errorf("annotation structure: base %s shape %v dtype %v", inner.Base.Path, shape, inner.Args[1])
	}
	if inner.Expr == nil || inner.Expr.Pos.Start.Line != sig.Span().Start.Line {
		t.Errorf("Generic.Expr does not point at the annotation")
	}
}

func TestFactoryRaise(t *testing.T) {
	m := load(t, factorySrc)
	raiseLine := 0
	for i, line := range strings.Split(factorySrc, "\n") {
		if strings.Contains(line, "raise ValueError(f\"ELEMS=") {
			raiseLine = i + 1
		}
	}
	d := evalErr(t, m, `build_exchange(3, "pairs").on_host`)
	if d.Code != CodeRaised || d.Span.File != "prog.py" || d.Span.Start.Line != raiseLine {
		t.Errorf("got %s at %s, want %s at prog.py:%d", d.Code, d.Span, CodeRaised, raiseLine)
	}
	want := `build_exchange(3, "pairs") raised ValueError: ELEMS=64 needs a rank count that divides it, got 3`
	if d.Msg != want {
		t.Errorf("message %q, want %q", d.Msg, want)
	}
	if d.Hint == "" {
		t.Error("no hint")
	}

	// The mode guard, reached through Module.Call.
	_, errs := m.Call(m.Globals().Vars["build_exchange"], []Value{Int{4}, Str{"ring"}}, nil)
	if len(errs) != 1 || !strings.HasSuffix(errs[0].Msg, "raised ValueError: no such mode: 'ring'") ||
		!strings.HasPrefix(errs[0].Msg, "build_exchange(4, 'ring')") {
		t.Errorf("mode guard: %v", errs)
	}
}

func TestJitModule(t *testing.T) {
	m := load(t, `
import pypto.language as pl
import pypto.language.distributed as pld

N = pl.dynamic("N")

@pl.jit.incore
def kern(x: pl.Tensor[[1, 8], pl.FP32]):
    return x

@pl.jit
def chip(x: pl.Tensor[[1, 8], pl.FP32]):
    return kern(x)

@pl.jit.host
def host(x: pl.Tensor[[N, 1, 8], pl.FP32]):
    for r in pl.range(pld.world_size()):
        chip(x[r], device=r)

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def k2(self):
        pass

def main():
    raise RuntimeError("main must not run")

if __name__ == "__main__":
    main()
`)
	var names []string
	for _, d := range m.DSLFuncs() {
		names = append(names, d.Def.Name+":"+d.Kind.String())
	}
	want := "kern:InCore kernel chip:orchestration function host:host orchestrator k2:InCore kernel"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("DSLFuncs() = %s, want %s", got, want)
	}
	if len(m.Factories()) != 0 {
		t.Errorf("Factories() = %v, want none", m.Factories())
	}
	if dv, ok := m.Globals().Vars["N"].(*DynVar); !ok || dv.Name != "N" {
		t.Errorf("N = %v, want a DynVar", m.Globals().Vars["N"])
	}
	if d, ok := evalOK(t, m, "Prog.k2").(*DSLFunc); !ok || d.Program == nil || d.Program.Name != "Prog" {
		t.Errorf("Prog.k2 is not Prog's method")
	}
	if host := evalOK(t, m, "host").(*DSLFunc); host.Env != m.Globals() {
		t.Error("module-level DSL function's Env is not the globals")
	}
}

func TestImports(t *testing.T) {
	m := load(t, `
import pypto.language as pl
from pypto import language as pl2
import pypto.language.distributed as dist
from pypto.language import distributed as pld2
import pypto
import pypto.language
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig
import torch
import argparse as ap
from . import sibling
from somewhere.unknown import Thing as T
`)
	for name, want := range map[string]string{
		"pl": "pl", "pl2": "pl", "dist": "pld", "pld2": "pld", "pypto": "pypto", "ir": "pypto.ir",
		"DistributedConfig": "pypto.ir.distributed_compiled_program.DistributedConfig",
		"torch":             "torch", "ap": "argparse", "sibling": ".sibling", "T": "somewhere.unknown.Thing",
	} {
		b, ok := m.Globals().Vars[name].(*Builtin)
		if !ok || b.Path != want {
			t.Errorf("%s = %v, want Builtin %s", name, m.Globals().Vars[name], want)
		}
	}
	for expr, want := range map[string]string{
		"pypto.language.FP16":                     "pl.FP16",
		"pypto.language.distributed.NotifyOp.Set": "pld.NotifyOp.Set",
		"pl2.distributed.WaitCmp.Ge":              "pld.WaitCmp.Ge",
		"dist.tensor.allreduce":                   "pld.tensor.allreduce",
	} {
		if got := evalOK(t, m, expr).String(); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
}

func TestLibrarySymbols(t *testing.T) {
	m := load(t, "import pypto.language as pl\nimport pypto.language.distributed as pld\nimport torch\n")
	for expr, want := range map[string]string{
		"pl.FP32.get_byte()":                          "4",
		"pl.BF16.get_byte()":                          "2",
		"pl.BOOL.get_byte()":                          "1",
		"pl.INDEX.get_byte()":                         "8",
		"pl.INT8.get_byte() * 3":                      "3",
		"pld.NotifyOp.AtomicAdd.value":                "0",
		"pld.WaitCmp.Ge.value":                        "1",
		"pld.AtomicType.None_.value":                  "0",
		"pld.ReduceOp.Prod.value":                     "3",
		"pld.ReduceOp.Max.name":                       "'Max'",
		"pld.ReduceOp.Sum == pld.ReduceOp.Sum":        "True",
		"pld.ReduceOp.Sum is pld.ReduceOp.Sum":        "True",
		"pl.FP32 == pl.FP16":                          "False",
		"pl.Scalar[pl.INT32]":                         "pl.Scalar[pl.INT32]",
		"pl.dynamic('NR')":                            "pl.dynamic('NR')",
		"torch.randn(3, 4).sum(dim=0)":                "<result of calling torch.randn(...).sum>",
		"pl.Level.HOST":                               "pl.Level.HOST",
		"pl.Role.Orchestrator":                        "pl.Role.Orchestrator",
		"pl.FunctionType.InCore":                      "pl.FunctionType.InCore",
		"[pl.FP32, pl.INT32].index(pl.INT32)":         "1",
		"{pld.ReduceOp.Sum: 'add'}[pld.ReduceOp.Sum]": "'add'",
	} {
		if got := Repr(evalOK(t, m, expr)); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
	for expr, code := range map[string]string{
		"pld.NotifyOp.Add":        CodeAttr,
		"pl.load(1, [0], [1])":    CodeDSLOnly,
		"pld.system.notify(1)":    CodeDSLOnly,
		"pld.world_size()":        CodeDSLOnly,
		"pl.dynamic('two words')": CodeDynamic,
		"pl.dynamic(3)":           CodeDynamic,
		"pl.function(type=1)":     CodeDecorator,
		"pl.FP32.get_byte(1)":     CodeArgs,
	} {
		if d := evalErr(t, m, expr); d.Code != code {
			t.Errorf("%s: got %s %q, want %s", expr, d.Code, d.Msg, code)
		}
	}
	d := evalErr(t, m, "pld.NotifyOp.Add")
	if d.Hint != "its members are AtomicAdd, Set" {
		t.Errorf("enum hint %q", d.Hint)
	}
	d = evalErr(t, m, "pld.system.notify(1)")
	if d.Msg != "pld.system.notify can only be used inside a DSL function" {
		t.Errorf("DSL op message %q", d.Msg)
	}
}

func TestBudget(t *testing.T) {
	start := time.Now()
	d := loadErr(t, "x = 0\nwhile True:\n    x += 1\n", Options{})
	if d.Code != CodeBudget || d.Span.Start.Line != 2 {
		t.Errorf("got %s at %s, want %s at line 2", d.Code, d.Span, CodeBudget)
	}
	if !strings.Contains(d.Msg, "1000000 steps") {
		t.Errorf("message %q does not name the budget", d.Msg)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("budget exhaustion took %v", elapsed)
	}

	// A small budget, exhausted inside a factory called from the entry.
	m, errs := Load(parse(t, "prog.py", "def spin(n):\n    while n > 0:\n        pass\n"), Options{MaxSteps: 500})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	d = evalErr(t, m, "spin(1)")
	if d.Code != CodeBudget || d.Span.File != "prog.py" || d.Span.Start.Line != 2 || !strings.Contains(d.Msg, "500 steps") {
		t.Errorf("got %s %q at %s, want %s at prog.py:2", d.Code, d.Msg, d.Span, CodeBudget)
	}
	// try/except cannot swallow the budget.
	d = loadErr(t, "while True:\n    try:\n        pass\n    except Exception:\n        pass\n", Options{MaxSteps: 1000})
	if d.Code != CodeBudget {
		t.Errorf("budget inside try: got %s", d.Code)
	}
}

func TestRecursionLimit(t *testing.T) {
	d := loadErr(t, "def down(n):\n    return down(n + 1)\n\ndown(0)\n", Options{})
	if d.Code != CodeDepth || d.Span.Start.Line != 2 || !strings.Contains(d.Msg, "down(0)") {
		t.Errorf("got %s %q at %s, want %s at line 2 naming down(0)", d.Code, d.Msg, d.Span, CodeDepth)
	}
}

func TestDecoratorKinds(t *testing.T) {
	m := load(t, `
import pypto.language as pl
from pypto.language import FunctionType
import functools

@pl.jit.incore
def a(): pass

@pl.jit
def b(): pass

@pl.jit.host
def c(): pass

@pl.function(type=pl.FunctionType.InCore)
def d(): pass

@pl.function(type=FunctionType.Orchestration)
def e(): pass

@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
def f(): pass

@functools.lru_cache(maxsize=None)
def plain(): pass

def twice(fn):
    return lambda: (fn(), fn())

@twice
def wrapped():
    return 1
`)
	want := map[string]Kind{"a": InCore, "b": Orchestration, "c": Host, "d": InCore, "e": Orchestration, "f": Host}
	for name, kind := range want {
		d, ok := m.Globals().Vars[name].(*DSLFunc)
		if !ok || d.Kind != kind || d.Program != nil {
			t.Errorf("%s = %v, want a %v DSL function", name, m.Globals().Vars[name], kind)
		}
	}
	if _, ok := m.Globals().Vars["plain"].(*Func); !ok {
		t.Errorf("plain = %v, want a *Func (library decorators are transparent)", m.Globals().Vars["plain"])
	}
	if got := Repr(evalOK(t, m, "wrapped()")); got != "(1, 1)" {
		t.Errorf("user decorator: wrapped() = %s, want (1, 1)", got)
	}
}

func TestDSLFuncsSourceOrder(t *testing.T) {
	m := load(t, `
import pypto.language as pl

@pl.program
class First:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self): pass
    SCALE = 3
    def helper(self): pass

@pl.jit
def middle(): pass

@pl.jit
def replaced(): pass

replaced = 5
`)
	var names []string
	for _, d := range m.DSLFuncs() {
		names = append(names, d.Def.Name)
	}
	if got := strings.Join(names, ","); got != "k,middle" {
		t.Errorf("DSLFuncs() = %s, want k,middle", got)
	}
	p := m.Globals().Vars["First"].(*Program)
	if Repr(p.Attrs["SCALE"]) != "3" {
		t.Errorf("program attr SCALE = %v", p.Attrs["SCALE"])
	}
	if _, ok := p.Attrs["helper"].(*Func); !ok {
		t.Errorf("plain method helper = %v, want a *Func in Attrs", p.Attrs["helper"])
	}
	if got := Repr(evalOK(t, m, "First.SCALE * 2")); got != "6" {
		t.Errorf("First.SCALE * 2 = %s", got)
	}
}

func TestEvalExprErrorSpan(t *testing.T) {
	m := load(t, "import pypto.language as pl\nK = 4\n")
	e, errs := syntax.ParseExpr("kern.py", "pl.Tensor[[K, 1 // (K - 4)], pl.FP32]")
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	_, d := EvalExpr(m, e, m.Globals())
	if d == nil || d.Code != CodeZeroDiv || d.Span.File != "kern.py" || d.Span.Start.Col != 15 {
		t.Errorf("got %v, want %s at kern.py:1:15", d, CodeZeroDiv)
	}
	local := NewEnv(m.Globals())
	local.Set("n", Int{3})
	e, _ = syntax.ParseExpr("kern.py", "[n * K, pl.INT32.get_byte()]")
	v, d := EvalExpr(m, e, local)
	if d != nil || Repr(v) != "[12, 4]" {
		t.Errorf("EvalExpr in a child scope = %v, %v; want [12, 4]", v, d)
	}
}

func TestCallAPI(t *testing.T) {
	m := load(t, factorySrc)
	if m.File() == nil || m.File().Name != "prog.py" {
		t.Errorf("File() = %v", m.File())
	}
	if Repr(m.Globals().Vars["__name__"]) != "'workbench_program'" {
		t.Errorf("__name__ = %v", m.Globals().Vars["__name__"])
	}
	fac := m.Globals().Vars["build_exchange"]
	v, errs := m.Call(fac, []Value{Int{8}}, map[string]Value{"mode": Str{"flat"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if p := v.(*Program); Repr(p.Env.Vars["part"]) != "8" {
		t.Errorf("part = %v, want 8", p.Env.Vars["part"])
	}
	if v, errs := m.Call(m.Globals().Vars["helper"], []Value{Int{41}}, nil); len(errs) > 0 || Repr(v) != "42" {
		t.Errorf("helper(41) = %v, %v", v, errs)
	}
	if v, errs := m.Call(&Builtin{Path: "max"}, []Value{Int{3}, Int{9}}, nil); len(errs) > 0 || Repr(v) != "9" {
		t.Errorf("max(3, 9) = %v, %v", v, errs)
	}
	_, errs = m.Call(fac, []Value{Int{4}}, nil)
	if len(errs) != 1 || errs[0].Code != CodeArgs || !strings.Contains(errs[0].Msg, "missing 1 required argument: 'mode'") {
		t.Errorf("missing argument: %v", errs)
	}
	if _, errs := m.Eval("build_exchange(4,"); !errs.HasErrors() || errs[0].Span.File != "<entry>" {
		t.Errorf("unparsable entry: %v", errs)
	}
	d := evalErr(t, m, "build_exchang(4, 'flat')")
	if d.Code != CodeName || d.Span.File != "<entry>" || d.Hint != "did you mean 'build_exchange'?" {
		t.Errorf("misspelled entry: %s %q at %s, hint %q", d.Code, d.Msg, d.Span, d.Hint)
	}
}
