package check_test

import (
	"context"
	"flag"
	"os"
	"strings"
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

// TestDiagramRounds: the ring's diagram at four ranks has the 2(P−1) data
// rounds of a ring all-reduce, each with one arrow per rank, and the
// mesh's one data round has P(P−1) arrows: the pictures follow the trace.
func TestDiagramRounds(t *testing.T) {
	ctx := context.Background()
	ring, err := check.FigureValue(ctx, tutorials.Figure{Kernel: "10_allreduce_ring", Args: "--ranks 4", Field: "diagram"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ring, " bytes</text>"); n != 6 {
		t.Errorf("the ring at P=4 draws %d data rounds, want 2(P-1) = 6", n)
	}
	if n := strings.Count(ring, `stroke="#1f5fa8"`); n != 6*4 {
		t.Errorf("the ring at P=4 draws %d data arrows, want 4 per round", n)
	}
	mesh, err := check.FigureValue(ctx, tutorials.Figure{Kernel: "08_allreduce_mesh", Args: "--ranks 4 --entry mesh_allreduce", Field: "diagram"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(mesh, `stroke="#1f5fa8"`); n != 12 {
		t.Errorf("the mesh at P=4 draws %d data arrows, want P(P-1) = 12", n)
	}
}

// TestFigureEdits: a figure of a copy with one change runs the changed
// copy (the pitfall rows quote such runs), and an edit that does not match
// exactly once, or a field the run cannot give, is an error rather than a
// silently wrong figure.
func TestFigureEdits(t *testing.T) {
	ctx := context.Background()
	own := `wait(arrived, [src, 0]=>wait(arrived, [me, 0]`
	got, err := check.FigureValue(ctx, tutorials.Figure{Kernel: "04_barrier_hand", Args: "--ranks 2", Field: "deadlock:0", Edit: own})
	if err != nil || !strings.Contains(got, "wait arrived[0, 0] >= 1, but it holds 0") {
		t.Errorf("waiting on the own cell: got %q, %v; want rank 0's deadlocked wait on arrived[0, 0]", got, err)
	}
	if _, err := check.FigureValue(ctx, tutorials.Figure{Kernel: "04_barrier_hand", Args: "--ranks 2", Field: "deadlock:0"}); err == nil {
		t.Error("deadlock:0 of the unchanged barrier: want an error, it does not deadlock")
	}
	if _, err := check.FigureValue(ctx, tutorials.Figure{Kernel: "04_barrier_hand", Args: "--ranks 2", Field: "status", Edit: "no such text=>x"}); err == nil || !strings.Contains(err.Error(), "occurs 0 times") {
		t.Errorf("an edit that matches nothing: got %v, want an error saying it occurs 0 times", err)
	}
	if _, err := check.FigureValue(ctx, tutorials.Figure{Kernel: "12_broadcast_hand", Args: "--ranks 4", Field: "wrong"}); err == nil {
		t.Error("wrong of a kernel that passes its check: want an error")
	}
}
