package platform

import (
	"slices"
	"testing"
)

// TestTable holds what the rest of the workbench assumes of every row.
func TestTable(t *testing.T) {
	if p, ok := Lookup(""); !ok || p.Name != Default() || p.Name != All()[0].Name {
		t.Errorf(`Lookup("") = %q, %v; want the default, the table's first row`, p.Name, ok)
	}
	if _, ok := Lookup("A100"); ok {
		t.Error("Lookup(A100) succeeded")
	}
	seen := map[string]bool{}
	for _, p := range All() {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("platform name %q empty or repeated", p.Name)
		}
		seen[p.Name] = true
		for name, v := range map[string]float64{"ClockGHz": p.ClockGHz, "IssueNs": p.IssueNs, "HBMGBs": p.HBMGBs,
			"VectorGBs": p.VectorGBs, "StreamGBs": p.StreamGBs, "LinkGBs": p.LinkGBs, "ChipGBs": p.ChipGBs,
			"LatencyNs": p.LatencyNs, "AIVCores": float64(p.AIVCores)} {
			if v <= 0 {
				t.Errorf("%s: %s = %v, want > 0", p.Name, name, v)
			}
		}
		// The structure the cost model relies on: one stream alone does
		// not fill a link, and a chip's aggregate holds at least one link.
		if p.StreamGBs > p.LinkGBs || p.LinkGBs > p.ChipGBs {
			t.Errorf("%s: stream %.1f, link %.1f, chip %.1f GB/s: want stream <= link <= chip", p.Name, p.StreamGBs, p.LinkGBs, p.ChipGBs)
		}
		if len(p.PyPTO) == 0 {
			t.Errorf("%s: no PyPTO name", p.Name)
		}
		for _, n := range p.PyPTO {
			if q, ok := ByPyPTO(n); !ok || q.Name != p.Name {
				t.Errorf("ByPyPTO(%q) = %q, %v; want %s", n, q.Name, ok, p.Name)
			}
		}
	}
	if got := PyPTONames(); len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
		t.Errorf("PyPTO names %v repeat", got)
	}
	// The default's HCCS full mesh: seven links per chip, each of which
	// carries LinkGBs a direction, are exactly its aggregate.
	p, _ := Lookup("")
	if 7*p.LinkGBs != p.ChipGBs {
		t.Errorf("%s: 7 links x %.1f != aggregate %.1f", p.Name, p.LinkGBs, p.ChipGBs)
	}
}
