package engine_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
)

// fuzzBudget is the tight budget every stage of FuzzPipeline runs under:
// small enough that a mutated loop bound or buffer size hits a limit in
// milliseconds, large enough that every seed program runs to the end.
var fuzzBudget = limits.Budget{
	Memory:   64 << 20,
	Timeout:  2 * time.Second,
	Steps:    200_000,
	RunSteps: 2_000_000,
	MaxRanks: 8,
}

// fuzzSlack is how far past its limit a piece of work may end: a check,
// IR dump or run that takes longer is a hang the deadline did not reach.
const fuzzSlack = 2 * time.Second

// pipelineSeeds are the kernels of every step and the engine's test
// programs: real programs, so mutations start from code that reaches
// every stage.
func pipelineSeeds(t testing.TB) [][]byte {
	var files []string
	for _, pattern := range []string{"testdata/programs/*.py", "testdata/errors/*.py", "testdata/run/*.py", "testdata/heads/*.py", "check/testdata/errors/*.py", "check/testdata/ok/*.py"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	_ = filepath.WalkDir(filepath.Join("..", "kernels"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".py") {
			files = append(files, path)
		}
		return nil
	})
	var out [][]byte
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, src)
	}
	if len(out) < 50 {
		t.Fatalf("only %d seed programs found", len(out))
	}
	return out
}

// FuzzPipeline feeds source text through the whole pipeline — load, check,
// lower (IRText) and a run at P=2 of up to two of the host orchestrators
// found — under fuzzBudget. It fails when any stage panics (the engine
// recovers it as an InternalError, which is reported with its stack) or
// ends more than fuzzSlack past its limit.
func FuzzPipeline(f *testing.F) {
	for _, src := range pipelineSeeds(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > limits.MaxCode {
			return
		}
		ctx := context.Background()
		opts := engine.Options{Ranks: 2, Budget: fuzzBudget}
		within := func(what string, start time.Time) {
			if took := time.Since(start); took > fuzzBudget.Timeout+fuzzSlack {
				t.Fatalf("%s took %v, limit %v", what, took, fuzzBudget.Timeout)
			}
		}

		start := time.Now()
		res := engine.Load(ctx, "fuzz.py", src, opts).Check(ctx, opts)
		within("Check", start)
		if res.Internal != nil {
			t.Fatalf("Check panicked: %v\n%s", res.Internal, res.Internal.Stack)
		}
		if _, err := engine.CheckJSON(res); err != nil {
			t.Fatalf("CheckJSON: %v", err)
		}

		start = time.Now()
		_, _, err := engine.IRText(ctx, "fuzz.py", src, opts, "")
		within("IRText", start)
		if ie, ok := err.(*engine.InternalError); ok {
			t.Fatalf("IRText panicked: %v\n%s", ie, ie.Stack)
		}

		runs := 0
		for _, u := range res.Units {
			if u.Program == nil || runs == 2 {
				continue
			}
			runs++
			o := opts
			o.Entry = u.Label
			start = time.Now()
			r := engine.Load(ctx, "fuzz.py", src, o).Run(ctx, engine.RunOptions{Options: o, Fill: emu.FillRandn, Seed: 1})
			within("Run "+u.Label, start)
			if r.Internal != nil {
				t.Fatalf("Run %s panicked: %v\n%s", u.Label, r.Internal, r.Internal.Stack)
			}
		}
	})
}
