// Command workbench is PLD Workbench's command line: it serves the web
// workbench (the default) and checks, lowers and lists programs and lessons.
//
//	workbench [serve] [--addr 127.0.0.1:8080] [--data DIR]   serve the workbench on loopback; runs stored in DIR/runs.db
//	workbench steps [--json]                   list the lesson ladder
//	workbench step N [--kernel starter|solution|builtin|bug] [--ranks P] [--check FILE] [--json]
//	workbench verify [--json]                  every step's kernels against their checks
//	workbench check FILE [--entry EXPR] [--ranks P] [--platform 910B|950] [--json]
//	workbench ir FILE [--entry EXPR] [--ranks P] [--platform 910B|950]
//	workbench run FILE [--entry EXPR] [--ranks P] [--fill index|randn|ones|zeros] [--seed N] [--arg name=value]... [--json] [--trace FILE]
//
//	workbench run FILE --backend pypto [--platform a2a3sim|a2a3|a5|a5sim] [--devices 0,1,2,3]   run through PyPTO (the emulator is the default)
//	workbench export FILE [--entry E] [--ranks P] [--fill index|ones|zeros|randn --seed N] [--platform a2a3|a2a3sim|a5|a5sim] [-o out.py]
//	workbench conform [--json] [--upstream DIR]  upstream PyPTO's distributed tests, run here
//
//	workbench compare A [B] --entry EXPR_A [--entry EXPR_B] [--ranks P] [--fill ...] [--json]
//
// Exit status: 0 ok, 1 the program has an error, 2 usage.
package main

import (
	"fmt"
	"io"
	"os"
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"serve", "serve the workbench in a browser (the default)", runServe},
		{"steps", "list the lesson ladder", runSteps},
		{"step", "run one step's kernel (or your own file) and print its check's verdict", runStep},
		{"verify", "check every step: solutions and builtins pass, bugs fail as documented", runVerify},
		{"check", "read and check a PyPTO program; print its diagnostics", runCheck},
		{"ir", "print a program's IR", runIR},
		{"run", "run a program on the emulator at P ranks", runRun},
		{"export", "write a program as a Python script PyPTO runs on NPUs or its simulator", runExport},
		{"compare", "run two programs on the same inputs; compare outputs, stats and lowered kernels", runCompare},
		{"conform", "run upstream PyPTO's distributed tests and examples here; a row per case", runConform},
		{"sweep", "run a program at every size and rank count; nccl-tests style bandwidth tables", runSweep},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runServe(nil, stdout, stderr)
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" {
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args[1:], stdout, stderr)
		}
	}
	if len(name) > 0 && name[0] == '-' {
		// Flags without a subcommand belong to serve (workbench --addr ...).
		return runServe(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "workbench: unknown command %q\n\n", name)
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: workbench <command> [arguments]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'workbench <command> -h' for a command's flags.")
}
