package check

import (
	"context"
	"fmt"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/npu"
	"pldworkbench/kernels"
)

// Export exports a program as `workbench export` and the server's export
// do: with the golden of kernel's entry attached when the course has one
// (kernel is the file's name without .py; a learner's copy of a step
// passes the step's kernel), else with the reason there is none.
func Export(ctx context.Context, kernel, file string, src []byte, opts engine.ExportOptions) (*engine.ExportResult, error) {
	mod := engine.Load(ctx, file, src, opts.Options)
	if opts.Entry == "" {
		// The module's default entry: its golden is attached.
		prog, diags := mod.Compile(ctx, "", opts.Options)
		switch {
		case prog.Internal != nil && prog.Entry == "":
			return nil, prog.Internal
		case prog.Entry == "":
			return nil, diags // with no default entry, its coded E0412
		}
		opts.Entry = prog.Entry
	}
	attach := func(p int) {
		g, prose, reason, ok := ExportGolden(kernel, opts.Entry, p)
		opts.Golden, opts.NoGolden = nil, reason
		if ok {
			opts.Golden = &npu.Golden{Code: g.Code, Exact: g.Exact, Prose: prose}
		}
	}
	p := opts.Ranks
	if p == 0 {
		p = limits.DefaultRanks
	}
	attach(p)
	res, err := mod.Export(ctx, opts)
	if err == nil && res.Script != nil && res.Ranks != p {
		// The rank count was the one the host's tensors pin: look the
		// golden up again at it.
		attach(res.Ranks)
		res, err = mod.Export(ctx, opts)
	}
	return res, err
}

// GoldenPy is the golden of one entry written in Python for an exported
// script (engine/npu): Code defines golden(p, inp) over npu.GoldenPrelude's
// helpers. goldens_py has one for every golden in golden.go, the same
// facts in the other language; TestGoldenPyAgrees runs both on the same
// inputs and requires the same values.
type GoldenPy struct {
	Code  string
	Exact bool
}

// GoldenPyOf returns the Python golden of a kernel's entry, entry as
// written in its header ("{P}" unexpanded).
func GoldenPyOf(kernel, entry string) (GoldenPy, bool) {
	key, ok := goldenKey(kernel, entry)
	if !ok {
		return GoldenPy{}, false
	}
	code, ok := goldensPy[key]
	return GoldenPy{Code: code, Exact: goldens[key].Exact}, ok
}

// ExportGolden finds the golden an exported file should carry: the
// kernel's own (a starter is judged by its step's solution), for the entry
// as expanded at p ranks. prose is the kernel header's golden line. ok is
// false with a reason when there is none.
func ExportGolden(kernel, entry string, p int) (g GoldenPy, prose, reason string, ok bool) {
	k, found := kernels.Get(kernel)
	if !found {
		return g, "", fmt.Sprintf("%s is not one of the course's kernels, so the workbench has no golden for it", kernel), false
	}
	if k.IsStarter() {
		if s, ok := StepOf(k.Step()); ok {
			if ref, ok := s.Reference(); ok {
				k = ref
			}
		}
	}
	for _, e := range k.Entries {
		if strings.ReplaceAll(e, "{P}", fmt.Sprint(p)) != entry {
			continue
		}
		g, ok = GoldenPyOf(k.Name, e)
		if !ok {
			return g, "", fmt.Sprintf("%s/%s has no golden in the workbench's checks", k.Name, e), false
		}
		for _, line := range k.Goldens {
			if !strings.Contains(line, ": ") || strings.HasPrefix(line, e+": ") || len(k.Entries) == 1 {
				prose = strings.TrimPrefix(line, e+": ")
				break
			}
		}
		return g, prose, "", true
	}
	return g, "", fmt.Sprintf("entry %s is not one the course checks %s at", entry, k.Name), false
}

