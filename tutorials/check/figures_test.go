package check_test

import (
	"context"
	"flag"
	"os"
	"testing"

	"pldworkbench/tutorials"
	"pldworkbench/tutorials/check"
)

var update = flag.Bool("update", false, "rewrite tutorials/figures.txt from the engine")

// TestFigures recomputes every figure macro of every lesson from the engine
// and compares it with figures.txt, the table the lessons render from: an
// engine change that moves a figure fails here. -update rewrites the table.
func TestFigures(t *testing.T) {
	got, err := check.LessonFigures(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("../figures.txt", []byte(tutorials.FormatFigureValues(got)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := tutorials.FigureValues()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range got {
		if w, ok := want[k]; !ok {
			t.Errorf("figure %s = %q is not in figures.txt (go test ./tutorials/check -run TestFigures -update)", k, v)
		} else if w != v {
			t.Errorf("figure %s: figures.txt says %q, the engine says %q: the lesson around it may need new words", k, w, v)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("figures.txt has %s, which no lesson uses", k)
		}
	}
}
