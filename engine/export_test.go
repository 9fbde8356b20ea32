package engine

import (
	"context"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
)

// IRText is Load, Compile and Program.IRText in one piece of work under
// opts.Budget, for the tests of the pipeline's budget (the CLI and the
// server compile once and ask the *Program).
func IRText(ctx context.Context, name string, src []byte, opts Options, after string) (text string, diags diag.List, err error) {
	meter, cancel := limits.Start(ctx, opts.budget())
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			text, diags, err = "", nil, recovered(p)
		}
	}()
	prog := loadModule(meter, name, src).compile(meter, opts.Entry, opts)
	return prog.irText(meter, after, ir.PrintOptions{})
}

// CheckJSON is res.JSON (the fuzz target asks it of every input).
func CheckJSON(res *Result) ([]byte, error) { return res.JSON() }