// Python fragments shared by several goldens.
var (
	pyAllreduce = "golden = _pld_allreduce_sum\n"
	pyShift     = func(src string) string {
		return "def golden(p, inp):\n    return {\"y\": _pld_from_rank(inp[\"x\"], lambda r: " + src + ")}\n"
	}
	pyRightTwice = "def golden(p, inp):\n    right = lambda r: (r + 1) % p\n" +
		"    return {\"first\": _pld_from_rank(inp[\"x\"], right), \"second\": _pld_from_rank(inp[\"z\"], right)}\n"
	pyHello       = "def golden(p, inp):\n    return {\"y\": _pld_map_rows(inp[\"x\"], lambda r, row: [v + r for v in row])}\n"
	pyThreeLevels = "def golden(p, inp):\n    return {\"y\": _pld_map_rows(inp[\"x\"], lambda r, row: [v * (r + 1) for v in row])}\n"
	pyBroadcast   = pyShift(fmt.Sprint(broadcastRoot))
	pyGather      = "def golden(p, inp):\n    return {\"y\": _pld_gather(inp[\"x\"])}\n"
	pyScatter     = "def golden(p, inp):\n    return {\"y\": _pld_reduce_scatter(inp[\"x\"])}\n"
	pyAllToAll    = "def golden(p, inp):\n    return {\"y\": _pld_transpose01(inp[\"x\"])}\n"
	pyPipeline    = fmt.Sprintf(`def golden(p, inp):
    x, w = inp["x"], _pld_row(inp["w"], %d)
    total, n = _pld_sum_rows(x), len(w)
    scaled = _pld_map_rows(x, lambda r, row: [a * b for a, b in zip(total, w)])
    table = ([_pld_f32(_pld_at(x, s, 0, j) + w[j]) for r in range(p) for s in range(p) for j in range(n)], (p, p, n))
    return {"scaled": scaled, "table": table}
`, pipelineRoot)
	pyReusedTwice = func(rows, cols string, tally bool) string {
		s := "def golden(p, inp):\n    x = inp[\"x\"]\n    total = _pld_sum_rows(x)\n" +
			"    squares = _pld_sum_rows(x, lambda v: _pld_f32(v * v))\n" +
			"    want = {\"first\": _pld_map_rows(x, lambda r, row: total), \"second\": _pld_map_rows(x, lambda r, row: squares)}\n"
		if tally {
			s += "    want[\"tally\"] = _pld_zeros(p, " + rows + ", " + cols + ")\n"
		}
		return s + "    return want\n"
	}
)

