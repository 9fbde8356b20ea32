package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/npu"
	"pldworkbench/engine/trace"
)

// runCompareBackends is `workbench compare FILE --backends emu,pypto`: one
// kernel on the emulator and through PyPTO on the same inputs, the outputs
// compared with the golden's tolerance, and the emulator's modelled time
// beside the measured one.
func runCompareBackends(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef exportFlags
	ef.register(fs)
	backends := fs.String("backends", "emu,pypto", "the two backends: emu,pypto")
	devices := fs.String("devices", "", "comma-separated device ids for PyPTO, one per rank (default 0..P-1)")
	python := fs.String("python", "python3", "the Python that has pypto and torch")
	traceFile := fs.String("trace", "", "write both timelines on one time axis to FILE, a Chrome trace for Perfetto: the emulator's modelled ops, then PyPTO's measured task slices")
	file, exit := parseFileArgs(fs, args, stderr)
	if exit >= 0 {
		return exit
	}
	if *backends != "emu,pypto" && *backends != "pypto,emu" {
		fmt.Fprintf(stderr, "--backends %q: want emu,pypto\n", *backends)
		return 2
	}
	src, ok := readSource(file, stderr)
	if !ok {
		return 2
	}
	res, exit := ef.exportFile(file, src, "exported.inputs.bin", stderr)
	if exit >= 0 {
		return exit
	}
	ids, ok := parseDevices(*devices, res.Ranks, stderr)
	if !ok {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bud := ef.limits.def
	if b, ok := ef.limits.budget(io.Discard); ok {
		bud = b
	}
	profile, _ := npu.Profile(ef.platform)
	fill, _ := emu.ParseFill(ef.fill)
	var col trace.Collector
	eopts := engine.Options{Ranks: res.Ranks, Platform: profile, Budget: bud}
	mod := engine.Load(ctx, file, src, eopts)
	prog, _ := mod.Compile(ctx, res.Entry, eopts)
	emu := prog.Run(ctx, engine.RunOptions{Options: eopts, Fill: fill, Seed: ef.seed, Args: ef.scalars, OnEvent: col.Sink()})
	fmt.Fprintf(stdout, "%s: %s at %s, inputs %s\n", file, res.Entry, ranksText(res.Ranks), ef.fill)
	fmt.Fprintf(stdout, "  emu:   %s, modelled %s (%s cost model)\n", emu.Status, micros(makespan(col.Events)), profile)
	tc := npu.Detect(ctx, npu.DetectOptions{Python: *python})
	if !tc.Usable(ef.platform) {
		fmt.Fprintf(stdout, "  pypto: not run (%s):\n", ef.platform)
		for _, m := range tc.MissingFor(ef.platform) {
			fmt.Fprintf(stdout, "    - %s\n", m)
		}
		return 1
	}
	r, err := npu.Run(ctx, npu.RunSpec{Script: res.Script, Data: res.Data, DataFile: "exported.inputs.bin", Platform: ef.platform,
		Devices: ids, Swimlane: true, Python: tc.Python, Timeout: bud.Timeout, Memory: bud.Memory})
	if err != nil {
		fmt.Fprintf(stderr, "workbench compare: %v\n", err)
		return 1
	}
	if r.Manifest == nil {
		fmt.Fprintf(stdout, "  pypto: %s (exit %d):\n%s\n", r.Status, r.ExitCode, indent(npu.Messages(r.Stderr, res.Script, file)))
		return 1
	}
	measured := makespan(r.Events)
	if *traceFile != "" {
		if err := writeBoth(*traceFile, col.Events, r.Events, fmt.Sprintf("%s at P=%d", res.Entry, res.Ranks), ef.platform); err != nil {
			fmt.Fprintf(stderr, "--trace: %v\n", err)
		}
	}
	fmt.Fprintf(stdout, "  pypto: %s on PyPTO %s (%s), measured %s over %d task slices\n", r.Status, tc.PyPTO, ef.platform, micros(measured), len(r.Events))
	same := true
	names := append([]string(nil), emu.OutputOrder...)
	sort.Strings(names)
	for _, n := range names {
		got, okOut := r.Manifest.Outputs[n]
		want := emu.Out[n].Floats()
		if !okOut || len(got.Data) != len(want) {
			fmt.Fprintf(stdout, "  %s: PyPTO's run has no output of %d values\n", n, len(want))
			same = false
			continue
		}
		bad, first := 0, -1
		for i, w := range want {
			g := got.Data[i]
			if !(math.Abs(g-w) <= 1e-5+1e-5*math.Abs(w)) && !(math.IsNaN(g) && math.IsNaN(w)) {
				bad++
				if first < 0 {
					first = i
				}
			}
		}
		if bad > 0 {
			fmt.Fprintf(stdout, "  %s: %d of %d values differ; flat index %d: emu %g, pypto %g\n", n, bad, len(want), first, want[first], got.Data[first])
			same = false
		} else {
			fmt.Fprintf(stdout, "  %s: the same %d values (|a - b| <= 1e-5 + 1e-5·|a|)\n", n, len(want))
		}
	}
	if measured > 0 {
		fmt.Fprintf(stdout, "  the model says %s, the hardware %s: %.2f× (the emulator models every op; the records time %s)\n",
			micros(makespan(col.Events)), micros(measured), float64(makespan(col.Events))/float64(measured), "tasks")
	} else {
		fmt.Fprintln(stdout, "  no swimlane records came back, so there is no measured time to set the model against")
	}
	if !same || emu.Status != "ok" {
		return 1
	}
	return 0
}

func parseDevices(s string, ranks int, stderr io.Writer) ([]int, bool) {
	if s == "" {
		return nil, true
	}
	var ids []int
	for _, tok := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(tok), &n); err != nil || n < 0 {
			fmt.Fprintf(stderr, "--devices %q: want comma-separated device ids such as 0,1,2,3\n", s)
			return nil, false
		}
		ids = append(ids, n)
	}
	if len(ids) != ranks {
		fmt.Fprintf(stderr, "--devices %s: %d ids for a program checked at %s; give one per rank\n", s, len(ids), ranksText(ranks))
		return nil, false
	}
	return ids, true
}

