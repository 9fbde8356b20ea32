package emu_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
)

// upstreamRuns lists the upstream tutorial programs that use no builtin
// collective, the rank counts to run them at, and their goldens (pld-spec
// §6) for index-filled inputs. The programs are not part of the
// repository: set PLD_UPSTREAM to the directory holding
// 01_hello_rank.py ... 16_putting_it_together.py.
var upstreamRuns = []struct {
	file, entry string // entry: %d is the rank count
	ranks       []int
	golden      golden
}{
	{"01_hello_rank.py", "hello_rank", []int{2}, func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"y": perRank(P, func(r int) []float64 {
			return mapRow(in["x"].Row(r), func(_ int, v float64) float64 { return f32(v + float64(r)) })
		})}
	}},
	{"02_programming_model.py", "host_orch", []int{2}, func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"y": perRank(P, func(r int) []float64 {
			return mapRow(in["x"].Row(r), func(_ int, v float64) float64 { return f32(v*float64(r) + v) })
		})}
	}},
	{"03_window_buffer.py", "window_program", []int{2}, func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"y": in["x"].Floats()}
	}},
	{"04_barrier.py", "barrier_program_hand", []int{2}, func(P int, _ map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"y": tally(P, nil)["tally"]}
	}},
	{"06_put_get.py", "ring_put", []int{2}, shift(-1)},
	{"06_put_get.py", "ring_get", []int{2}, shift(+1)},
	{"07_dynamic_rank_count.py", "ring_put", []int{2, 3, 4, 8}, shift(-1)},
	{"07_dynamic_rank_count.py", "ring_get", []int{2, 3, 4, 8}, shift(+1)},
	{"08_allreduce_mesh.py", "build_mesh_allreduce(%d).mesh_allreduce", []int{2, 3, 4, 8}, allreduce},
	{"09_allreduce_two_phase.py", "build_two_phase_allreduce(%d).two_phase_allreduce", []int{2, 4, 8}, allreduce},
	{"10_allreduce_ring.py", "build_ring_allreduce(%d).ring_allreduce", []int{2, 4, 8}, allreduce},
	{"12_broadcast.py", "build_broadcast(%d, False).host_orch", []int{2, 3, 4, 8}, func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		return map[string][]float64{"outputs": perRank(P, func(int) []float64 { return in["inputs"].Row(0) })}
	}},
	{"13_allgather.py", "build_allgather(%d, False).host_orch", []int{2, 3, 4, 8}, func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		var all []float64
		for k := 0; k < P; k++ {
			all = append(all, in["inputs"].Row(k)...)
		}
		return map[string][]float64{"outputs": perRank(P, func(int) []float64 { return all })}
	}},
	{"14_reduce_scatter.py", "build_reduce_scatter(%d, False).host_orch", []int{2, 3, 4, 8}, func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		s := sumRows(in["inputs"])
		size := len(s) / P
		return map[string][]float64{"outputs": perRank(P, func(r int) []float64 { return s[r*size : (r+1)*size] })}
	}},
	{"15_all_to_all.py", "build_all_to_all(%d, False).host_orch", []int{2, 3, 4, 8}, func(P int, in map[string]*emu.Tensor) map[string][]float64 {
		x := in["inputs"]
		size := x.Shape[2]
		return map[string][]float64{"outputs": perRank(P, func(r int) []float64 {
			var row []float64
			for s := 0; s < P; s++ {
				row = append(row, x.Floats()[(s*P+r)*size:(s*P+r+1)*size]...)
			}
			return row
		})}
	}},
}

// TestUpstreamPrograms runs the upstream tutorial programs that use no
// builtin collective, unchanged, with index-filled inputs, and compares
// with their goldens. -v prints the table.
func TestUpstreamPrograms(t *testing.T) {
	dir := os.Getenv("PLD_UPSTREAM")
	if dir == "" {
		t.Skip("set PLD_UPSTREAM to the directory of the upstream tutorial programs")
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-26s %-52s %-3s %-6s %8s %8s %10s\n", "program", "entry", "P", "status", "notifies", "waits", "sim_ns")
	for _, u := range upstreamRuns {
		src, err := readTutorial(dir, u.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, P := range u.ranks {
			entry := u.entry
			if strings.Contains(entry, "%d") {
				entry = fmt.Sprintf(entry, P)
			}
			prog := compile(t, u.file, string(src), entry, P)
			in := fill(prog, "index", 0)
			res := run(t, prog, in)
			status := string(res.Status)
			if res.Status == emu.StatusOK {
				for name, want := range u.golden(P, in) {
					if i, ok := allclose(res.Outputs[name].Floats(), want, 1e-5, 1e-5); !ok {
						status = "WRONG"
						t.Errorf("%s %s P=%d: %s element %d is %v, want %v", u.file, entry, P, name, i, res.Outputs[name].Floats()[i], want[i])
					}
				}
			} else {
				t.Errorf("%s %s P=%d: %s: %v", u.file, entry, P, res.Status, res.Error)
			}
			fmt.Fprintf(&table, "%-26s %-52s %-3d %-6s %8d %8d %10d\n", u.file, entry, P, status, res.Stats.Notifies, res.Stats.Waits, res.Stats.SimTimeNs)
		}
	}
	t.Log(table.String())
}

// upstreamBuiltin lists the upstream entries that call a builtin
// collective: until the lowering lands (issue 4) each must stop with E0508
// naming it.
var upstreamBuiltin = []struct{ file, entry, op string }{
	{"04_barrier.py", "barrier_program_builtin", "pld.tensor.barrier"},
	{"05_remote_load_store.py", "ring_shift_load", "pld.tensor.barrier"},
	{"05_remote_load_store.py", "ring_shift_store", "pld.tensor.barrier"},
	{"11_allreduce_reveal.py", `build_reveal_allreduce(4, "mesh").allreduce_reveal`, "pld.tensor.allreduce"},
	{"11_allreduce_reveal.py", `build_reveal_allreduce(4, "ring").allreduce_reveal`, "pld.tensor.allreduce"},
	{"12_broadcast.py", "build_broadcast(4, True).host_orch", "pld.tensor.broadcast"},
	{"13_allgather.py", "build_allgather(4, True).host_orch", "pld.tensor.allgather"},
	{"14_reduce_scatter.py", "build_reduce_scatter(4, True).host_orch", "pld.tensor.reduce_scatter"},
	{"15_all_to_all.py", "build_all_to_all(4, True).host_orch", "pld.tensor.all_to_all"},
	{"16_putting_it_together.py", "build_compose(4).host_orch", "pld.tensor.broadcast"},
}

func TestUpstreamBuiltins(t *testing.T) {
	dir := os.Getenv("PLD_UPSTREAM")
	if dir == "" {
		t.Skip("set PLD_UPSTREAM to the directory of the upstream tutorial programs")
	}
	for _, u := range upstreamBuiltin {
		src, err := readTutorial(dir, u.file)
		if err != nil {
			t.Fatal(err)
		}
		P := 4
		if !strings.Contains(u.entry, "(") {
			P = 2
		}
		prog := compile(t, u.file, string(src), u.entry, P)
		res := run(t, prog, fill(prog, "index", 0))
		if res.Error == nil || res.Error.Code != "E0508" || !strings.HasPrefix(res.Error.Message, u.op+" is a builtin collective") {
			t.Errorf("%s %s: %s %+v, want E0508 naming %s", u.file, u.entry, res.Status, res.Error, u.op)
		}
	}
}
