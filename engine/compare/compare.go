// Package compare runs two compiled programs on identical inputs and says
// whether their outputs agree (within floats.Tolerance), with the unified
// diff of their lowered InCore kernels: what `workbench compare` prints
// and POST /api/compare answers.
package compare

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// OutputVerdict compares one output tensor of the two runs.
type OutputVerdict struct {
	Name  string `json:"name"` // A's parameter name
	NameB string `json:"name_b"`
	Equal bool   `json:"equal"`
	// MaxAbsDiff is the largest |a-b| over all elements.
	// NaN or an infinity (a NaN output, an overflow) is written as null.
	MaxAbsDiff floats.Float `json:"max_abs_diff"`
	// FirstDiff lists, per leading-dimension row (per rank for per-rank
	// tensors), the first flat index within the row that differs beyond
	// tolerance, or -1 when the row agrees.
	FirstDiff []int  `json:"first_diff"`
	Note      string `json:"note,omitempty"` // shape or dtype mismatch
}

// Result is what `workbench compare` reports.
type Result struct {
	Verdict string            `json:"verdict"` // "equal" or "different"
	Ranks   int               `json:"ranks"`
	A       *engine.RunResult `json:"a"`
	B       *engine.RunResult `json:"b"`
	Outputs []OutputVerdict   `json:"outputs"`
	// KernelDiff is a unified diff of the two programs' lowered InCore
	// kernels.
	KernelDiff string `json:"kernel_diff"`
	// Internal is set when the engine panicked outside either run.
	Internal *engine.InternalError `json:"-"`
}

// Options says how to run both programs: RunOptions's fill, seed,
// schedule and budget (its OnEvent is not used), and where each run's
// events go.
type Options struct {
	engine.RunOptions
	EventsA, EventsB trace.Sink
}

// Programs runs a and b on identical inputs (made once, from a's entry, and
// handed to b by parameter name, else by position) and compares outputs.
// The comparison is one piece of work: opts.Budget's Timeout covers both
// runs, and each run has its memory budget. It never panics.
func Programs(ctx context.Context, a, b *engine.Program, o Options) (cr *Result) {
	opts := o.RunOptions
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Budget.WithDefaults(limits.CLIBudget()).Timeout, limits.ErrTimeout)
	defer cancel()
	cr = &Result{Verdict: "different", Outputs: []OutputVerdict{}}
	defer func() {
		if p := recover(); p != nil {
			cr.Verdict, cr.Internal = "different", &engine.InternalError{Value: p, Where: "compare", Stack: debug.Stack()}
		}
	}()
	optsA := opts
	optsA.OnEvent = o.EventsA
	cr.A = a.Run(ctx, optsA)
	optsB := opts
	optsB.OnEvent = o.EventsB
	if cr.A.In != nil {
		optsB.Inputs = renameInputs(cr.A, b)
	}
	cr.B = b.Run(ctx, optsB)
	cr.Ranks = cr.A.Ranks
	cr.KernelDiff = kernelDiff(a, b)
	if cr.A.Status != emu.StatusOK || cr.B.Status != emu.StatusOK {
		return cr
	}
	equal := len(cr.A.OutputOrder) == len(cr.B.OutputOrder)
	for _, pr := range pairOutputs(cr.A.OutputOrder, cr.B.OutputOrder) {
		v := compareTensors(pr[0], pr[1], cr.A.Out[pr[0]], cr.B.Out[pr[1]])
		if pr[0] == "" || pr[1] == "" {
			v.Name, v.NameB = pr[0], pr[1]
			if v.Name == "" {
				v.Name = pr[1]
			}
			v.Note = "only in " + map[bool]string{true: "A", false: "B"}[pr[1] == ""]
		}
		equal = equal && v.Equal
		cr.Outputs = append(cr.Outputs, v)
	}
	if equal {
		cr.Verdict = "equal"
	}
	return cr
}

