package diag

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRenderCaret(t *testing.T) {
	src := []byte("import pypto.language as pl\n\nfor r in pl.range(4)\n    pass\n")
	d := Diagnostic{
		Span:     Span{File: "prog.py", Start: Pos{Offset: 49, Line: 3, Col: 21}, End: Pos{Offset: 50, Line: 3, Col: 22}},
		Code:     "E0002",
		Severity: Error,
		Msg:      "expected ':' after the for header, found newline",
		Hint:     "end the header with a colon",
	}
	got := Render(d, src)
	want := "prog.py:3:21: error E0002: expected ':' after the for header, found newline\n" +
		" 3 | for r in pl.range(4)\n" +
		"   |                     ^\n" +
		"  hint: end the header with a colon\n"
	if got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderWideSpanAndOutside(t *testing.T) {
	src := []byte("x = pld.world_size()\n")
	d := Diagnostic{Span: Span{File: "f.py", Start: Pos{Offset: 4, Line: 1, Col: 5}, End: Pos{Offset: 20, Line: 1, Col: 21}}, Msg: "m"}
	got := Render(d, src)
	if !strings.Contains(got, "    ^^^^^^^^^^^^^^^^\n") {
		t.Errorf("want 16 carets under pld.world_size(), got:\n%s", got)
	}
	// A span past the end of the source renders without an excerpt.
	d.Span.Start.Line = 9
	if got := Render(d, src); strings.Contains(got, "|") {
		t.Errorf("span outside the source rendered an excerpt:\n%s", got)
	}
}

func TestListAndJSON(t *testing.T) {
	var l List
	if l.Err() != nil || l.HasErrors() {
		t.Fatal("empty list reports an error")
	}
	l.Add(Diagnostic{Span: Span{File: "a.py", Start: Pos{Offset: 9, Line: 2, Col: 1}}, Severity: Warning, Msg: "w"})
	l.Errorf(Span{File: "a.py", Start: Pos{Offset: 1, Line: 1, Col: 2}, End: Pos{Offset: 3, Line: 1, Col: 4}}, "E0101", "h", "got %d, want %d", 1, 2)
	if !l.HasErrors() || l.Err() == nil {
		t.Fatal("list with an error reports none")
	}
	l.Sort()
	if l[0].Code != "E0101" {
		t.Errorf("Sort: first is %q, want the earlier E0101", l[0].Code)
	}
	b, err := json.Marshal(struct {
		Diagnostics List `json:"diagnostics"`
	}{l})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Diagnostics []map[string]any `json:"diagnostics"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	first := out.Diagnostics[0]
	for _, k := range []string{"file", "line", "col", "end_line", "end_col", "code", "severity", "message", "hint"} {
		if _, ok := first[k]; !ok {
			t.Errorf("JSON diagnostic lacks %q: %s", k, b)
		}
	}
	if first["message"] != "got 1, want 2" || first["severity"] != "error" || first["end_col"] != float64(4) {
		t.Errorf("JSON diagnostic = %v", first)
	}
	// A diagnostic without an end reports its start as the end.
	if j := l[1].wire(); j.EndLine != 2 || j.EndCol != 1 {
		t.Errorf("missing end: got %d:%d, want 2:1", j.EndLine, j.EndCol)
	}
	if b, _ := json.Marshal(List(nil)); string(b) != "[]" {
		t.Errorf("an empty list marshals to %s, want []", b)
	}
}
