package emu_test

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
)

// The scaling table: how far the emulator goes on this machine. Every
// point runs in a child process (this test binary, re-executed), so its
// peak memory is the child's maximum resident set, what `/usr/bin/time -v`
// reports, with nothing left over from an earlier point:
//
//	go test ./engine/emu/ -run '^$' -bench Scale -benchtime 3x -timeout 60m
//	go test ./engine/emu/ -run '^$' -bench Scale -benchtime 3x -timeout 60m -scale.readme
//
// The second form also rewrites the table in the README. -scale.max P
// leaves out the points above P ranks. Each point runs b.N times (3 in
// the commands above), each in a child of its own, with the race
// detector on and with it off, under the run's default
// 10 s wall clock and the command line's run steps; "run-s" is the median of the children's run times (compiling
// not included), "peak-MiB" the highest child's peak, and "B/elem-over-data" the
// peak beyond the data itself (x, y and the window, 12 bytes an element)
// per element of P × size.
var (
	scaleReadme = flag.Bool("scale.readme", false, "rewrite the README's scaling table from BenchmarkScale's results")
	scaleMax    = flag.Int("scale.max", 1<<20, "leave out the BenchmarkScale points above this many ranks")
)

// scalePoint is one workload at P ranks and size FP32 elements per rank.
type scalePoint struct {
	work string // barrier, mesh, ring, host
	p    int
	size int // 0 for the barrier
}

func (sp scalePoint) name() string {
	if sp.work == "barrier" {
		return fmt.Sprintf("%s/P=%d", sp.work, sp.p)
	}
	return fmt.Sprintf("%s/P=%d/size=%s", sp.work, sp.p, sizeText(sp.size))
}

// scalePoints is the grid, P = 8 … 4096 and 1 Ki … 16 Mi FP32 per rank,
// without the points that obviously do not fit (scaleFits).
func scalePoints() []scalePoint {
	var out []scalePoint
	for _, work := range []string{"barrier", "mesh", "ring", "host"} {
		for _, p := range []int{8, 16, 64, 256, 1024, 4096} {
			if p == 16 && work != "host" {
				continue
			}
			if work == "barrier" {
				out = append(out, scalePoint{work, p, 0})
				continue
			}
			for _, size := range []int{1 << 10, 1 << 16, 1 << 20, 1 << 24} {
				if sp := (scalePoint{work, p, size}); scaleFits(sp) {
					out = append(out, sp)
				}
			}
		}
	}
	return out
}

// scaleFits is the pruning rule the README states: the data (x, y and the
// window, 12 bytes per element) within 1.5 GiB, so P × size ≤ 2^27; the
// mesh and HOST all-reduce, whose every rank reads every peer's slice,
// within 2^30 element additions (P² × size); the ring's signal window of
// 2(P−1) × P INT32 per rank (8·P³ bytes in all) within 1 GiB, so P ≤ 512;
// the HOST all-reduce at 16 ranks at most, all its prebuilt kernels take
// (the checker's E0262).
func scaleFits(sp scalePoint) bool {
	p, n := int64(sp.p), int64(sp.size)
	if p*n > 1<<27 {
		return false
	}
	switch sp.work {
	case "host":
		return p <= 16
	case "mesh":
		return p*p*n <= 1<<30
	case "ring":
		return 8*p*p*p <= 1<<30
	}
	return true
}

// program compiles and lowers the point's program.
func (sp scalePoint) program(tb testing.TB) *ir.Program {
	width := min(sp.size, 4096)
	var prog *ir.Program
	switch sp.work {
	case "barrier":
		prog = compileFile(tb, "testdata/bench.py", fmt.Sprintf("build_bench_barrier(%d).barrier_host", sp.p), sp.p)
	case "mesh":
		prog = compileFile(tb, "testdata/bench.py", fmt.Sprintf("build_bench_mesh(%d, %d, %d).mesh_host", sp.p, sp.size, width), sp.p)
	case "host":
		prog = compileFile(tb, "testdata/bench.py", fmt.Sprintf("build_bench_host(%d, %d, %d).host_host", sp.p, sp.size, width), sp.p)
	case "ring":
		prog = compileFile(tb, "../../kernels/19_mesh_or_ring.py", fmt.Sprintf("build_allreduce(%d, %d, \"ring\").run", sp.p, sp.size), sp.p)
	default:
		tb.Fatalf("unknown workload %q", sp.work)
	}
	low, err := lower.LowerContext(context.Background(), prog, "")
	if err != nil {
		tb.Fatalf("%s: lowering: %v", sp.name(), err)
	}
	return low
}

