// Package lower rewrites a checked program's builtin collectives into the
// primitives they are made of, the way the PyPTO compiler does, so that the
// emulator only ever runs notify, wait, remote_load, put, get, load, store,
// tile arithmetic, scalar arithmetic, loops, branches and calls, and a
// learner can read the lowered builtin beside their own hand-rolled kernel.
//
// Lowering is a short table of passes (Passes), each an ir.Program →
// ir.Program rewrite in its own file, run in order by Lower on a clone of
// the checked program:
//
//   - incore-collectives (incore.go, allreduce.go): every pld.tensor.*
//     collective called in an InCore kernel becomes, in place, its
//     composite of pld-spec §4.8.2: a comm preamble (ctx, nranks, my_rank),
//     loops to the run-time nranks, the self-clearing credit barrier, and
//     an epilogue that resets the signal, so one signal serves any number
//     of calls. The mesh allreduce works in 16 KiB chunks, each with its own
//     barrier generation; the ring allreduce walks floor(i*N/NR) segments
//     with a ready and a read-done barrier per sub-chunk on the round's row.
//   - host-collectives (host.go, hostkernels.go): every collective called in
//     the host orchestrator becomes a synthesized kernel (the prebuilt AIV
//     kernel of pld-spec §4.8.3, spelled out in IR), an orchestration
//     wrapper that launches it — as a grid of core_num blocks for the
//     multi-core mesh allreduce — and a dispatch loop over every rank. HOST
//     builtins signal with AtomicAdd credits and end with the same kind of
//     self-clearing epilogue, as upstream HEAD's kernels do since 9533ae36b.
//
// Every statement a pass emits carries an ir.Origin naming the builtin call
// it came from, which the IR printer shows as a trailing comment. The rules
// the checker enforces (signal shapes, dtypes, ReduceOps, core_num) are not
// repeated here: a lowering that meets a program the checker should have
// rejected returns an *Error rather than guess. Lower verifies the program
// after every pass, with the checker's table of operation levels.
package lower

import (
	"context"
	"fmt"
	"strings"

	"pldworkbench/engine/check"
	"pldworkbench/engine/ir"
)

// Pass is one lowering step. Run may rewrite its argument in place and
// returns the program to hand to the next pass; Lower gives the first pass
// a clone, so the checked program is never touched.
type Pass struct {
	Name, Doc string
	Run       func(*ir.Program) (*ir.Program, error)
}

// Passes are the lowering passes in the order Lower runs them.
var Passes = []Pass{
	{Name: "incore-collectives", Doc: "expand every collective called in an InCore kernel into notify/wait/remote_load/put/get with the self-clearing credit barrier", Run: lowerInCore},
	{Name: "host-collectives", Doc: "turn every collective called in the host orchestrator into a synthesized kernel, its wrapper and a dispatch loop over the ranks", Run: lowerHost},
}

// PassNames lists the names of Passes in order.
func PassNames() []string {
	out := make([]string, len(Passes))
	for i, p := range Passes {
		out[i] = p.Name
	}
	return out
}

// Lower runs the passes on a clone of p, up to and including the pass
// named upTo ("" runs them all), verifying the program after each. After
// the last pass no builtin collective remains.
func Lower(p *ir.Program, upTo string) (*ir.Program, error) {
	return LowerContext(context.Background(), p, upTo)
}

// LowerContext is Lower that stops between passes once ctx is done,
// returning ctx's error (wrapped): a piece of work's deadline covers
// lowering too.
func LowerContext(ctx context.Context, p *ir.Program, upTo string) (*ir.Program, error) {
	last := len(Passes) - 1
	if upTo != "" {
		last = -1
		for i, ps := range Passes {
			if ps.Name == upTo {
				last = i
			}
		}
		if last < 0 {
			return nil, fmt.Errorf("lower: no pass called %q: want one of %s", upTo, strings.Join(PassNames(), ", "))
		}
	}
	out := p.Clone()
	for _, ps := range Passes[:last+1] {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lower: stopped before pass %s: %w", ps.Name, err)
		}
		var err error
		out, err = ps.Run(out)
		if err != nil {
			return nil, err
		}
		if err := ir.VerifyWith(out, check.LegalAt); err != nil {
			return nil, fmt.Errorf("lower: after pass %s: %w", ps.Name, err)
		}
	}
	if last == len(Passes)-1 {
		if ops := Collectives(out); len(ops) > 0 {
			return nil, &Error{Span: ops[0].Span, Op: ops[0].Name, Msg: "is still in the program after lowering"}
		}
	}
	return out, nil
}

// Collectives returns the builtin collective calls left in p, in function
// and statement order: none after a full Lower.
func Collectives(p *ir.Program) []*ir.Op {
	var out []*ir.Op
	for _, f := range p.Funcs {
		ir.Walk(f.Body, func(s ir.Stmt) bool {
			if op, ok := s.(*ir.Op); ok {
				if op.Kind().Category() == ir.CatCollective {
					out = append(out, op)
				}
			}
			return true
		})
	}
	return out
}

// Error is a lowering failure: a program the checker should have rejected,
// or a form of a builtin the workbench does not lower. It names the call.
type Error struct {
	Span ir.Span
	Op   string
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("lower: %s: %s %s", e.Span, e.Op, e.Msg)
}
