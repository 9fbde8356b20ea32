package check

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pldworkbench/engine/diag"
)

// TestCodesTable checks the code table: every code constant has exactly
// one row with a title and a hint, E codes are errors and W codes warnings,
// and every code is exercised by at least one testdata expectation.
func TestCodesTable(t *testing.T) {
	src, err := os.ReadFile("codes.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := regexp.MustCompile(`(?m)^\s+\w+\s+Code = "([EW]\d{4})"`).FindAllStringSubmatch(string(src), -1)
	rows := map[Code]int{}
	for _, ci := range Codes {
		rows[ci.Code]++
		if ci.Title == "" || ci.Hint == "" {
			t.Errorf("%s: empty title or hint", ci.Code)
		}
		wantSev := diag.Error
		if strings.HasPrefix(string(ci.Code), "W") {
			wantSev = diag.Warning
		}
		if ci.Severity != wantSev {
			t.Errorf("%s: severity %v, want %v", ci.Code, ci.Severity, wantSev)
		}
	}
	if len(consts) != len(Codes) {
		t.Errorf("%d code constants but %d table rows", len(consts), len(Codes))
	}
	for _, m := range consts {
		if rows[Code(m[1])] != 1 {
			t.Errorf("code %s has %d table rows, want 1", m[1], rows[Code(m[1])])
		}
	}

	var expect strings.Builder
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.py"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		expect.Write(data)
	}
	for _, ci := range Codes {
		if !regexp.MustCompile(`###.*"\^?` + string(ci.Code) + `[ "]`).MatchString(expect.String()) {
			t.Errorf("code %s (%s) is not exercised by any testdata expectation", ci.Code, ci.Title)
		}
	}
}

func TestClosest(t *testing.T) {
	names := OpNames()
	cases := map[string]string{
		"pl.lod":              "pl.load",
		"pl.stor":             "pl.store",
		"pld.system.notfy":    "pld.system.notify",
		"pld.tensor.allrduce": "pld.tensor.allreduce",
		"pl.frobnicate":       "",
		"x":                   "",
	}
	for in, want := range cases {
		if got := closest(in, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance(kitten, sitting) = %d, want 3", d)
	}
}
