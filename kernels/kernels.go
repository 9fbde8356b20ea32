// Package kernels holds the workbench's own PyPTO programs: one real .py
// file per rung of the lesson ladder, embedded into the binary so the
// server and the lessons can list, show and run them.
//
// Steps 01–10 build the primitives and three hand-rolled all-reduces. Steps
// 04, 05 and 12–15 have a second file whose name ends in _builtin: the same
// job done with the builtin collective, with the same host signature and
// entry shape as the hand-rolled file, so `workbench compare` can run the
// two on identical inputs. Step 11 reveals the all-reduce builtin (mesh and
// ring), 16 composes three builtins in one kernel, 17 calls the all-reduce
// from the host orchestrator on several AIV cores per rank, 18 writes one
// all-reduce three ways (hand-rolled, kernel builtin, host builtin), and 20
// shows when one signal window may serve two collectives and when it may
// not.
//
// A file whose name ends in _bug (one for most steps, three for step 20)
// is a step's classic bug: the solution with one mistake a learner makes,
// kept as its own file. Most check clean and fail when they run; those of
// steps 01, 11 and 18 are refused by the checker, and their header says so
// (status compile_error). Its `#! bug:` header says how it must fail the
// step's check (a status and a regexp on the reason); tutorials/check
// holds the checks and `workbench verify` requires every bug to fail
// exactly that way.
//
// A file whose name ends in _starter is a step's starter: the solution with
// the step's key lines cut out, each gap marked by a `# TODO(you):` comment
// and filled with a placeholder (zeros stored, a notify and its wait both
// left out) that keeps the file a valid program. Its `#! starter:` header
// says in one line what the learner fills in; its `#! entry:` and `#!
// ranks:` lines repeat the step's solution's, and it has no golden of its
// own: tutorials/check judges it against the solution's. A starter checks
// clean and runs to completion but fails its golden until the gaps are
// filled; `workbench verify` requires exactly that. Nothing needs
// registering: the NN prefix names the step.
//
// Every file is a complete upstream-style script — the DSL functions plus a
// main() harness with argparse and torch behind a __main__ guard — so the
// same text runs on real NPUs, compiles with `python3 -m py_compile`, and is
// what a learner reads and edits. The engine never executes the harness;
// what it needs to know about a file it reads from `#!` header comments,
// the format the engine's own test corpus uses (engine/testdata/README.md):
//
//	#! entry: build_ring_allreduce({P}).ring_allreduce   one per host orchestrator
//	#! ranks: 2 4 8                                       the rank counts it supports
//	#! golden: y[r] == sum over k of x[k] (FP32, allclose) what the outputs must equal
//	#! warns: W0302                                       warnings an entry reports on purpose
//	#! bug: race read at line 56 .* line 44               a _bug file: how it must fail its check
//	#! starter: the notify and the wait of the barrier     a _starter file: what the learner fills in
//
// `{P}` in an entry stands for the rank count. The goldens are prose for
// people; tutorials/check/golden.go holds the same facts as Go functions,
// and kernels_test.go checks every kernel at every listed rank count
// against them on the emulator.
//
// The package imports nothing else of the project but the header splitter
// (engine/header, itself a leaf), so anything (server, lessons, command
// line) can depend on it without a cycle. The embedded headers are parsed
// once, on first use, and every later All, Get, Bugs and Starters reads
// that one index: the server calls Get several times per request, and
// parsing all 77 files each time cost about 0.7 ms a call, 30% of the
// server's CPU under load (BenchmarkGet has the before and after).
package kernels

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"pldworkbench/engine/header"
)

//go:embed *.py
var files embed.FS

// Kernel is one embedded program with what its header says about it.
type Kernel struct {
	// Name is the file name without ".py", e.g. "08_allreduce_mesh"; the
	// two-digit prefix is the lesson step.
	Name string
	// File is the file name, e.g. "08_allreduce_mesh.py".
	File string
	// Source is the file's text.
	Source []byte
	// Entries are the `#! entry:` expressions in file order, each naming a
	// host orchestrator; "{P}" is left unexpanded (see EntriesAt).
	Entries []string
	// Ranks are the `#! ranks:` counts in file order; the first one is the
	// kernel's default.
	Ranks []int
	// Goldens are the `#! golden:` lines: what each output must equal, in
	// words.
	Goldens []string
	// Warnings are the codes of the `#! warns:` lines: warnings some entry
	// of the file makes the checker report on purpose (20_signal_reuse.py
	// is about one). A kernel without the line must check without a single
	// diagnostic.
	Warnings []string
	// Bug is the `#! bug:` line of a bug variant (a file whose name ends in
	// _bug): the status and the regexp of the failure it documents, e.g.
	// "race read at line 56 what rank \d+ stored at line 44". It is empty
	// for every other kernel.
	Bug string
	// Starter is the `#! starter:` line of a starter (a file whose name
	// ends in _starter): what the learner must fill in, in one line. It is
	// empty for every other kernel.
	Starter string
}

// IsBug reports whether k is a step's classic bug, kept as its own
// runnable file: it must fail its step's check, the way its `#! bug:` line
// says.
func (k Kernel) IsBug() bool { return strings.HasSuffix(k.Name, "_bug") }

// IsStarter reports whether k is a step's starter: the learner's editable
// kernel, runnable, with the step's key lines left as gaps marked TODO.
func (k Kernel) IsStarter() bool { return strings.HasSuffix(k.Name, "_starter") }

// Step returns the lesson step the kernel belongs to, read from its
// two-digit name prefix, or 0 when the name has none.
func (k Kernel) Step() int {
	if len(k.Name) < 3 || k.Name[2] != '_' {
		return 0
	}
	n, err := strconv.Atoi(k.Name[:2])
	if err != nil {
		return 0
	}
	return n
}

