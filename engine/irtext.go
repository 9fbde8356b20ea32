package engine

import (
	"errors"
	"fmt"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
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
// to pick, or a lowering pass that failed (text then holds the units
// printed before it).
func IRText(name string, src []byte, opts Options, after string) (text string, diags diag.List, err error) {
	if opts.Entry == "" {
		entry, err := DefaultEntry(name, src, opts.Ranks)
		if err != nil {
			var l diag.List
			if errors.As(err, &l) {
				return "", l, nil
			}
			return "", nil, err
		}
		opts.Entry = entry
	}
	res := Check(name, src, opts)
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
			if prog, err = lower.Lower(prog, after); err != nil {
				return b.String(), res.Diags, fmt.Errorf("%s: %w", name, err)
			}
		}
		b.WriteString(ir.Print(prog))
	}
	return b.String(), res.Diags, nil
}
