package engine

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"pldworkbench/kernels"
)

// TestFootprint holds Program.Footprint, the estimate the server's program
// cache is bounded by, to the heap a compiled program is measured to hold
// once it has run, within a factor 1.5 either way: step 8's and step 10's
// kernels, and step 8's grown by 1,000 more statements (a program far
// past the course's, most of it IR).
func TestFootprint(t *testing.T) {
	mesh := kernelSource(t, "08_allreduce_mesh")
	const add = "            total = pl.add(total, theirs)\n"
	if !strings.Contains(mesh, add) {
		t.Fatalf("step 8's kernel no longer has the line %q", add)
	}
	grown := strings.Replace(mesh, add, add+"            if peer != me:\n"+strings.Repeat("    "+add, 1000), 1)
	for _, tc := range []struct{ name, src string }{
		{"08_allreduce_mesh", mesh},
		{"10_allreduce_ring", kernelSource(t, "10_allreduce_ring")},
		{"08 grown", grown},
	} {
		compile := func() *Program {
			opts := Options{Ranks: 4}
			p, diags := Load(context.Background(), "k.py", []byte(tc.src), opts).Compile(context.Background(), "", opts)
			if !p.OK() {
				t.Fatalf("%s: %v", tc.name, diags)
			}
			return p
		}
		run := func(p *Program) {
			if res := p.Run(context.Background(), RunOptions{}); res.Status != "ok" {
				t.Fatalf("%s: %s", tc.name, res.Status)
			}
		}
		run(compile()) // the process's pools of spare run memory fill here, not below
		const n = 5
		ps := make([]*Program, n)
		before := heapInUse()
		for i := range ps {
			ps[i] = compile()
			run(ps[i])
		}
		held := (heapInUse() - before) / n
		est := ps[0].Footprint()
		t.Logf("%s: %d bytes of text; holds %d KiB once run, Footprint %d KiB", tc.name, len(tc.src), held>>10, est>>10)
		if r := float64(est) / float64(held); r < 1/1.5 || r > 1.5 {
			t.Errorf("%s: Footprint %d bytes against %d measured (×%.2f): re-measure stmtBytes", tc.name, est, held, r)
		}
		runtime.KeepAlive(ps)
	}
}

// heapInUse is the live heap after two collections.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// kernelSource is the text of the shipped kernel name.
func kernelSource(tb testing.TB, name string) string {
	tb.Helper()
	k, ok := kernels.Get(name)
	if !ok {
		tb.Fatalf("no kernel %s", name)
	}
	return string(k.Source)
}
