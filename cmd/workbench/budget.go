package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"pldworkbench/engine/limits"
)

// budgetFlags are the resource flags every command that runs user code
// shares (run, check, ir, compare, step, verify, sweep): one helper, so the
// flags mean the same everywhere. Their defaults are limits.CLIBudget's.
type budgetFlags struct {
	memLimit string
	timeout  time.Duration
	def      limits.Budget
}

// register adds --mem-limit and --timeout to fs with the defaults of def.
func (b *budgetFlags) register(fs *flag.FlagSet, def limits.Budget) {
	b.def = def
	fs.StringVar(&b.memLimit, "mem-limit", limits.Bytes(def.Memory), "memory one piece of work may make (windows × P, host tensors, tiles, events, compile-time values): 512MiB, 1GiB, 2G, ...")
	fs.DurationVar(&b.timeout, "timeout", def.Timeout, "wall clock of one piece of work, front end included: 500ms, 10s, 2m, ...")
}

// budget validates the flags, sets the process's soft memory limit from
// them (one piece of work at a time on the command line) and returns the
// budget; false after printing why the flags are wrong.
func (b *budgetFlags) budget(stderr io.Writer) (limits.Budget, bool) {
	bud := b.def
	mem, err := limits.ParseBytes(b.memLimit)
	if err != nil {
		fmt.Fprintf(stderr, "--mem-limit: %v\n", err)
		return bud, false
	}
	if b.timeout <= 0 {
		fmt.Fprintf(stderr, "--timeout %v: want a positive duration such as 10s\n", b.timeout)
		return bud, false
	}
	bud.Memory, bud.Timeout = mem, b.timeout
	limits.SetSoftMemoryLimit(bud.Memory, 1)
	return bud, true
}