// scaleResult is one point in one mode, as the child measured it.
type scaleResult struct {
	status string
	runS   float64 // median run time, seconds
	peak   int64   // the child's peak resident set, bytes
}

const scaleChildEnv = "PLD_SCALE_CHILD"

func BenchmarkScale(b *testing.B) {
	results := map[string]scaleResult{}
	var points []scalePoint
	for _, sp := range scalePoints() {
		if sp.p > *scaleMax {
			continue
		}
		points = append(points, sp)
		for _, races := range []bool{true, false} {
			key := sp.name() + "/races=" + onOff(races)
			b.Run(key, func(b *testing.B) {
				// b.N children, one run each (a loop of b.N children of
				// b.N runs ran it b.N² times, and a child's later runs
				// met its earlier runs' garbage: three in one process
				// peaked at twice one's): the median time, the highest
				// peak, the last status.
				var r scaleResult
				var times []float64
				for i := 0; i < b.N; i++ {
					c := runScaleChild(b, sp, races, 1)
					times = append(times, c.runS)
					r.status, r.peak = c.status, max(r.peak, c.peak)
				}
				slices.Sort(times)
				r.runS = times[len(times)/2]
				results[key] = r
				b.ReportMetric(r.runS, "run-s")
				b.ReportMetric(float64(r.peak)/(1<<20), "peak-MiB")
				if sp.size > 0 {
					// The acceptance's memory per element of run data: the
					// peak beyond the data itself (x, y and the window, 12
					// bytes an element), per element (P × size).
					elems := float64(sp.p) * float64(sp.size)
					b.ReportMetric((float64(r.peak)-12*elems)/elems, "B/elem-over-data")
				}
				if r.status != string(emu.StatusOK) {
					b.Logf("%s: %s", key, r.status)
				}
			})
		}
	}
	if *scaleReadme {
		if err := writeScaleTable("../../README.md", points, results); err != nil {
			b.Fatal(err)
		}
	}
}

// runScaleChild runs one point in a fresh process, runs times.
func runScaleChild(b *testing.B, sp scalePoint, races bool, runs int) scaleResult {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestScaleChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d,%t,%d", scaleChildEnv, sp.work, sp.p, sp.size, races, min(runs, 5)))
	out, err := cmd.CombinedOutput()
	r := scaleResult{status: "failed"}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peak = int64(ru.Maxrss) << 10 // kilobytes on Linux
	}
	// The child's rusage peak is no less than this process's at the fork:
	// os/exec starts the child on this process's address space (vfork),
	// and Linux carries that space's high-water mark over the exec. After
	// a large run here (BenchmarkRaceScale matches -bench Scale too) every
	// point read as that run's peak, so the child reports its own VmHWM,
	// which belongs to the address space the exec made.
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "scale-peak-kB: "); ok {
			if kb, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64); err == nil {
				r.peak = kb << 10
			}
		}
	}
	if err != nil {
		b.Logf("%s: child: %v\n%s", sp.name(), err, out)
		return r
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "scale: "); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				r.status = f[0]
				r.runS, _ = strconv.ParseFloat(f[1], 64)
			}
		}
	}
	return r
}

// TestScaleChild is BenchmarkScale's child: it runs the point its
// environment names and prints the status and the median run time. It does
// nothing in a normal test run.
func TestScaleChild(t *testing.T) {
	spec := os.Getenv(scaleChildEnv)
	if spec == "" {
		t.Skip("BenchmarkScale's child only")
	}
	f := strings.Split(spec, ",")
	p, _ := strconv.Atoi(f[1])
	size, _ := strconv.Atoi(f[2])
	races := f[3] == "true"
	runs, _ := strconv.Atoi(f[4])
	sp := scalePoint{f[0], p, size}
	prog := sp.program(t)
	status, times := runScalePoint(t, sp, prog, races, max(runs, 1))
	slices.Sort(times)
	fmt.Printf("scale: %s %.4f\n", status, times[len(times)/2].Seconds())
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(st), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				fmt.Printf("scale-peak-kB: %s\n", strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			}
		}
	}
}

