package check

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/kernels"
)

// TestRankChecks runs step 8's solution and its starter and checks the
// per-rank verdicts: every rank of the solution passes; the starter's
// ranks fail, each at its first element.
func TestRankChecks(t *testing.T) {
	for _, tt := range []struct {
		kernel string
		pass   bool
	}{{"08_allreduce_mesh", true}, {"08_allreduce_mesh_starter", false}} {
		k, _ := kernels.Get(tt.kernel)
		res := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Run(context.Background(), engine.RunOptions{
			Options: engine.Options{Entry: "mesh_allreduce", Ranks: 4}, Fill: emu.FillRandn, Seed: Seed,
		})
		if res.Status != emu.StatusOK {
			t.Fatalf("%s: %s", tt.kernel, res.Status)
		}
		checks, ok := RankChecks("08_allreduce_mesh", "mesh_allreduce", 4, res.In, res.Out)
		if !ok || len(checks) != 1 {
			t.Fatalf("%s: checks %v, ok %v", tt.kernel, checks, ok)
		}
		y := checks["y"]
		if y.Pass != tt.pass || len(y.Ranks) != 4 {
			t.Errorf("%s: %+v", tt.kernel, y)
		}
		for r, rc := range y.Ranks {
			if rc.Rank != r || rc.Pass != tt.pass || (rc.FirstBad == -1) != tt.pass || (rc.MaxAbsDiff <= 1e-5) != tt.pass {
				t.Errorf("%s rank %d: %+v", tt.kernel, r, rc)
			}
		}
	}
	if _, ok := RankChecks("08_allreduce_mesh", "no_such_entry", 4, nil, nil); ok {
		t.Error("a golden for an unknown entry")
	}
	// A program without the step's inputs: every output fails with a reason.
	checks, ok := RankChecks("08_allreduce_mesh", "mesh_allreduce", 2, map[string]*emu.Tensor{}, map[string]*emu.Tensor{"z": emu.Zeros(0)})
	if !ok || checks["z"].Pass || checks["z"].Reason == "" {
		t.Errorf("missing inputs: %+v", checks)
	}
}

func TestRankCheckJSON(t *testing.T) {
	b, err := json.Marshal(RankCheck{Rank: 1, MaxAbsDiff: floats.Float(math.NaN()), FirstBad: 3})
	if err != nil || string(b) != `{"rank":1,"pass":false,"max_abs_diff":null,"first_bad":3}` {
		t.Fatalf("%s %v", b, err)
	}
	var rc RankCheck
	if err := json.Unmarshal(b, &rc); err != nil || !math.IsNaN(float64(rc.MaxAbsDiff)) || rc.FirstBad != 3 {
		t.Errorf("%+v %v", rc, err)
	}
}
