package e2e

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// TestRemoveBarrier checks, without a browser, the edit TestRaceExplained
// makes in the editor: removeBarrier leaves a program that compiles and, at
// 4 ranks, races between the staging store and the remote read, the lines
// the browser test then expects in [data-test=race].
func TestRemoveBarrier(t *testing.T) {
	src, err := os.ReadFile("../kernels/" + meshKernel + ".py")
	if err != nil {
		t.Fatal(err)
	}
	edited := withoutBarrier(t, string(src))
	storeLine := lineOf(t, edited, "part = pl.store(")
	loadLine := lineOf(t, edited, "pld.tile.remote_load(")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := engine.Load(ctx, meshKernel+".py", []byte(edited), engine.Options{}).Run(ctx, engine.RunOptions{
		Options:  engine.Options{Entry: "mesh_allreduce", Ranks: 4},
		Fill:     emu.FillRandn,
		Seed:     1,
		Schedule: "fair",
	})
	if res.Diags.HasErrors() {
		t.Fatalf("edited kernel does not compile: %v", res.Diags)
	}
	if len(res.Races) == 0 {
		t.Fatalf("edited kernel: status %s, no race reported", res.Status)
	}
	want := []int{storeLine, loadLine}
	slices.Sort(want)
	found := false
	for _, r := range res.Races {
		got := []int{r.A.Line, r.B.Line}
		slices.Sort(got)
		found = found || slices.Equal(got, want)
	}
	if !found {
		t.Errorf("races %+v, want one between lines %d and %d", res.Races, storeLine, loadLine)
	}
	t.Logf("status %s, %d races, first: %s", res.Status, len(res.Races), res.Races[0].Message)
}
