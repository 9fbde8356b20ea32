package main

import (
	"flag"
	"fmt"
	"io"

	"pldworkbench/tutorials"
)

// runServe will start the web workbench. The server is not built yet, so it
// says plainly what it will do and what works today, and exits 0 so the
// README's serve command is honest on a fresh machine.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default)")
	data := fs.String("data", "", "data directory for the run store (default: per-user data directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	_ = data
	fmt.Fprintf(stdout, `PLD Workbench

The web workbench is not built yet. When it is, this command will serve it on
http://%s/: the %d lesson steps, an editor per step, live per-rank traces
over websockets from the bundled emulator, side-by-side comparison with the
builtin collectives, and share links, with runs stored in a local SQLite file.

What works today, on the command line:
  workbench steps                         the lesson ladder
  workbench step N [--kernel K]           run a step's kernel and check it
  workbench verify                        check every step's kernels
  workbench check FILE [--entry EXPR]     read and check a PyPTO program
  workbench ir FILE [--entry EXPR]        print its IR
`, *addr, len(tutorials.Syllabus))
	return 0
}