// makespan is the span from the earliest start to the latest end.
func makespan(events []trace.Event) int64 {
	if len(events) == 0 {
		return 0
	}
	lo, hi := events[0].StartNs, events[0].EndNs
	for _, e := range events {
		lo, hi = min(lo, e.StartNs), max(hi, e.EndNs)
	}
	return hi - lo
}

func micros(ns int64) string { return fmt.Sprintf("%.3f µs", float64(ns)/1e3) }

// writeBoth writes one Chrome trace with two processes on one time axis,
// both starting at 0: pid 1 the emulator's events as its cost model times
// them, pid 2 PyPTO's task slices as the runtime measured them. Each is
// trace.WritePerfetto's own document; the second's pid and flow ids are
// moved clear of the first's.
func writeBoth(path string, emu, hw []trace.Event, title, platform string) error {
	var docs [2]trace.ChromeTrace
	for i, side := range []struct {
		events []trace.Event
		title  string
	}{{emu, title + " on the emulator (modelled)"}, {hw, title + " on PyPTO " + platform + " (measured tasks)"}} {
		var b bytes.Buffer
		if err := trace.WritePerfetto(&b, side.events, trace.PerfettoOptions{Title: side.title}); err != nil {
			return err
		}
		if err := json.Unmarshal(b.Bytes(), &docs[i]); err != nil {
			return err
		}
	}
	maxID := 0
	for _, e := range docs[0].TraceEvents {
		maxID = max(maxID, e.ID)
	}
	out := docs[0]
	for _, e := range docs[1].TraceEvents {
		e.Pid++
		if e.ID != 0 {
			e.ID += maxID
		}
		out.TraceEvents = append(out.TraceEvents, e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
