package diag

import (
	"encoding/json"
	"strings"
)

// Render formats d for a terminal:
//
//	prog.py:12:5: error E0101: pld.world_size() is host-only, got it in InCore kernel "k"
//	   12 |     n = pld.world_size()
//	      |         ^^^^^^^^^^^^^^^^
//	  hint: pass the rank count in from the host, or use pld.nranks(ctx)
//
// src is the file's text; when it is nil or the span lies outside it, the
// excerpt is left out.
func Render(d Diagnostic, src []byte) string {
	var b strings.Builder
	b.WriteString(d.Error())
	b.WriteByte('\n')
	if line, ok := sourceLine(src, d.Span.Start.Line); ok && d.Span.Start.Col >= 1 {
		num := itoa(d.Span.Start.Line)
		gutter := strings.Repeat(" ", len(num))
		line = strings.ReplaceAll(line, "\t", " ")
		b.WriteString(" " + num + " | " + line + "\n")
		col := d.Span.Start.Col
		if col > len(line)+1 {
			col = len(line) + 1
		}
		width := 1
		if d.Span.End.Line == d.Span.Start.Line && d.Span.End.Col > col {
			width = d.Span.End.Col - col
		} else if d.Span.End.Line > d.Span.Start.Line {
			width = len(line) + 1 - col
		}
		if width < 1 {
			width = 1
		}
		b.WriteString(" " + gutter + " | " + strings.Repeat(" ", col-1) + strings.Repeat("^", width) + "\n")
	}
	if d.Hint != "" {
		b.WriteString("  hint: " + d.Hint + "\n")
	}
	return b.String()
}

// EntryFile is the file name of a span in an entry expression (an
// --entry flag, a request's entry field, a kernel's "#! entry:" line),
// parsed on its own.
const EntryFile = "<entry>"

// RenderAll renders every diagnostic in l, one block each, quoting src,
// the file's text. A span in the entry expression gets no excerpt: src is
// not its text (RenderSources quotes it).
func RenderAll(l List, src []byte) string {
	return RenderSources(l, func(file string) []byte {
		if file == EntryFile {
			return nil
		}
		return src
	})
}

// RenderSources is RenderAll quoting each span from source(its file).
func RenderSources(l List, source func(file string) []byte) string {
	var b strings.Builder
	for _, d := range l {
		b.WriteString(Render(d, source(d.Span.File)))
	}
	return b.String()
}

func sourceLine(src []byte, line int) (string, bool) {
	if src == nil || line < 1 {
		return "", false
	}
	cur := 1
	start := 0
	for i := 0; i < len(src) && cur < line; i++ {
		if src[i] == '\n' {
			cur++
			start = i + 1
		}
	}
	if cur != line {
		return "", false
	}
	end := start
	for end < len(src) && src[end] != '\n' {
		end++
	}
	return strings.TrimRight(string(src[start:end]), "\r"), true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// JSON is the wire form of a diagnostic, the one JSON a Diagnostic
// marshals to (`workbench check --json`, every /api answer, the editor's
// lint): decode into it.
type JSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	EndLine  int    `json:"end_line"`
	EndCol   int    `json:"end_col"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
}

// wire converts d to its wire form: a diagnostic without an end reports
// its start as the end.
func (d Diagnostic) wire() JSON {
	end := d.Span.End
	if !end.IsValid() {
		end = d.Span.Start
	}
	return JSON{
		File: d.Span.File, Line: d.Span.Start.Line, Col: d.Span.Start.Col,
		EndLine: end.Line, EndCol: end.Col,
		Code: d.Code, Severity: d.Severity.String(), Message: d.Msg, Hint: d.Hint,
	}
}

// MarshalJSON encodes d as JSON.
func (d Diagnostic) MarshalJSON() ([]byte, error) { return json.Marshal(d.wire()) }

// MarshalJSON encodes l as an array, [] when it is empty (never null, so
// a client can always range over it).
func (l List) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]Diagnostic(l))
}

// UnmarshalJSON decodes what MarshalJSON wrote (a stored run's
// diagnostics are read back this way; offsets are not kept).
func (d *Diagnostic) UnmarshalJSON(b []byte) error {
	var j JSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	sev := Error
	switch j.Severity {
	case "warning":
		sev = Warning
	case "info":
		sev = Info
	}
	*d = Diagnostic{Span: Span{File: j.File, Start: Pos{Line: j.Line, Col: j.Col}, End: Pos{Line: j.EndLine, Col: j.EndCol}},
		Code: j.Code, Severity: sev, Msg: j.Message, Hint: j.Hint}
	return nil
}
