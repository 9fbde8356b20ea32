package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"

	"pldworkbench/engine/npu"
)

// flagArg finds --name V (or -name V, --name=V) among a subcommand's
// arguments before any flag set parses them: run looks for --backend and
// compare for --backends, so either can hand the whole command line to
// the backend's own flag set (its --platform takes PyPTO's names, not the
// cost-model profiles).
func flagArg(args []string, name string) (string, bool) {
	for i, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// pyptoResult is what run --backend pypto --json prints.
type pyptoResult struct {
	Backend   string        `json:"backend"`
	Toolchain npu.Toolchain `json:"toolchain"`
	Entry     string        `json:"entry"`
	Ranks     int           `json:"ranks"`
	Run       *npu.Result   `json:"run,omitempty"`
	Missing   []string      `json:"missing,omitempty"`
	Events    int           `json:"events"`
	Lanes     string        `json:"lanes,omitempty"`
	Manifest  *npu.Manifest `json:"manifest,omitempty"`
}

// runPyPTO is `workbench run FILE --backend pypto`: export the program,
// find PyPTO and the cards, run the script in a temporary directory under
// the budget, and print the verdict, the outputs and the swimlane's task
// slices. The emulator stays the default backend.
func runPyPTO(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", "usage: workbench run FILE --backend pypto [--platform a2a3|a2a3sim|a5|a5sim] [--devices 0,1,2,3] [--entry E] [--ranks P] [--fill ...] [--seed N]\n       [--python python3] [--swimlane=false] [--compile-only] [--keep] [--timeout DUR] [--mem-limit SIZE] [--json] [--trace FILE]", stderr)
	var ef exportFlags
	ef.register(fs)
	fs.String("backend", "pypto", "emu (the default) or pypto")
	devices := fs.String("devices", "", "comma-separated device ids, one per rank (default 0..P-1)")
	python := fs.String("python", "python3", "the Python that has pypto and torch")
	swimlane := fs.Bool("swimlane", true, "collect the per-rank swimlane records (on a card PyPTO then runs the program twice)")
	compileOnly := fs.Bool("compile-only", false, "stop after PyPTO's compile")
	keep := fs.Bool("keep", false, "keep the run's temporary directory and print its path")
	asJSON := fs.Bool("json", false, "print one JSON object and nothing else on stdout")
	traceFile := fs.String("trace", "", "write the task slices to FILE: a Chrome trace if FILE ends in .json, JSON lines otherwise")
	file, exit := parseFileArgs(fs, args, stderr)
	if exit >= 0 {
		return exit
	}
	var ids []int
	if *devices != "" {
		for _, tok := range strings.Split(*devices, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(tok))
			if err != nil || n < 0 {
				fmt.Fprintf(stderr, "--devices %q: want comma-separated device ids such as 0,1,2,3\n", *devices)
				return 2
			}
			ids = append(ids, n)
		}
	}
	src, ok := readSource(file, stderr)
	if !ok {
		return 2
	}
	res, exit := ef.exportFile(file, src, "exported.inputs.bin", stderr)
	if exit >= 0 {
		return exit
	}
	if ids != nil && len(ids) != res.Ranks {
		fmt.Fprintf(stderr, "--devices %s: %d ids for a program checked at %s; give one per rank\n", *devices, len(ids), ranksText(res.Ranks))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out := pyptoResult{Backend: "pypto", Entry: res.Entry, Ranks: res.Ranks}
	out.Toolchain = npu.Detect(ctx, npu.DetectOptions{Python: *python})
	ready := out.Toolchain.Usable(ef.platform)
	if *compileOnly {
		// A compile needs no assembler and no cards.
		ready = out.Toolchain.Compiles()
	}
	if !ready {
		out.Missing = out.Toolchain.MissingFor(ef.platform)
		if *asJSON {
			printJSON(stdout, stderr, out)
		} else {
			fmt.Fprintf(stderr, "%s: cannot run on PyPTO (%s):\n", file, ef.platform)
			for _, m := range out.Missing {
				fmt.Fprintf(stderr, "  - %s\n", m)
			}
			fmt.Fprintln(stderr, "the emulator needs none of that: drop --backend pypto, or `workbench export` the program and run it where PyPTO is")
		}
		return 1
	}
	bud := ef.limits.def
	if b, ok := ef.limits.budget(io.Discard); ok {
		bud = b
	}
	r, err := npu.Run(ctx, npu.RunSpec{Script: res.Script, Data: res.Data, DataFile: "exported.inputs.bin", Platform: ef.platform,
		Devices: ids, Swimlane: *swimlane, CompileOnly: *compileOnly, Python: out.Toolchain.Python, Timeout: bud.Timeout, Memory: bud.Memory, Keep: *keep})
	if err != nil {
		fmt.Fprintf(stderr, "workbench run --backend pypto: %v\n", err)
		return 1
	}
	out.Run, out.Manifest, out.Events, out.Lanes = r, r.Manifest, len(r.Events), r.Lanes
	if *traceFile != "" {
		sink, done, err := openTrace(*traceFile)
		if err != nil {
			fmt.Fprintf(stderr, "--trace: %v\n", err)
			return 2
		}
		for _, e := range r.Events {
			sink(e)
		}
		if err := done(fmt.Sprintf("%s at P=%d on PyPTO (%s)", res.Entry, res.Ranks, ef.platform)); err != nil {
			fmt.Fprintf(stderr, "--trace: %v\n", err)
		}
	}
	if *asJSON {
		printJSON(stdout, stderr, out)
	} else {
		printPyPTO(stdout, file, res.Script, out, ef.platform)
	}
	switch r.Status {
	case "ok", "no_golden", "compiled":
		return 0
	}
	return 1
}

func printJSON(stdout, stderr io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return
	}
	fmt.Fprintln(stdout, string(b))
}

func printPyPTO(w io.Writer, file string, script []byte, out pyptoResult, platform string) {
	r := out.Run
	fmt.Fprintf(w, "%s: %s on PyPTO %s (%s, %s at %s, %.2fs)\n", file, r.Status, out.Toolchain.PyPTO, platform, out.Entry, ranksText(out.Ranks), r.Elapsed.Seconds())
	if m := r.Manifest; m != nil {
		fmt.Fprintf(w, "  devices %v\n", m.DeviceIDs)
		names := make([]string, 0, len(m.Outputs))
		for n := range m.Outputs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			o := m.Outputs[n]
			fmt.Fprintf(w, "  %s %s %v: %d values\n", n, o.DType, o.Shape, len(o.Data))
		}
		for _, mm := range m.Mismatches {
			fmt.Fprintf(w, "  %s: %d of %d elements wrong, the first at flat index %d\n", mm.Output, mm.Wrong, mm.Of, mm.First)
		}
		if m.NoGolden != "" {
			fmt.Fprintf(w, "  not checked: %s\n", m.NoGolden)
		}
	}
	if out.Events > 0 {
		fmt.Fprintf(w, "  %d task slices: %s\n", out.Events, out.Lanes)
	}
	if r.Status == npu.StatusTimeout || r.Status == npu.StatusError {
		fmt.Fprintf(w, "  exit %d\n", r.ExitCode)
		if r.Status == npu.StatusError {
			printRefusal(w, npu.RefusalOf(r.Stderr, script, file))
		}
		fmt.Fprintf(w, "  the script's last words, without PyPTO's debug and info log:\n%s\n", indent(npu.Messages(r.Stderr, script, file)))
	}
	if r.Dir != "" {
		fmt.Fprintf(w, "  kept %s (PyPTO's build and DFX files under build/)\n", r.Dir)
	}
}
