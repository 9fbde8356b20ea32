package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"pldworkbench/engine/conform"
)

// runConform runs upstream PyPTO's distributed system tests and examples
// (read from a local git snapshot, never copied into the repository) on
// the workbench and prints a row per case.
func runConform(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("conform", "usage: workbench conform [--json] [--upstream DIR] [--only SUBSTR]", stderr)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	upstream := fs.String("upstream", os.Getenv(conform.ConformEnv), "path of a local clone of upstream PyPTO (default $"+conform.ConformEnv+")")
	only := fs.String("only", "", "keep the upstream files whose path contains this")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	if *upstream == "" {
		fmt.Fprintln(stderr, "workbench conform: "+conform.ConformNeed)
		return 2
	}
	snap, err := conform.OpenSnapshot(*upstream, conform.ConformCommit)
	if err != nil {
		fmt.Fprintln(stderr, "workbench conform:", err)
		return 2
	}
	rep, err := conform.Conform(context.Background(), snap, conform.ConformOptions{Only: *only})
	if err != nil {
		fmt.Fprintln(stderr, "workbench conform:", err)
		return 1
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(stderr, "workbench conform:", err)
			return 1
		}
	} else {
		fmt.Fprint(stdout, conform.ConformTable(rep))
	}
	// The suite reports; it does not judge. Regressions are the test's
	// business (engine's TestConform against its recorded baseline).
	return 0
}