// runScalePoint runs prog runs times and returns the last status and the
// run times.
func runScalePoint(t testing.TB, sp scalePoint, prog *ir.Program, races bool, runs int) (string, []time.Duration) {
	// The inputs are made as FP32 bytes, element i = i mod 1024, with no
	// float64 copy on the way: the child's peak is the run's.
	in := map[string]*emu.Tensor{}
	for _, p := range emu.HostParams(prog) {
		if p.Scalar || p.Dir == ir.Out || p.DType != ir.FP32 {
			continue
		}
		n := 1
		for _, d := range p.Shape {
			n *= d
		}
		b := make([]byte, 4*n)
		for i := range n {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(i%1024)))
		}
		in[p.Name] = emu.NewTensorBytes(p.DType, p.Shape, b)
	}
	var times []time.Duration
	status := ""
	for range runs {
		start := time.Now()
		// The command line's budget: its run steps, the default clock.
		res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, NoRaces: !races, MaxSteps: limits.CLIRunSteps})
		times = append(times, time.Since(start))
		status = string(res.Status)
		if res.Error != nil && res.Status == emu.StatusRuntimeError {
			status = res.Error.Code // E0504 steps, E0516 memory, ...
		}
		if res.Status != emu.StatusOK {
			break
		}
	}
	return status, times
}

// TestScaleSmoke keeps the table's programs honest at its smallest points:
// each workload at P = 8 and 1 Ki per rank runs to ok, and the pruning
// keeps the acceptance points (mesh P = 8 at 16 Mi, barrier P = 4096).
func TestScaleSmoke(t *testing.T) {
	for _, work := range []string{"barrier", "mesh", "ring", "host"} {
		sp := scalePoint{work, 8, 1 << 10}
		if work == "barrier" {
			sp.size = 0
		}
		if status, _ := runScalePoint(t, sp, sp.program(t), true, 1); status != string(emu.StatusOK) {
			t.Errorf("%s: status %s", sp.name(), status)
		}
	}
	pts := scalePoints()
	for _, want := range []scalePoint{{"mesh", 8, 1 << 24}, {"barrier", 4096, 0}, {"ring", 256, 1 << 10}} {
		if !slices.Contains(pts, want) {
			t.Errorf("the grid lacks %s", want.name())
		}
	}
	if slices.Contains(pts, scalePoint{"ring", 1024, 1 << 10}) {
		t.Errorf("the grid keeps the ring at P=1024, whose signal windows are 8 GiB")
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMi", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKi", n>>10)
	}
	return strconv.Itoa(n)
}

// The markers around the generated table in the README.
const (
	scaleBegin = "<!-- scaling table: generated by go test ./engine/emu/ -run '^$' -bench Scale -benchtime 3x -timeout 60m -scale.readme -->"
	scaleEnd   = "<!-- end of scaling table -->"
)

// writeScaleTable puts the table of results between the README's markers.
func writeScaleTable(path string, points []scalePoint, results map[string]scaleResult) error {
	var b strings.Builder
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(&b, "Load average when the table was made: %s (2 cores).\n\n", strings.Join(strings.Fields(string(load))[:3], ", "))
	}
	b.WriteString("| workload | P | FP32 per rank | race detection on: time, peak | off: time, peak |\n")
	b.WriteString("|---|---|---|---|---|\n")
	cell := func(r scaleResult, ok bool) string {
		if !ok {
			return "—"
		}
		mib := fmt.Sprintf("%d MiB", (r.peak+(1<<19))>>20)
		if r.status != string(emu.StatusOK) {
			return fmt.Sprintf("%s (%s)", r.status, mib)
		}
		return fmt.Sprintf("%s, %s", secs(r.runS), mib)
	}
	for _, sp := range points {
		size := "—"
		if sp.size > 0 {
			size = sizeText(sp.size)
		}
		on, okOn := results[sp.name()+"/races=on"]
		off, okOff := results[sp.name()+"/races=off"]
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", sp.work, sp.p, size, cell(on, okOn), cell(off, okOff))
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(src)
	i, j := strings.Index(text, scaleBegin), strings.Index(text, scaleEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s lacks the scaling table's markers", path)
	}
	text = text[:i+len(scaleBegin)] + "\n" + b.String() + text[j:]
	return os.WriteFile(path, []byte(text), 0o644)
}

func secs(s float64) string {
	if s < 0.01 {
		return fmt.Sprintf("%.1f ms", s*1000)
	}
	if s < 1 {
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}
