package meta

import (
	"fmt"

	"pldworkbench/engine/diag"
)

// Error is a Python exception (or a compile-time limit) met while evaluating.
// Binary, Unary and Compare return one without a span; the evaluator fills
// Span with the offending expression and turns it into a diagnostic once it
// escapes the module.
type Error struct {
	// Type is the Python exception class: "ZeroDivisionError", "TypeError",
	// "ValueError", ... For limits of the evaluator it is "" (see Fatal).
	Type string
	Msg  string // lower-case for the evaluator's own errors; the program's text for a raise
	Code string
	Hint string
	Span diag.Span

	// Raised marks an exception the program raised itself (a raise
	// statement, or a failed assert); Exc is its value.
	Raised bool
	Exc    *Exception
	// Via is the text of the outermost call the exception escaped from,
	// "build_two_phase_allreduce(3)", filled in as it unwinds.
	Via string
	// Fatal errors are limits of the compile-time evaluator (step budget,
	// recursion depth, DSL ops outside a DSL function, bad decorators):
	// try/except never catches them.
	Fatal bool

	// inLoop marks a budget error already moved to its innermost loop.
	inLoop bool
}

func (e *Error) Error() string {
	if e.Type != "" {
		return e.Type + ": " + e.Msg
	}
	return e.Msg
}

// Codes of the diagnostics this package reports. The UI links each to a
// lesson, so they never change meaning.
const (
	CodeRaised       = "E0301" // the program raised an exception
	CodeAssert       = "E0302" // an assert failed
	CodeName         = "E0303" // name not defined
	CodeType         = "E0304" // unsupported operand, not callable, not iterable...
	CodeArgs         = "E0305" // wrong arguments to a call
	CodeZeroDiv      = "E0306" // division or modulo by zero
	CodeIndex        = "E0307" // index out of range, missing key
	CodeValue        = "E0308" // bad value (int("x"), unpacking count, range step 0)
	CodeAttr         = "E0309" // no such attribute or enum member
	CodeBudget       = "E0310" // step budget exhausted
	CodeDepth        = "E0311" // recursion too deep
	CodeDSLOnly      = "E0312" // a DSL op or DSL function used at compile time
	CodeDecorator    = "E0313" // unknown or contradictory DSL decorator arguments
	CodeOverflow     = "E0314" // integer outside int64
	CodeUnsupported  = "E0315" // a Python construct the evaluator does not model
	CodeDynamic      = "E0316" // bad pl.dynamic name
	CodeControl      = "E0317" // return/break/continue in the wrong place
	CodeInstantiate  = "E0318" // instantiating a class at compile time
	CodeSizeExceeded = "E0319" // a string or list grew past the evaluator's limit
	CodeMemory       = "E0320" // compile-time values past the work's memory budget
	CodeTimeout      = "E0321" // the work's wall-clock limit passed in the front end
	CodeCanceled     = "E0322" // the caller gave the work up in the front end
)

// pyErrorCodes maps a Python exception class raised by the evaluator itself
// to its code and the hint every such error carries unless a more specific
// one is given.
var pyErrorCodes = map[string]struct{ code, hint string }{
	"NameError":         {CodeName, "define the name before this line, or check its spelling"},
	"UnboundLocalError": {CodeName, "assign the variable before reading it"},
	"TypeError":         {CodeType, "check the types of the values involved; module code and factories run as plain Python at compile time"},
	"ZeroDivisionError": {CodeZeroDiv, "the right operand is 0 at compile time; check the constants it is computed from"},
	"IndexError":        {CodeIndex, "indices run from 0 to len-1 (or -len to -1)"},
	"KeyError":          {CodeIndex, "check the key, or use .get(key, default)"},
	"ValueError":        {CodeValue, "check the value passed here"},
	"AttributeError":    {CodeAttr, "check the attribute's spelling"},
	"OverflowError":     {CodeOverflow, "compile-time integers must fit in 64 bits"},
	"RecursionError":    {CodeDepth, "a function calls itself without reaching its base case"},
	"RuntimeError":      {CodeValue, ""},
}

// newErr returns a Python exception of class typ raised by the evaluator.
func newErr(typ, format string, args ...any) *Error {
	c := pyErrorCodes[typ]
	code := c.code
	if code == "" {
		code = CodeType
	}
	return &Error{Type: typ, Msg: fmt.Sprintf(format, args...), Code: code, Hint: c.hint}
}

// fatalErr returns an uncatchable error about a limit of the evaluator.
func fatalErr(code, hint, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Code: code, Hint: hint, Fatal: true}
}

func typeErr(format string, args ...any) *Error { return newErr("TypeError", format, args...) }

// withHint replaces e's hint and returns e.
func (e *Error) withHint(h string) *Error {
	e.Hint = h
	return e
}

// at fills in e's span when it has none yet and returns e.
func (e *Error) at(span diag.Span) *Error {
	if !e.Span.IsValid() {
		e.Span = span
	}
	return e
}

// Diagnostic converts e into the diagnostic reported to the learner.
func (e *Error) Diagnostic() diag.Diagnostic {
	msg := e.Msg
	if e.Raised && e.Code == CodeRaised {
		who := e.Via
		if who == "" {
			who = "module code"
		}
		msg = who + " raised " + e.Exc.Type
		if e.Exc.Msg != "" {
			msg += ": " + e.Exc.Msg
		}
	} else if e.Via != "" {
		msg += " (in " + e.Via + ")"
	}
	return diag.Diagnostic{Span: e.Span, Code: e.Code, Severity: diag.Error, Msg: msg, Hint: e.Hint}
}
