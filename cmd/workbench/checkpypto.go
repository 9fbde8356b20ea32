package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
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
		if msgs := strings.TrimSpace(pyptoMessages(r.Stderr)); msgs != "" {
			fmt.Fprintf(stdout, "  its messages:\n%s\n", indent(msgs))
		}
		return 0
	}
	fmt.Fprintf(stdout, "PyPTO %s: %s (exit %d, %.2fs); its messages:\n%s\n", tc.PyPTO, refusal(r.Status), r.ExitCode, r.Elapsed.Seconds(), indent(strings.TrimSpace(pyptoMessages(r.Stderr))))
	return 1
}

func refusal(status string) string {
	if status == npu.StatusTimeout {
		return "did not finish before the deadline (--timeout)"
	}
	return "refused the program"
}

// pyptoLog matches a line of PyPTO's own debug and info log
// ("2026-12-01 14:08:31.721 D | ..."): hundreds of lines a compile, none of
// them a verdict.
var pyptoLog = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [DI] \| `)

// pyptoMessages is PyPTO's stderr without its debug and info log lines.
func pyptoMessages(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !pyptoLog.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
