package engine

import (
	"fmt"
	"runtime/debug"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/meta"
)

// InternalError is a panic inside the engine, recovered by the entry point
// it escaped from: a bug in the workbench, never in the user's program.
// Every exported entry point recovers one, so no program can crash the
// process that runs it; the caller gets the message as a diagnostic or a
// run error (code E0599) and Stack to log.
type InternalError struct {
	Value any    // what was panicked with
	Where string // the function and file:line of the panic
	Stack []byte // the goroutine's stack at the panic
}

func (e *InternalError) Error() string {
	msg := fmt.Sprintf("internal error in the workbench: %v", e.Value)
	if e.Where != "" {
		msg += " (at " + e.Where + ")"
	}
	return msg
}

// internalHint is what every internal error tells the user.
const internalHint = "this is a bug in the workbench, not in your program; please report it with the program"

// recovered turns a recovered panic value into an InternalError.
func recovered(p any) *InternalError {
	stack := debug.Stack()
	return &InternalError{Value: p, Where: emu.PanicSite(stack), Stack: stack}
}

// Diagnostic is the error as a diagnostic at the top of file.
func (e *InternalError) Diagnostic(file string) diag.Diagnostic {
	return diag.Diagnostic{Span: diag.Span{File: file, Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Line: 1, Col: 1}},
		Code: emu.CodeInternal, Severity: diag.Error, Msg: e.Error(), Hint: internalHint}
}

// RunError is the error as a run error.
func (e *InternalError) RunError() *emu.RunError {
	return &emu.RunError{Rank: -1, Code: emu.CodeInternal, Message: e.Error(), Hint: internalHint}
}

// stopDiag is the diagnostic of a piece of work whose meter stopped (the
// deadline passed or the caller gave up) while stage was running, or nil.
func stopDiag(meter *limits.Meter, file, stage string) *diag.Diagnostic {
	err := meter.Stopped()
	if err == nil {
		return nil
	}
	d := diag.Diagnostic{Span: diag.Span{File: file, Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Line: 1, Col: 1}},
		Code: meta.CodeCanceled, Severity: diag.Error, Msg: stage + " canceled: the caller gave up"}
	if limits.IsTimeout(err) {
		d.Code = meta.CodeTimeout
		d.Msg = fmt.Sprintf("%s did not finish within the wall-clock limit of %v", stage, meter.Budget.Timeout)
		d.Hint = "the program is larger, or its compile-time loops longer, than one piece of work may take"
	}
	return &d
}

// stoppedStatus says how a run whose front end reported diags ended: timeout
// or canceled when the front end was stopped, else compile_error.
func stoppedStatus(diags diag.List) (emu.Status, *diag.Diagnostic) {
	for i, d := range diags {
		switch d.Code {
		case meta.CodeTimeout:
			return emu.StatusTimeout, &diags[i]
		case meta.CodeCanceled:
			return emu.StatusCanceled, &diags[i]
		}
	}
	return emu.StatusCompileError, nil
}
