// Package diag holds the one diagnostic type every stage of the engine reports
// with, and renders it for a terminal (file:line:col, the source line, a caret
// under the span) or as JSON for the server and the editor's lint.
//
// Positions are 1-based lines and 1-based columns counted in bytes of the
// line, which is what editors (and CodeMirror's line/ch after conversion) and
// Python's own tracebacks use for ASCII sources; Offset is the 0-based byte
// offset into the source.
package diag

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Pos is a position in a source file.
type Pos struct {
	Offset int // 0-based byte offset
	Line   int // 1-based
	Col    int // 1-based, in bytes
}

// IsValid reports whether p names a real position (Line 0 means "unknown").
func (p Pos) IsValid() bool { return p.Line > 0 }

// Span is the half-open byte range [Start, End) of a construct in File.
type Span struct {
	File       string
	Start, End Pos
}

// IsValid reports whether the span has a known start.
func (s Span) IsValid() bool { return s.Start.IsValid() }

// String renders the span's start as file:line:col.
func (s Span) String() string {
	if !s.IsValid() {
		return s.File
	}
	if s.File == "" {
		return fmt.Sprintf("%d:%d", s.Start.Line, s.Start.Col)
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Start.Line, s.Start.Col)
}

// Severity orders diagnostics: an Error stops a program from running.
type Severity int

const (
	Error Severity = iota
	Warning
	Info
)

func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Info:
		return "info"
	}
	return "error"
}

// Diagnostic is one finding about a program.
type Diagnostic struct {
	Span     Span
	Code     string // stable code, e.g. "E0203"; the UI links it to a lesson
	Severity Severity
	Msg      string // lower-case, concrete: "got X, want Y"
	Hint     string // what to do about it; may be empty
}

// Error renders the diagnostic on one line (without the source excerpt).
func (d Diagnostic) Error() string {
	var b strings.Builder
	b.WriteString(d.Span.String())
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	if d.Code != "" {
		b.WriteString(" " + d.Code)
	}
	b.WriteString(": ")
	b.WriteString(d.Msg)
	return b.String()
}

// List is a list of diagnostics; it implements error.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(d Diagnostic) { *l = append(*l, d) }

// Errorf appends an error diagnostic.
func (l *List) Errorf(span Span, code, hint, format string, args ...any) {
	l.Add(Diagnostic{Span: span, Code: code, Severity: Error, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// HasErrors reports whether any diagnostic is an Error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Renamed is l with every span in file from said to be in file to: the
// same findings about the same text loaded under another name. l itself
// is left as it is (it may be shared).
func (l List) Renamed(from, to string) List {
	if from == to {
		return l
	}
	out := slices.Clone(l)
	for i := range out {
		if out[i].Span.File == from {
			out[i].Span.File = to
		}
	}
	return out
}

// Sort orders the list by file, position, then severity, keeping the
// relative order of diagnostics at the same place.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Span, l[j].Span
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Start.Offset != b.Start.Offset {
			return a.Start.Offset < b.Start.Offset
		}
		return l[i].Severity < l[j].Severity
	})
}

// Err returns the list as an error, or nil when it holds no Error.
func (l List) Err() error {
	if !l.HasErrors() {
		return nil
	}
	return l
}

func (l List) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", l[0].Error(), len(l)-1)
}