// renameInputs maps A's inputs onto B's parameter names: same name first,
// else the same position among the inputs.
func renameInputs(ra *engine.RunResult, b *engine.Program) map[string]*emu.Tensor {
	if b.Checked() == nil {
		return nil
	}
	out := map[string]*emu.Tensor{}
	i := 0
	for _, p := range b.Checked().Entry.Params {
		if _, isT := p.Var.Type.(*ir.Tensor); !isT || p.Dir == ir.Out {
			continue
		}
		if t, ok := ra.In[p.Var.Name]; ok {
			out[p.Var.Name] = t
		} else if i < len(ra.InputOrder) {
			out[p.Var.Name] = ra.In[ra.InputOrder[i]]
		}
		i++
	}
	return out
}

func compareTensors(name, nameB string, a, b *emu.Tensor) OutputVerdict {
	v := OutputVerdict{Name: name, NameB: nameB, FirstDiff: []int{}}
	if a == nil || b == nil {
		v.Note = "output missing on one side"
		return v
	}
	if fmt.Sprint(a.Shape) != fmt.Sprint(b.Shape) || a.DType != b.DType {
		v.Note = fmt.Sprintf("%s%v vs %s%v", a.DType, a.Shape, b.DType, b.Shape)
		return v
	}
	rows, per := 1, len(a.Floats())
	if len(a.Shape) > 1 && a.Shape[0] > 0 {
		rows, per = a.Shape[0], len(a.Floats())/a.Shape[0]
	}
	v.Equal = true
	for r := 0; r < rows; r++ {
		first := -1
		for j := 0; j < per; j++ {
			x, y := a.Floats()[r*per+j], b.Floats()[r*per+j]
			d := math.Abs(x - y)
			if floats.Float(d) > v.MaxAbsDiff || math.IsNaN(d) {
				v.MaxAbsDiff = floats.Float(d)
			}
			if !floats.Close(x, y) && first < 0 {
				first = j
			}
		}
		if first >= 0 {
			v.Equal = false
		}
		v.FirstDiff = append(v.FirstDiff, first)
	}
	return v
}

// kernelDiff diffs the InCore kernels of the two lowered programs, each
// printed in the IR's canonical text.
func kernelDiff(a, b *engine.Program) string {
	text := func(p *ir.Program) string {
		if p == nil {
			return ""
		}
		var sb strings.Builder
		for _, f := range p.Funcs {
			if f.Level == ir.InCore {
				sb.WriteString(f.String())
				sb.WriteString("\n")
			}
		}
		return sb.String()
	}
	d := difflib.UnifiedDiff{
		A: difflib.SplitLines(text(a.Lowered())), B: difflib.SplitLines(text(b.Lowered())),
		FromFile: a.Name + " " + a.Entry, ToFile: b.Name + " " + b.Entry, Context: 3,
	}
	s, _ := difflib.GetUnifiedDiffString(d)
	return s
}

// pairOutputs pairs A's outputs with B's: by name first; the outputs left
// without a namesake pair by position among themselves only when both sides
// have the same number of them (a renamed output); any other is paired with
// "" (only one side has it). Pairing y with tally because they sit at the
// same position would compare unrelated tensors.
func pairOutputs(a, b []string) [][2]string {
	inB := map[string]bool{}
	for _, n := range b {
		inB[n] = true
	}
	inA := map[string]bool{}
	for _, n := range a {
		inA[n] = true
	}
	var restA, restB []string
	for _, n := range a {
		if !inB[n] {
			restA = append(restA, n)
		}
	}
	for _, n := range b {
		if !inA[n] {
			restB = append(restB, n)
		}
	}
	byPos := len(restA) == len(restB)
	var out [][2]string
	k := 0
	for _, n := range a {
		switch {
		case inB[n]:
			out = append(out, [2]string{n, n})
		case byPos:
			out = append(out, [2]string{n, restB[k]})
			k++
		default:
			out = append(out, [2]string{n, ""})
		}
	}
	if !byPos {
		for _, n := range restB {
			out = append(out, [2]string{"", n})
		}
	}
	return out
}