// EntriesAt returns the entries with "{P}" replaced by p.
func (k Kernel) EntriesAt(p int) []string {
	out := make([]string, len(k.Entries))
	for i, e := range k.Entries {
		out[i] = strings.ReplaceAll(e, "{P}", strconv.Itoa(p))
	}
	return out
}

// Supports reports whether p is one of the kernel's rank counts.
func (k Kernel) Supports(p int) bool {
	for _, n := range k.Ranks {
		if n == p {
			return true
		}
	}
	return false
}

// All returns every embedded kernel that is meant to work (every file but
// the bug variants and the starters), sorted by file name (so by step). It
// panics if a header is malformed; the files are fixed at build time and
// the package's tests parse every one of them.
func All() []Kernel { return slices.Clone(embedded().all) }

// Bugs returns the bug variants (files named NN_..._bug.py), sorted by
// file name. They are kept apart from All because every other user of the
// kernels (the engine's race and sweep tests, the lessons' runnable cells)
// wants programs that work.
func Bugs() []Kernel { return slices.Clone(embedded().bugs) }

// Starters returns the starters (files named NN_..._starter.py), sorted by
// file name. Like the bugs they are kept out of All: a starter runs, but
// its outputs are wrong until the learner fills its gaps.
func Starters() []Kernel { return slices.Clone(embedded().starters) }

// Get returns the kernel called name, given with or without ".py"
// ("08_allreduce_mesh" or "08_allreduce_mesh.py"); bug variants and
// starters included.
func Get(name string) (Kernel, bool) {
	k, ok := embedded().byName[strings.TrimSuffix(name, ".py")]
	return k, ok
}

// index is every embedded kernel, parsed once. The Kernel values it hands
// out share their slices and Source with it, so callers must not write
// into them; the slices are clipped, so an append copies instead.
type index struct {
	all, bugs, starters []Kernel
	byName              map[string]Kernel
}

var embedded = sync.OnceValue(func() index {
	ix := index{byName: map[string]Kernel{}}
	for _, k := range parseAll() {
		ix.byName[k.Name] = k
		switch {
		case k.IsBug():
			ix.bugs = append(ix.bugs, k)
		case k.IsStarter():
			ix.starters = append(ix.starters, k)
		default:
			ix.all = append(ix.all, k)
		}
	}
	return ix
})

// parseAll reads and parses every embedded file, sorted by file name.
func parseAll() []Kernel {
	names, err := files.ReadDir(".")
	if err != nil {
		panic(fmt.Sprintf("kernels: reading the embedded files: %v", err))
	}
	var out []Kernel
	for _, d := range names {
		if d.IsDir() || path.Ext(d.Name()) != ".py" {
			continue
		}
		src, err := files.ReadFile(d.Name())
		if err != nil {
			panic(fmt.Sprintf("kernels: reading %s: %v", d.Name(), err))
		}
		k, err := Parse(d.Name(), src)
		if err != nil {
			panic("kernels: " + err.Error())
		}
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// Parse reads the `#!` header lines of a program called file. A header
// line is a comment starting with "#!" (at any indentation) of the form
// "key: value"; keys other than entry, ranks, golden, warns, bug and
// starter are ignored, and bug is kept verbatim (tutorials/check reads
// it). A file needs at least one entry and one rank count; every count
// must be a positive integer and every warns code a warning code (Wnnnn);
// a file named NN_..._bug.py needs a bug line and no other file may have
// one, and likewise a file named NN_..._starter.py and a starter line.
func Parse(file string, src []byte) (Kernel, error) {
	k := Kernel{Name: strings.TrimSuffix(file, ".py"), File: file, Source: src}
	for _, h := range header.Parse(src) {
		val := h.Value
		switch h.Key {
		case "entry":
			if val == "" {
				return k, fmt.Errorf("%s:%d: empty #! entry", file, h.Line)
			}
			k.Entries = append(k.Entries, val)
		case "ranks":
			for _, f := range strings.Fields(val) {
				n, err := strconv.Atoi(f)
				if err != nil || n < 1 {
					return k, fmt.Errorf("%s:%d: #! ranks: got %q, want positive integers", file, h.Line, f)
				}
				k.Ranks = append(k.Ranks, n)
			}
		case "golden":
			k.Goldens = append(k.Goldens, val)
		case "bug":
			k.Bug = val
		case "starter":
			k.Starter = val
		case "warns":
			for _, f := range strings.Fields(val) {
				if len(f) != 5 || f[0] != 'W' {
					return k, fmt.Errorf("%s:%d: #! warns: got %q, want warning codes like W0302", file, h.Line, f)
				}
				k.Warnings = append(k.Warnings, f)
			}
		}
	}
	k.Entries, k.Ranks, k.Goldens, k.Warnings = slices.Clip(k.Entries), slices.Clip(k.Ranks), slices.Clip(k.Goldens), slices.Clip(k.Warnings)
	if len(k.Entries) == 0 {
		return k, fmt.Errorf("%s: no #! entry line", file)
	}
	if len(k.Ranks) == 0 {
		return k, fmt.Errorf("%s: no #! ranks line", file)
	}
	if k.IsBug() != (k.Bug != "") {
		return k, fmt.Errorf("%s: a #! bug line belongs in a file named NN_..._bug.py, and such a file needs one", file)
	}
	if k.IsStarter() != (k.Starter != "") {
		return k, fmt.Errorf("%s: a #! starter line belongs in a file named NN_..._starter.py, and such a file needs one saying what the learner fills in", file)
	}
	return k, nil
}