// goldensPy holds the Python twin of every entry of goldens.
var goldensPy = map[string]string{
	"01_hello_rank/hello_rank":             pyHello,
	"02_three_levels/three_levels":         pyThreeLevels,
	"03_window_roundtrip/window_roundtrip": "def golden(p, inp):\n    return {\"y\": inp[\"x\"]}\n",
	"04_barrier_hand/barrier_tally": "def golden(p, inp):\n" +
		"    return {\"tally\": ([0 if i == r else 1 for r in range(p) for i in range(p)], (p, p, 1))}\n",
	"05_remote_load_store/shift_by_load":                              pyShift("(r + 1) % p"),
	"05_remote_load_store/shift_by_store":                             pyShift("(r + 1) % p"),
	"06_put_get/pass_by_put":                                          pyShift("(r - 1 + p) % p"),
	"06_put_get/pass_by_get":                                          pyShift("(r - 1 + p) % p"),
	"07_dynamic_rank_count/across_by_put":                             pyShift("(r - p // 2 + p) % p"),
	"07_dynamic_rank_count/across_by_get":                             pyShift("(r + p // 2) % p"),
	"08_allreduce_mesh/mesh_allreduce":                                pyAllreduce,
	"09_allreduce_two_phase/build_two_phase_allreduce({P}).two_phase": pyAllreduce,
	"10_allreduce_ring/build_ring_allreduce({P}).ring_allreduce":      pyAllreduce,
	"12_broadcast_hand/broadcast_hand":                                pyBroadcast,
	"13_allgather_hand/allgather_hand":                                pyGather,
	"14_reduce_scatter_hand/reduce_scatter_pull":                      pyScatter,
	"14_reduce_scatter_hand/reduce_scatter_push":                      pyScatter,
	"15_all_to_all_hand/all_to_all_push":                              pyAllToAll,
	"15_all_to_all_hand/all_to_all_pull":                              pyAllToAll,

	"03_window_roundtrip_bug/peek_right":                       pyShift("(r + 1) % p"),
	"04_barrier_bug/barrier_twice":                             pyRightTwice,
	"11_allreduce_reveal_bug/build_ring_reveal({P}).allreduce": pyAllreduce,
	"15_all_to_all_bug/all_to_all_aliased":                     pyAllToAll,
	"18_three_ways_bug/build_host_allreduce({P}).host_builtin": pyAllreduce,

	"20_debugging_lab/count_with_set": pyRightTwice,
	"20_debugging_lab/reduce_twice":   pyReusedTwice("1", "1", false),
	"20_debugging_lab/sum_in_turn":    pyAllreduce,

	"04_barrier_builtin/barrier_then_read": "def golden(p, inp):\n" +
		"    return {\"y\": _pld_from_rank(inp[\"x\"], lambda r: (r + p - 1) % p), \"tally\": _pld_zeros(p, p, 1)}\n",
	"05_remote_load_store_builtin/shift_by_load":                                 pyShift("(r + 1) % p"),
	"05_remote_load_store_builtin/shift_by_store":                                pyShift("(r + 1) % p"),
	`11_allreduce_reveal/build_allreduce_reveal({P}, "mesh", "sum").allreduce`:   pyAllreduce,
	`11_allreduce_reveal/build_allreduce_reveal({P}, "ring", "sum").allreduce`:   pyAllreduce,
	`11_allreduce_reveal/build_allreduce_reveal({P}, "mesh", "max").allreduce`:   "golden = _pld_allreduce_with(max)\n",
	`11_allreduce_reveal/build_allreduce_reveal({P}, "ring", "min").allreduce`:   "golden = _pld_allreduce_with(min)\n",
	"12_broadcast_builtin/broadcast_builtin":                                     pyBroadcast,
	"13_allgather_builtin/build_allgather({P}).allgather_builtin":                pyGather,
	"14_reduce_scatter_builtin/build_reduce_scatter({P}).reduce_scatter_builtin": pyScatter,
	"15_all_to_all_builtin/build_all_to_all({P}).all_to_all_builtin":             pyAllToAll,
	"16_putting_it_together/build_pipeline({P}).pipeline":                        pyPipeline,
	"17_many_cores/build_many_cores({P}).with_lanes":                             pyAllreduce,
	"18_three_ways/build_three_ways({P}).hand_rolled":                            pyAllreduce,
	"18_three_ways/build_three_ways({P}).incore_builtin":                         pyAllreduce,
	"18_three_ways/build_three_ways({P}).host_builtin":                           pyAllreduce,
	`19_mesh_or_ring/build_allreduce({P}, 1024, "mesh").run`:                     pyAllreduce,
	`19_mesh_or_ring/build_allreduce({P}, 1024, "ring").run`:                     pyAllreduce,
	"20_signal_reuse/build_signal_reuse({P}).twice_in_kernel":                    pyReusedTwice("p", "1", true),
	`20_signal_reuse/build_signal_reuse({P}, "ring").twice_in_kernel`:            pyReusedTwice("2 * (p - 1)", "p", true),
	"20_signal_reuse/build_signal_reuse({P}).twice_on_host": "def golden(p, inp):\n    right = lambda r: (r + 1) % p\n" +
		"    return {\"first\": _pld_from_rank(inp[\"x\"], right), \"second\": _pld_from_rank(inp[\"z\"], right), \"tally\": _pld_zeros(p, 1, p)}\n",
}
