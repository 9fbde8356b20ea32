package lower_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
)

// TestHostBuiltinsReuseOneSignal runs testdata/host_reuse.py: every HOST
// builtin called four times on one signal window, twice back to back and
// twice inside a host loop (HEAD allows an explicit signal there).
// At upstream HEAD every HOST builtin ends with a self-clearing epilogue,
// so under every schedule the run ends ok with no race, the data is what
// four calls give, and the signal each rank copies out at the end is all
// zero.
func TestHostBuiltinsReuseOneSignal(t *testing.T) {
	const file = "testdata/host_reuse.py"
	schedules := []string{"fair", "random:1", "random:2", "random:3", "adversarial"}
	grids := emuRunsGrids(t)
	for _, p := range []int{2, 3, 4} {
		for _, name := range []string{"barrier", "mesh", "lanes", "ring", "bcast", "scatter", "gather", "swap", "swapv"} {
			in := instance{file, fmt.Sprintf("build_host_reuse(%d).%s_orch", p, name), p}
			prog := lowered(t, in)
			if !grids && launchesGrid(prog) {
				t.Logf("SKIPPED %s: the emulator does not run block grids", in)
				continue
			}
			inputs := indexInputs(prog)
			want := hostReuseWant(name, p, inputs["x"])
			for _, sched := range schedules {
				res := emu.Run(context.Background(), prog, emu.Options{Inputs: inputs, Schedule: sched})
				if res.Status != emu.StatusOK {
					msg := string(res.Status)
					if res.Error != nil {
						msg = res.Error.Error()
					}
					for _, r := range res.Races {
						msg += "\n  " + r.Message
					}
					t.Errorf("%s under %s: %s", in, sched, msg)
					continue
				}
				if i, ok := allclose(res.Outputs["y"].Floats(), want, 0, 0); !ok {
					t.Errorf("%s under %s: y[%d] = %v, want %v", in, sched, i, at(res.Outputs["y"].Floats(), i), at(want, i))
				}
				tally := res.Outputs["tally"]
				var left []string
				for i, v := range tally.Floats() {
					if v != 0 {
						left = append(left, fmt.Sprintf("cell %d = %g", i, v))
					}
				}
				if len(left) > 0 || len(tally.Floats()) == 0 {
					t.Errorf("%s under %s: the signal is not back at zero (%d cells): %s", in, sched, len(tally.Floats()), strings.Join(left, ", "))
				}
			}
		}
	}
}

func at(xs []float64, i int) float64 {
	if i < 0 || i >= len(xs) {
		return math.NaN()
	}
	return xs[i]
}

// hostReuseWant is y after four calls of builtin name at p ranks, computed
// from the inputs x (the goldens in the file's header).
func hostReuseWant(name string, p int, x *emu.Tensor) []float64 {
	s := slices(x)
	switch name {
	case "barrier":
		return x.Floats()
	case "mesh", "lanes", "ring":
		total := fold(x, sum)
		scale := math.Pow(float64(p), 3)
		for j := range total {
			total[j] *= scale
		}
		return everyRank(p, total)
	case "bcast":
		return everyRank(p, s[1])
	case "gather":
		var out []float64
		for range p {
			for q := range p {
				out = append(out, s[q]...)
			}
		}
		return out
	case "swap", "swapv": // all_to_all_v with one row to every peer
		size := len(s[0]) / p
		var out []float64
		for r := range p {
			for q := range p {
				out = append(out, rowOf(s[q], r, size)...)
			}
		}
		return out
	case "scatter":
		// Each call adds the peers' (unchanged) row r into rank r's row r.
		size := len(s[0]) / p
		var out []float64
		for r := range p {
			for k := range p {
				row := append([]float64(nil), rowOf(s[r], k, size)...)
				if k == r {
					for j := range row {
						peers := 0.0
						for q := range p {
							if q != r {
								peers += rowOf(s[q], r, size)[j]
							}
						}
						row[j] += 4 * peers
					}
				}
				out = append(out, row...)
			}
		}
		return out
	}
	panic("no golden for " + name)
}
