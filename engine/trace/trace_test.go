package trace

import (
	"bytes"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func sample() []Event {
	return []Event{
		{Rank: HostRank, Seq: 0, Op: "pld.alloc_window_buffer", Line: 3, Col: 5, EndLine: 3, EndCol: 40},
		{Rank: HostRank, Seq: 1, Op: "call", Callee: "per_rank", Line: 6, Peer: Int(1)},
		{Rank: 0, Seq: 4, Op: "pld.system.notify", Line: 12, Col: 9, EndLine: 12, EndCol: 70,
			Peer: Int(0), Cell: "signal[1, 0]", Before: Int64(0), After: Int64(1), StartNs: 10, EndNs: 30},
		{Rank: 1, Seq: 7, Op: "pld.system.wait", Line: 14, Col: 9, EndLine: 14, EndCol: 60,
			Cell: "signal[1, 0]", Value: Int64(1), ReleasedBy: &Ref{Rank: 0, Seq: 4}, StartNs: 12, EndNs: 530},
		{Rank: 1, Seq: 8, Op: "pld.tile.remote_load", Line: 15, Peer: Int(0), Bytes: 256, StartNs: 530, EndNs: 1044},
	}
}

func TestJSONLinesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range sample() {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(sample()) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(sample()), buf.String())
	}
	// Zero-valued optional fields print; absent ones do not.
	if want := `"op":"call","callee":"per_rank",`; !strings.Contains(lines[1], want) {
		t.Errorf("call line lacks %s: %s", want, lines[1])
	}
	if want := `"peer":0,`; !strings.Contains(lines[2], want) {
		t.Errorf("notify line lacks %s: %s", want, lines[2])
	}
	if want := `"before":0,"after":1,`; !strings.Contains(lines[2], want) {
		t.Errorf("notify line lacks %s: %s", want, lines[2])
	}
	if strings.Contains(lines[0], "peer") || strings.Contains(lines[0], "cell") || strings.Contains(lines[0], "released_by") {
		t.Errorf("host line has fields it should omit: %s", lines[0])
	}
	if want := `"released_by":{"rank":0,"seq":4}`; !strings.Contains(lines[3], want) {
		t.Errorf("wait line lacks %s: %s", want, lines[3])
	}
	got, err := Read(strings.NewReader(buf.String() + "\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sample()) {
		t.Errorf("round trip differs:\ngot  %+v\nwant %+v", got, sample())
	}
}

func TestReadNamesBadLine(t *testing.T) {
	_, err := Read(strings.NewReader(`{"rank":0,"seq":0,"op":"pl.load"}` + "\n" + "not json\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("got %v, want an error naming line 2", err)
	}
}

func TestCollectorAndTee(t *testing.T) {
	var a, b Collector
	s := Tee(nil, a.Sink(), b.Sink())
	for _, e := range sample() {
		s(e)
	}
	if !reflect.DeepEqual(a.Events, sample()) || !reflect.DeepEqual(b.Events, sample()) {
		t.Errorf("collectors got %d and %d events, want %d each", len(a.Events), len(b.Events), len(sample()))
	}
	if Tee(nil, nil) != nil {
		t.Errorf("Tee of no sinks is not nil")
	}
}

// TestImportsNothingOfTheProject keeps the package a leaf (STYLE.md: ir,
// trace and web import nothing of the project).
func TestImportsNothingOfTheProject(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, "pldworkbench/") {
				t.Errorf("%s imports %s; package trace must import nothing of the project", f, path)
			}
		}
	}
}
