package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/npu"
	"pldworkbench/engine/platform"
)

// withPyPTO reports whether check's arguments ask for PyPTO's verdict.
func withPyPTO(args []string) bool {
	for _, a := range args {
		if a == "--with-pypto" || a == "-with-pypto" || strings.HasPrefix(a, "--with-pypto=") {
			return a != "--with-pypto=false"
		}
	}
	return false
}

// runCheckWithPyPTO is `workbench check FILE --with-pypto`: the
// workbench's check under the NPU's rules (what export refuses), then the
// program exported and compiled by PyPTO's own compiler (the script's
// --compile-only), its verdict and messages beside ours.
func runCheckWithPyPTO(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef exportFlags
	ef.register(fs)
	fs.Bool("with-pypto", true, "also compile with PyPTO and show its verdict")
	python := fs.String("python", "python3", "the Python that has pypto and torch")
	file, exit := parseFileArgs(fs, args, stderr)
	if exit >= 0 {
		return exit
	}
	src, ok := readSource(file, stderr)
	if !ok {
		return 2
	}
	res, exit := ef.exportFile(file, src, "exported.inputs.bin", io.Discard)
	if res == nil {
		// Ours refused it (or the flags are wrong): say so, as check does.
		_, _ = ef.exportFile(file, src, "exported.inputs.bin", stdout)
		fmt.Fprintf(stdout, "PyPTO: not asked (the workbench's check has errors to fix first)\n")
		return exit
	}
	fmt.Fprint(stdout, diag.RenderAll(res.Diags, src))
	fmt.Fprintf(stdout, "workbench: ok (%s at %s, under the NPU's rules)\n", res.Entry, ranksText(res.Ranks))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	tc := npu.Detect(ctx, npu.DetectOptions{Python: *python})
	if tc.PyPTO == "" || tc.Torch == "" {
		fmt.Fprintln(stdout, "PyPTO: not found, so only the workbench's verdict is shown:")
		for _, m := range tc.MissingFor(platform.DefaultPyPTO()) {
			fmt.Fprintf(stdout, "  - %s\n", m)
		}
		return 1
	}
	bud := ef.limits.def
	if b, ok := ef.limits.budget(io.Discard); ok {
		bud = b
	}
	r, err := npu.Run(ctx, npu.RunSpec{Script: res.Script, Data: res.Data, DataFile: "exported.inputs.bin", Platform: ef.platform,
		CompileOnly: true, Python: tc.Python, Timeout: bud.Timeout, Memory: bud.Memory})
	if err != nil {
		fmt.Fprintf(stderr, "workbench check --with-pypto: %v\n", err)
		return 1
	}
	if r.Status == "compiled" {
		fmt.Fprintf(stdout, "PyPTO %s: compiled for %s (%s, %.2fs)\n", tc.PyPTO, ranksText(res.Ranks), ef.platform, r.Elapsed.Seconds())
		if msgs := npu.Messages(r.Stderr, res.Script, file); msgs != "" {
			fmt.Fprintf(stdout, "  its messages:\n%s\n", indent(msgs))
		}
		// Neither compiler runs the program: a race, a deadlock or a wrong
		// value shows only in a run.
		fmt.Fprintf(stdout, "both compilers accept it; what only a run shows (races, deadlocks, wrong values) is `workbench run %s`'s to find\n", file)
		return 0
	}
	fmt.Fprintf(stdout, "PyPTO %s: %s (exit %d, %.2fs)\n", tc.PyPTO, refusal(r.Status), r.ExitCode, r.Elapsed.Seconds())
	if r.Status != npu.StatusTimeout {
		printRefusal(stdout, npu.RefusalOf(r.Stderr, res.Script, file))
	}
	if msgs := npu.Messages(r.Stderr, res.Script, file); msgs != "" {
		fmt.Fprintf(stdout, "  its messages, without its debug and info log:\n%s\n", indent(msgs))
	}
	return 1
}

// printRefusal is PyPTO's error, where it points in the program, and
// whether the fault is PyPTO's own, ahead of its messages.
func printRefusal(w io.Writer, ref npu.Refusal) {
	if ref.Error == "" {
		return
	}
	msg, rest, _ := strings.Cut(ref.Error, "\n")
	fmt.Fprintf(w, "  error: %s\n", msg)
	if rest != "" {
		fmt.Fprintf(w, "%s\n", indent(indent(rest)))
	}
	if ref.Where != "" {
		fmt.Fprintf(w, "  at: %s\n", ref.Where)
	} else {
		fmt.Fprintf(w, "  at: no line of the program (PyPTO failed inside its own compile)\n")
	}
	for _, h := range ref.Help {
		fmt.Fprintf(w, "  %s\n", h)
	}
	if ref.Internal {
		why := "an internal error of PyPTO's"
		if ref.Check != "" {
			why += " (check failed: " + ref.Check + ")"
		}
		fmt.Fprintf(w, "  %s: a defect in PyPTO rather than in the program, which the workbench's check accepts\n", why)
	}
}

func refusal(status string) string {
	if status == npu.StatusTimeout {
		return "did not finish before the deadline (--timeout)"
	}
	return "refused the program"
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
