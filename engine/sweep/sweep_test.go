package sweep_test

import (
	"context"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/sweep"
	"pldworkbench/engine/trace"
)

func readKernel(t *testing.T, path string) []byte {
	t.Helper()
	src, err := os.ReadFile("../../kernels/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func sweepKernel(t *testing.T, path string, opts sweep.Options) *sweep.Result {
	t.Helper()
	res, err := sweep.Run(context.Background(), loadModule(path, readKernel(t, path)), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Status != "" {
			t.Fatalf("%s P=%d %d bytes: %s: %s", r.Variant, r.Ranks, r.Bytes, r.Status, r.Error)
		}
	}
	return res
}

func row(t *testing.T, res *sweep.Result, variant string, p int, bytes int64) sweep.Row {
	t.Helper()
	for _, r := range res.Rows {
		if r.Variant == variant && r.Ranks == p && r.Bytes == bytes {
			return r
		}
	}
	t.Fatalf("no row %s P=%d %d bytes", variant, p, bytes)
	return sweep.Row{}
}

// TestSweepMeshOrRing: at P=8 on the 910B profile the builtin mesh
// all-reduce beats the ring on small payloads and the ring beats the mesh
// on large ones, with exactly one crossover, which the sweep reports. Up
// to 2 MiB keeps the test quick; beyond the crossover both variants have
// reached their bandwidth plateau (checked below), so their times grow in
// proportion and cannot cross again. `workbench sweep 19 --ranks 8` shows
// the same up to 16 MiB.
func TestSweepMeshOrRing(t *testing.T) {
	sizes, _ := sweep.ParseSizes("1K:2M")
	res := sweepKernel(t, "19_mesh_or_ring.py", sweep.Options{Ranks: []int{8}, Sizes: sizes})
	if res.Collective != "allreduce" || res.DType != "FP32" || res.Platform != "910B" || res.LinkGBs != 18.6 {
		t.Errorf("sweep of %s %s on %s with B_link %.1f, want allreduce FP32 on 910B with 18.6", res.Collective, res.DType, res.Platform, res.LinkGBs)
	}
	if len(res.Crossovers) != 1 {
		t.Fatalf("crossovers = %+v, want exactly one", res.Crossovers)
	}
	c := res.Crossovers[0]
	if c.Ranks != 8 || c.Below != "mesh" || c.Above != "ring" || c.AboveBytes != 2*c.BelowBytes || c.NearBytes <= c.BelowBytes || c.NearBytes >= c.AboveBytes {
		t.Errorf("crossover = %+v, want mesh below, ring above, near between two adjacent sizes", c)
	}
	small, large := sizes[0], sizes[len(sizes)-1]
	if m, r := row(t, res, "mesh", 8, small), row(t, res, "ring", 8, small); m.SimTimeNs >= r.SimTimeNs {
		t.Errorf("%d bytes: mesh %d ns, ring %d ns: want mesh faster", small, m.SimTimeNs, r.SimTimeNs)
	}
	if m, r := row(t, res, "mesh", 8, large), row(t, res, "ring", 8, large); r.SimTimeNs >= m.SimTimeNs {
		t.Errorf("%d bytes: mesh %d ns, ring %d ns: want ring faster", large, m.SimTimeNs, r.SimTimeNs)
	}
	for _, v := range []string{"mesh", "ring"} {
		a, b := row(t, res, v, 8, large/2), row(t, res, v, 8, large)
		if math.Abs(b.AlgBW-a.AlgBW) > 0.02*b.AlgBW {
			t.Errorf("%s: algbw %.3f at %d bytes, %.3f at %d: not on its plateau", v, a.AlgBW, a.Bytes, b.AlgBW, b.Bytes)
		}
	}
	t.Logf("%s", res.CrossoverLine(8))
}

// TestSweepAllgatherLinkRate: the builtin all-gather of 16 MiB at P=8
// moves data over every link it uses at a rate within 25% of the measured
// 910B per-link figure, 18.6 GB/s (perf-anchors §3.3). One AI core issues
// the puts one after another, so the bus bandwidth is one link's worth too
// and link_eff is about 1/7.
func TestSweepAllgatherLinkRate(t *testing.T) {
	const p, bytes, perLink = 8, 16 << 20, 18.6
	src := readKernel(t, "sweep/allgather.py")
	vs, _, _, err := sweep.Header(src)
	if err != nil || len(vs) != 1 {
		t.Fatalf("sweep header: %v, %v", vs, err)
	}
	entry := strings.NewReplacer("{P}", "8", "{SIZE}", strconv.Itoa(bytes/4)).Replace(vs[0].Entry)
	prog, diags := loadModule("allgather.py", src).Compile(context.Background(), entry, engine.Options{Ranks: p})
	if diags.HasErrors() || !prog.OK() {
		t.Fatalf("compile: %v", diags)
	}
	// The per-link rate: bytes each directed link carried over the time it
	// carried them.
	type link struct{ src, dst int }
	carried := map[link]int64{}
	busy := map[link][][2]int64{}
	sink := func(e trace.Event) {
		if e.Op == "pld.tensor.put" && e.Peer != nil && *e.Peer != e.Rank {
			l := link{e.Rank, *e.Peer}
			carried[l] += e.Bytes
			busy[l] = append(busy[l], [2]int64{e.StartNs, e.EndNs})
		}
	}
	out := prog.Run(context.Background(), engine.RunOptions{Fill: emu.FillZeros, NoRaces: true, OnEvent: sink})
	if out.Status != emu.StatusOK {
		t.Fatalf("run: %s %v", out.Status, out.Error)
	}
	if len(carried) != p*(p-1) {
		t.Fatalf("%d links carried data, want all %d", len(carried), p*(p-1))
	}
	lo, hi := math.Inf(1), 0.0
	for l, b := range carried {
		rate := float64(b) / float64(union(busy[l]))
		lo, hi = min(lo, rate), max(hi, rate)
	}
	if lo < 0.75*perLink || hi > 1.25*perLink {
		t.Errorf("per-link rates %.2f..%.2f GB/s, want within 25%% of %.1f", lo, hi, perLink)
	}
	// nccl-tests' busbw, as the sweep computes it: one link's worth.
	factor, _ := sweep.BusFactor("allgather", p)
	busbw := float64(bytes) / float64(out.Stats.SimTimeNs) * factor
	if math.Abs(busbw-perLink) > 0.25*perLink {
		t.Errorf("busbw %.2f GB/s, want within 25%% of %.1f", busbw, perLink)
	}
	t.Logf("busbw %.2f GB/s, link_eff %.3f, per-link %.2f..%.2f GB/s", busbw, busbw/(p-1)/perLink, lo, hi)
}

// union is the total length of a set of intervals.
func union(iv [][2]int64) int64 {
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	var total, end int64 = 0, math.MinInt64
	for _, x := range iv {
		if x[0] > end {
			total += x[1] - x[0]
			end = x[1]
		} else if x[1] > end {
			total += x[1] - end
			end = x[1]
		}
	}
	return total
}

// TestSweepHostCores: the HOST all-reduce of 16 MiB gets faster with every
// step of core_num from 1 to 4. P=2 keeps the test to a few seconds; at
// P=8 the sweep shows the same (80.5, 40.3, 20.2 ms here).
func TestSweepHostCores(t *testing.T) {
	const bytes = 16 << 20
	opts := sweep.Options{Ranks: []int{2}, Sizes: []int64{bytes}, Variants: []sweep.Variant{
		{Name: "cores1", Entry: "build_host_allreduce({P}, {SIZE}, 1).run"},
		{Name: "cores2", Entry: "build_host_allreduce({P}, {SIZE}, 2).run"},
		{Name: "cores4", Entry: "build_host_allreduce({P}, {SIZE}, 4).run"},
	}}
	res := sweepKernel(t, "sweep/host_cores.py", opts)
	var times []int64
	for _, v := range opts.Variants {
		times = append(times, row(t, res, v.Name, 2, bytes).SimTimeNs)
	}
	t.Logf("core_num 1, 2, 4: %v ns", times)
	if !(times[0] > times[1] && times[1] > times[2]) {
		t.Errorf("core_num 1, 2, 4 take %v ns: want each faster than the last", times)
	}
	if len(res.Crossovers) != 0 || res.CrossoverLine(2) != "2 ranks: cores4 fastest at every size (no crossover)" {
		t.Errorf("crossover line %q", res.CrossoverLine(2))
	}
}

func TestSweepHeader(t *testing.T) {
	src := []byte("#! entry: x\n#! sweep: mesh build({P}, {SIZE}, \"mesh\").run\n  #! sweep: ring build({P}, {SIZE}).run\n#! sweep-op: allreduce FP16\n")
	vs, coll, dt, err := sweep.Header(src)
	if err != nil || coll != "allreduce" || dt != "FP16" || len(vs) != 2 || vs[0].Name != "mesh" || vs[1].Entry != "build({P}, {SIZE}).run" {
		t.Errorf("SweepHeader = %+v, %q, %q, %v", vs, coll, dt, err)
	}
	for _, bad := range []string{"#! sweep: build({P})\n", "#! sweep: 9x build()\n", "#! sweep-op:\n"} {
		if _, _, _, err := sweep.Header([]byte(bad)); err == nil {
			t.Errorf("SweepHeader(%q) succeeded", bad)
		}
	}
	if _, err := sweep.Run(context.Background(), loadModule("none.py", []byte("x = 1\n")), sweep.Options{Ranks: []int{2}, Sizes: []int64{1024}}); err == nil {
		t.Error("a file without sweep lines swept")
	}
}

func TestParseSizes(t *testing.T) {
	got, err := sweep.ParseSizes("1K:16K")
	if want := []int64{1024, 2048, 4096, 8192, 16384}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseSizes(1K:16K) = %v, %v; want %v", got, err, want)
	}
	if got, err := sweep.ParseSizes("3M"); err != nil || !slices.Equal(got, []int64{3 << 20}) {
		t.Errorf("ParseSizes(3M) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "16M:1K", "x:1K", "0", "-4K"} {
		if _, err := sweep.ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q) succeeded", bad)
		}
	}
	for b, want := range map[int64]string{1024: "1K", 3 << 20: "3M", 1 << 30: "1G", 1000: "1000", 49562: "48.4K"} {
		if got := sweep.FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}

// TestBusFactor: the nccl-tests factors (perf-anchors §2.1) at 8 ranks.
func TestBusFactor(t *testing.T) {
	for coll, want := range map[string]float64{"allreduce": 1.75, "allgather": 0.875, "reduce_scatter": 0.875, "all_to_all": 0.875, "broadcast": 1} {
		if got, ok := sweep.BusFactor(coll, 8); !ok || got != want {
			t.Errorf("BusFactor(%s, 8) = %v, %v; want %v", coll, got, ok, want)
		}
	}
	if _, ok := sweep.BusFactor("barrier", 8); ok {
		t.Error("a barrier has a bus-bandwidth factor")
	}
}

// loadModule loads src as name under the default budget.
func loadModule(name string, src []byte) *engine.Module {
	m := engine.Load(context.Background(), name, src, engine.Options{})
	return m
}
