package kernels_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"hash/fnv"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/kernels"
)

// The compile path: reading and checking a kernel, which the workbench does
// on every keystroke in the editor and before every run.
//
// BenchmarkCompile/<kernel> is engine.Load and Module.Check of the kernel at its first
// entry and first rank count: parse, evaluate the module (factories
// included), check, build the IR. Two native-Go baselines run beside it,
// all three reporting MB/s of source so the ratios hold across file sizes:
//
//   - BenchmarkBaselineHash/<kernel> reads the same bytes once and hashes
//     them with FNV-1a: the floor, what touching every byte costs.
//   - BenchmarkBaselineGoFrontEnd parses and type-checks (go/parser +
//     go/types) meshGoSource, the mesh all-reduce of 08_allreduce_mesh.py
//     written as Go: the same functions, loops and calls, with plain Go
//     stand-ins for the pl/pld operations. It is what Go's own front end
//     costs for the same job on an equivalent program, the bar a
//     hand-written front end in Go can reasonably be held to.
func BenchmarkCompile(b *testing.B) {
	for _, k := range kernels.All() {
		opts := engine.Options{Entry: k.EntriesAt(k.Ranks[0])[0], Ranks: k.Ranks[0]}
		if res := engine.Load(context.Background(), k.File, k.Source, opts).Check(context.Background(), opts); onlyAnnounced(k, res.Diags) != nil || len(res.Units) != 1 {
			b.Fatalf("%s does not check clean", k.File)
		}
		b.Run(k.Name, func(b *testing.B) {
			b.SetBytes(int64(len(k.Source)))
			b.ReportAllocs()
			for b.Loop() {
				engine.Load(context.Background(), k.File, k.Source, opts).Check(context.Background(), opts)
			}
		})
	}
}

func BenchmarkBaselineHash(b *testing.B) {
	for _, k := range kernels.All() {
		b.Run(k.Name, func(b *testing.B) {
			b.SetBytes(int64(len(k.Source)))
			var sum uint64
			for b.Loop() {
				h := fnv.New64a()
				h.Write(k.Source)
				sum += h.Sum64()
			}
			_ = sum
		})
	}
}

func BenchmarkBaselineGoFrontEnd(b *testing.B) {
	if err := goFrontEnd(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(meshGoSource)))
	b.ReportAllocs()
	for b.Loop() {
		if err := goFrontEnd(); err != nil {
			b.Fatal(err)
		}
	}
}

func goFrontEnd() error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "mesh.go", meshGoSource, parser.ParseComments)
	if err != nil {
		return err
	}
	_, err = (&types.Config{}).Check("mesh", fset, []*ast.File{f}, nil)
	return err
}

// meshGoSource is 08_allreduce_mesh.py as a Go program: three levels, the
// stage / barrier / accumulate / write-out phases, with Go stand-ins for the
// operations. It imports nothing, so go/types needs no importer. It is
// about 3.0 KB against the Python file's 4.8 KB (docstrings and harness
// included); the MB/s figures make the two comparable.
const meshGoSource = `// Package mesh is the mesh all-reduce of step 08, written in Go so that the
// compile-path benchmark can compare against Go's own front end.
//
// All-reduce: every rank brings a slice and leaves with the element-wise
// sum of all of them. The mesh reads every peer's slice directly, in four
// phases: stage, barrier, accumulate, write out.
package mesh

// SIZE is the number of floats per rank.
const SIZE = 64

// Tile is an on-chip buffer.
type Tile struct{ data []float32 }

// Tensor is a rank's slice of a host tensor.
type Tensor struct{ data []float32 }

// Window is a buffer every rank owns a copy of.
type Window struct{ copies [][]float32 }

// Signal is a window of INT32 cells, [ranks][1] per copy.
type Signal struct{ cells [][]int32 }

// Ctx is a communication context.
type Ctx struct{ rank, nranks int }

func commCtx(w *Window, me int) Ctx { return Ctx{rank: me, nranks: len(w.copies)} }

func load(src []float32, off, n int) Tile {
	t := Tile{data: make([]float32, n)}
	copy(t.data, src[off:off+n])
	return t
}

func store(t Tile, off int, dst []float32) []float32 {
	copy(dst[off:], t.data)
	return dst
}

func add(a, b Tile) Tile {
	out := Tile{data: make([]float32, len(a.data))}
	for i := range a.data {
		out.data[i] = a.data[i] + b.data[i]
	}
	return out
}

func remoteLoad(w *Window, peer, off, n int) Tile { return load(w.copies[peer], off, n) }

func notify(s *Signal, peer, row int, value int32) { s.cells[peer][row] += value }

func wait(s *Signal, me, row int, expected int32) bool { return s.cells[me][row] >= expected }

// meshKernel runs on the AI cores of one rank: stage, barrier, add up
// every rank's slice, write out.
func meshKernel(x, y *Tensor, part *Window, arrived *Signal, me int) *Tensor {
	ctx := commCtx(part, me)
	nranks := ctx.nranks

	// 1. Stage.
	mine := load(x.data, 0, SIZE)
	part.copies[me] = store(mine, 0, part.copies[me])

	// 2. Barrier: announce "staged" to everyone, then wait for everyone.
	for peer := 0; peer < nranks; peer++ {
		if peer != me {
			notify(arrived, peer, me, 1)
		}
	}
	for src := 0; src < nranks; src++ {
		if src != me {
			for !wait(arrived, me, src, 1) {
			}
		}
	}

	// 3. Accumulate, own slice first.
	total := load(part.copies[me], 0, SIZE)
	for peer := 0; peer < nranks; peer++ {
		if peer != me {
			theirs := remoteLoad(part, peer, 0, SIZE)
			total = add(total, theirs)
		}
	}

	// 4. Write out.
	y.data = store(total, 0, y.data)
	return y
}

// meshDev is the per-device wrapper.
func meshDev(x, y *Tensor, part *Window, arrived *Signal, me int) *Tensor {
	return meshKernel(x, y, part, arrived, me)
}

// meshAllreduce is the host orchestrator: allocate the windows, dispatch
// every rank.
func meshAllreduce(x, y []Tensor) {
	nr := len(x)
	part := &Window{copies: make([][]float32, nr)}
	arrived := &Signal{cells: make([][]int32, nr)}
	for r := 0; r < nr; r++ {
		part.copies[r] = make([]float32, SIZE)
		arrived.cells[r] = make([]int32, nr)
	}
	for r := 0; r < nr; r++ {
		meshDev(&x[r], &y[r], part, arrived, r)
	}
}
`
