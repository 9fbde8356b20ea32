package emu_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
)

// golden computes, in plain Go, what every output of a program must hold
// for inputs in at P ranks.
type golden func(P int, in map[string]*emu.Tensor) map[string][]float64

// perRank builds a [P, ...] output from f(r) giving row r.
func perRank(P int, f func(r int) []float64) []float64 {
	var out []float64
	for r := 0; r < P; r++ {
		out = append(out, f(r)...)
	}
	return out
}

func mapRow(row []float64, f func(j int, v float64) float64) []float64 {
	out := make([]float64, len(row))
	for j, v := range row {
		out[j] = f(j, v)
	}
	return out
}

// sumRows is the element-wise sum over ranks of a [P, ...] tensor.
func sumRows(x *emu.Tensor) []float64 {
	rs := rows(x)
	out := make([]float64, len(rs[0]))
	for _, row := range rs {
		for j, v := range row {
			out[j] += v
		}
	}
	return out
}

func mod(a, p int) int { return ((a % p) + p) % p }

func shift(d int) golden {
	return func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"y": perRank(P, func(r int) []float64 { return in["x"].Row(mod(r+d, P)) })}
	}
}

func allreduce(P int, in map[string]*emu.Tensor) map[string][]float64 {
	s := sumRows(in["x"])
	return map[string][]float64{"y": perRank(P, func(int) []float64 { return s })}
}

func tally(P int, _ map[string]*emu.Tensor) map[string][]float64 {
	return map[string][]float64{"tally": perRank(P, func(r int) []float64 {
		row := make([]float64, P)
		for i := range row {
			if i != r {
				row[i] = 1
			}
		}
		return row
	})}
}

// builtin marks an entry that calls a builtin collective: until the
// lowering lands (issue 4) it must stop with E0508 naming the collective.
var builtin golden

// programGoldens holds, per file of ../testdata/programs and per entry
// (with {P} unexpanded), the golden; nil means a builtin collective.
var programGoldens = map[string]map[string]golden{
	"01_hello_rank.py": {"greet_ranks": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"dst": perRank(P, func(r int) []float64 {
			return mapRow(in["src"].Row(r), func(_ int, v float64) float64 { return f32(v + float64(r)) })
		})}
	}},
	"02_three_levels.py": {"launch_all": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"out": perRank(P, func(r int) []float64 {
			return mapRow(in["inp"].Row(r), func(_ int, v float64) float64 { return f32(2 * f32(v+float64(r))) })
		})}
	}},
	"03_window_roundtrip.py": {"stash_and_return": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"y": in["x"].Floats()}
	}},
	"04_barrier.py":             {"tally_add": tally, "tally_set": tally},
	"05_remote_load_store.py":   {"pull_from_left": builtin, "push_to_left": builtin},
	"06_put_get.py":             {"push_left": shift(+1), "pull_left": shift(-1)},
	"07_dynamic_rank_count.py":  {"pull_next": shift(+1), "barrier_then_get_prev": builtin},
	"08_allreduce_mesh.py":      {"build_mesh_allreduce({P}).mesh_sum": allreduce},
	"09_allreduce_two_phase.py": {"build_two_phase_allreduce({P}).two_phase_sum": allreduce},
	"10_allreduce_ring.py":      {"build_ring_allreduce({P}).ring_sum": allreduce},
	"11_allreduce_reveal.py": {
		`build_reveal_allreduce({P}, "mesh").allreduce_host`: builtin, `build_reveal_allreduce({P}, "ring").allreduce_host`: builtin,
		`build_reveal_allreduce({P}, "mesh", True).allreduce_host`: builtin, `build_reveal_allreduce({P}, "ring", use_max=True).allreduce_host`: builtin,
	},
	"12_broadcast.py": {
		"build_broadcast({P}, False).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			const source = 1
			return map[string][]float64{"out": perRank(P, func(int) []float64 { return in["inp"].Row(source) })}
		},
		"build_broadcast({P}, True).host_orch": builtin,
	},
	"13_allgather.py": {
		"build_allgather({P}, False).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			var all []float64
			for k := 0; k < P; k++ {
				all = append(all, in["inp"].Row(k)...)
			}
			return map[string][]float64{"out": perRank(P, func(int) []float64 { return all })}
		},
		"build_allgather({P}, True).host_orch": builtin,
	},
	"14_reduce_scatter.py": {
		"build_reduce_scatter({P}, False).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			s := sumRows(in["inp"])
			size := len(s) / P
			return map[string][]float64{"out": perRank(P, func(r int) []float64 { return s[r*size : (r+1)*size] })}
		},
		"build_reduce_scatter({P}, True).host_orch": builtin,
	},
	"15_all_to_all.py": {
		"build_all_to_all({P}, False).host_orch": func(P int, in map[string]*emu.Tensor) map[string][]float64 {
			x := in["inp"]
			size := x.Shape[2]
			return map[string][]float64{"out": perRank(P, func(r int) []float64 {
				var row []float64
				for s := 0; s < P; s++ {
					row = append(row, x.Floats()[(s*P+r)*size:(s*P+r+1)*size]...)
				}
				return row
			})}
		},
		"build_all_to_all({P}, True).host_orch": builtin,
	},
	"16_compose.py": {"build_compose({P}).host_orch": builtin},
}

var headerRe = regexp.MustCompile(`(?m)^#! (entry|ranks): (.*)$`)

// TestPrograms runs every program of the engine's corpus at every rank
// count its header lists, with index-filled and seeded random inputs, and
// compares each output with a golden computed here.
func TestPrograms(t *testing.T) {
	files, _ := filepath.Glob("../testdata/programs/*.py")
	if len(files) != len(programGoldens) {
		t.Errorf("%d programs, %d with goldens", len(files), len(programGoldens))
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(path)
		goldens, ok := programGoldens[base]
		if !ok {
			t.Errorf("%s has no goldens here", base)
			continue
		}
		var entries []string
		var ranks []int
		for _, m := range headerRe.FindAllStringSubmatch(string(src), -1) {
			if m[1] == "entry" {
				entries = append(entries, strings.TrimSpace(m[2]))
				continue
			}
			for _, f := range strings.Fields(m[2]) {
				n, _ := strconv.Atoi(f)
				ranks = append(ranks, n)
			}
		}
		for _, entry := range entries {
			g, ok := goldens[entry]
			if !ok {
				t.Errorf("%s: entry %s has no golden here", base, entry)
				continue
			}
			for _, P := range ranks {
				e := strings.ReplaceAll(entry, "{P}", strconv.Itoa(P))
				t.Run(fmt.Sprintf("%s/%s/P=%d", base, e, P), func(t *testing.T) {
					prog := compile(t, path, string(src), e, P)
					for _, how := range []string{"index", "randn"} {
						in := fill(prog, how, uint64(P))
						res := run(t, prog, in)
						if g == nil {
							if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0508" ||
								!contains(res.Error.Message, "builtin collective") {
								t.Fatalf("status %s, error %v: want E0508 naming the builtin collective", res.Status, res.Error)
							}
							continue
						}
						mustOK(t, how, res)
						for name, want := range g(P, in) {
							expectClose(t, how+" "+name, res.Outputs[name], want, 1e-5, 1e-5)
						}
					}
				})
			}
		}
	}
}
