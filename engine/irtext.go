package engine

import (
	"context"
	"errors"
	"fmt"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
)

// IRText prints p after pass after ("" = fully lowered, "checked" = before
// any pass) under po (po.Lines: every statement's source line, for the
// page's IR pane), lowering under opts.Budget. Diagnostics come back in
// diags; when they hold an error there is no text. err is a failure that
// is not a diagnostic, its message naming the file: no single host
// orchestrator to pick (NoEntry), a lowering pass that failed, or an
// *InternalError when the engine panicked.
func (p *Program) IRText(ctx context.Context, opts Options, after string, po ir.PrintOptions) (text string, diags diag.List, err error) {
	meter, cancel := limits.Start(ctx, opts.budget())
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			text, diags, err = "", nil, recovered(r)
		}
	}()
	return p.irText(meter, after, po)
}

func (p *Program) irText(meter *limits.Meter, after string, po ir.PrintOptions) (string, diag.List, error) {
	switch {
	case p.Internal != nil:
		return "", nil, p.Internal
	case p.NoEntry != "":
		return "", p.Diags, errors.New(p.NoEntry) // Diags holds it, coded
	case p.Diags.HasErrors():
		return "", p.Diags, nil
	case p.checked == nil:
		return "", p.Diags, nil
	}
	prog := p.checked
	if after != "checked" {
		var err error
		if after == "" && p.lowered != nil {
			prog = p.lowered
		} else if prog, err = lower.LowerContext(meter.Context(), prog, after); err != nil {
			if d := stopDiag(meter, p.Name, "lowering"); d != nil {
				return "", diag.List{*d}, nil
			}
			return "", p.Diags, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	return po.Print(prog), p.Diags, nil
}
