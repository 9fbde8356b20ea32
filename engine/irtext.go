package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
)

// IRText is what `workbench ir` prints and POST /api/ir answers: the
// program at opts.Entry (DefaultEntry's pick when it is empty), checked,
// then lowered up to pass after ("" = fully lowered, "checked" = before
// any pass), each unit printed in turn.
//
// Diagnostics, of the check or of picking the entry, come back in diags;
// when they hold an error there is no text. err is a failure that is not
// a diagnostic, its message naming the file: no single host orchestrator
// to pick, a lowering pass that failed (text then holds the units
// printed before it), or an *InternalError when the engine panicked. The
// whole of it runs under opts.Budget; past its deadline the diagnostic is
// E0321.
func IRText(ctx context.Context, name string, src []byte, opts Options, after string) (text string, diags diag.List, err error) {
	return IRTextWith(ctx, name, src, opts, after, ir.PrintOptions{})
}

// IRTextWith is IRText printed under po: the page's IR pane asks for
// po.Lines, every statement's source line, to colour IR by origin.
func IRTextWith(ctx context.Context, name string, src []byte, opts Options, after string, po ir.PrintOptions) (text string, diags diag.List, err error) {
	meter, cancel := limits.Start(ctx, opts.budget())
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			text, diags, err = "", nil, recovered(p)
		}
	}()
	if opts.Entry == "" {
		entry, err := defaultEntry(meter, name, src, opts.Ranks)
		if err != nil {
			var l diag.List
			if errors.As(err, &l) {
				return "", l, nil
			}
			return "", nil, err
		}
		opts.Entry = entry
	}
	res := checkWith(meter, name, src, opts)
	if res.Diags.HasErrors() {
		return "", res.Diags, nil
	}
	var b strings.Builder
	for _, u := range res.Units {
		if u.Program == nil {
			continue
		}
		prog := u.Program
		if after != "checked" {
			if prog, err = lower.LowerContext(meter.Context(), prog, after); err != nil {
				if d := stopDiag(meter, name, "lowering"); d != nil {
					return "", diag.List{*d}, nil
				}
				return b.String(), res.Diags, fmt.Errorf("%s: %w", name, err)
			}
		}
		b.WriteString(po.Print(prog))
	}
	return b.String(), res.Diags, nil
}
