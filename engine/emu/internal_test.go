package emu

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// White-box tests on hand-built IR: what the DSL cannot observe directly
// (the window layout) and what only lowering passes emit.

func v(name string, t ir.Type) *ir.Var { return &ir.Var{Name: name, Type: t} }

func idx(n int64) *ir.Const { return ir.IntConst(n, ir.INDEX) }

func list(xs ...ir.Operand) *ir.ListOp { return &ir.ListOp{Elems: xs} }

// TestWindowLayout: buffers are packed in allocation order, each padded to
// 32 bytes, at the same offset on every rank, and start zeroed.
func TestWindowLayout(t *testing.T) {
	host := &ir.Func{Name: "host", Level: ir.Host, Body: &ir.Block{}}
	a := v("a_buf", &ir.Ptr{Bytes: ir.ConstDim(12)})
	b := v("b_buf", &ir.Ptr{Bytes: ir.ConstDim(24)})
	c := v("c_buf", &ir.Ptr{Bytes: ir.ConstDim(64)})
	host.Body.Add(&ir.Op{Name: "pld.alloc_window_buffer", Args: []ir.Operand{idx(12)}, Result: a})
	host.Body.Add(&ir.Op{Name: "pld.alloc_window_buffer", Args: []ir.Operand{list(idx(2), idx(3))},
		Attrs: []ir.Attr{{Key: "dtype", Value: ir.DTypeAttr(ir.INT32)}}, Result: b})
	host.Body.Add(&ir.Op{Name: "pld.alloc_window_buffer", Args: []ir.Operand{idx(64)}, Result: c})
	prog := &ir.Program{Name: "layout", Ranks: 3, Platform: "910B", Funcs: []*ir.Func{host}, Entry: host}
	s, err := newSim(Compile(prog), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := s.runHost(); f != nil {
		t.Fatal(f.err)
	}
	want := []struct{ off, size int }{{0, 12}, {32, 24}, {64, 64}}
	for i, w := range want {
		if got := s.bufs[i]; got.off != w.off || got.size != w.size {
			t.Errorf("buffer %d at %d, %d bytes; want %d, %d", i, got.off, got.size, w.off, w.size)
		}
	}
	for r, w := range s.windows {
		if len(w) != 128 {
			t.Errorf("rank %d window is %d bytes, want 128", r, len(w))
		}
		for _, x := range w {
			if x != 0 {
				t.Fatalf("rank %d window is not zeroed", r)
			}
		}
	}
}

// TestViewAndBlockIdx runs pl.tensor.view and pl.get_block_idx, which only
// lowering passes emit: y[r][0, 0:4] = x[r] viewed as [2, 4], row 1; and
// y[r][0, 7] = the block index (0).
func TestViewAndBlockIdx(t *testing.T) {
	x8 := &ir.Tensor{Shape: ir.ConstShape(1, 8), DType: ir.FP32}
	kx, ky := v("x", x8), v("y", x8)
	view := v("xv", &ir.Tensor{Shape: ir.ConstShape(2, 4), DType: ir.FP32})
	tl := v("t", &ir.Tile{Shape: ir.ConstShape(1, 4), DType: ir.FP32})
	blk := v("b", &ir.Scalar{DType: ir.INDEX})
	bf := v("bf", &ir.Scalar{DType: ir.FP32})
	kernel := &ir.Func{Name: "k", Level: ir.InCore, Params: []*ir.Param{{Var: kx}, {Var: ky, Dir: ir.Out}}, Body: &ir.Block{}}
	kernel.Body.Add(&ir.Op{Name: "pl.tensor.view", Args: []ir.Operand{kx, list(idx(2), idx(4))}, Result: view})
	kernel.Body.Add(&ir.Op{Name: "pl.load", Args: []ir.Operand{view, list(idx(1), idx(0)), list(idx(1), idx(4))}, Result: tl})
	kernel.Body.Add(&ir.Op{Name: "pl.store", Args: []ir.Operand{tl, list(idx(0), idx(0)), ky}, Result: ky})
	kernel.Body.Add(&ir.Op{Name: "pl.get_block_idx", Result: blk})
	kernel.Body.Add(&ir.Op{Name: "pl.cast", Args: []ir.Operand{blk}, Attrs: []ir.Attr{{Key: "target_type", Value: ir.DTypeAttr(ir.FP32)}}, Result: bf})
	kernel.Body.Add(&ir.Op{Name: "pl.write", Args: []ir.Operand{ky, list(idx(0), idx(7)), bf}})
	ox, oy := v("x", x8), v("y", x8)
	orch := &ir.Func{Name: "o", Level: ir.Orchestration, Params: []*ir.Param{{Var: ox}, {Var: oy, Dir: ir.Out}}, Body: &ir.Block{}}
	orch.Body.Add(&ir.Call{Callee: kernel, Args: []ir.Operand{ox, oy}})
	x3 := &ir.Tensor{Shape: ir.ConstShape(2, 1, 8), DType: ir.FP32}
	hx, hy := v("x", x3), v("y", x3)
	r := v("r", &ir.Scalar{DType: ir.INDEX})
	sx, sy := v("%0", x8), v("%1", x8)
	loop := &ir.For{Var: r, Start: idx(0), Stop: idx(2), Step: idx(1), Body: &ir.Block{}}
	loop.Body.Add(&ir.Index{X: hx, Index: r, Result: sx})
	loop.Body.Add(&ir.Index{X: hy, Index: r, Result: sy})
	loop.Body.Add(&ir.Call{Callee: orch, Args: []ir.Operand{sx, sy}, Device: r})
	host := &ir.Func{Name: "h", Level: ir.Host, Params: []*ir.Param{{Var: hx}, {Var: hy, Dir: ir.Out}}, Body: &ir.Block{Stmts: []ir.Stmt{loop}}}
	prog := &ir.Program{Name: "view", Ranks: 2, Platform: "910B", Funcs: []*ir.Func{host, orch, kernel}, Entry: host}
	if err := ir.Verify(prog); err != nil {
		t.Fatal(err)
	}
	res := Run(context.Background(), prog, Options{Inputs: map[string]*Tensor{"x": Iota(ir.FP32, 2, 1, 8)}})
	if res.Status != StatusOK {
		t.Fatalf("%s: %v", res.Status, res.Error)
	}
	for rank := 0; rank < 2; rank++ {
		got := res.Outputs["y"].Row(rank)
		base := float64(8 * rank)
		want := []float64{base + 4, base + 5, base + 6, base + 7, 0, 0, 0, 0}
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("rank %d: y = %v, want %v", rank, got, want)
				break
			}
		}
	}
}

// TestHalfRoundTrip: every finite half and bfloat16 survives widening and
// narrowing, and the narrowing of float32 rounds ties to even.
func TestHalfRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		if e := h >> 10 & 0x1f; e != 0x1f {
			if got := f32ToF16(f16ToF32(uint16(h))); got != uint16(h) {
				t.Fatalf("half %#04x: round trip gives %#04x", h, got)
			}
		}
		if e := h >> 7 & 0xff; e != 0xff {
			if got := f32ToBF16(bf16ToF32(uint16(h))); got != uint16(h) {
				t.Fatalf("bfloat16 %#04x: round trip gives %#04x", h, got)
			}
		}
	}
	cases := []struct {
		in         float32
		half, bf16 float64
	}{
		{1 + 1.0/2048, 1, 1},                    // FP16 tie: down to even
		{1 + 3.0/2048, 1 + 2.0/1024, 1},         // FP16 tie: up to even
		{1 + 1.0/256, 1 + 1.0/256, 1},           // BF16 tie: down to even
		{1 + 3.0/256, 1 + 3.0/256, 1 + 2.0/128}, // BF16 tie: up to even
		{65520, math.Inf(1), 65536},             // past FP16's largest finite value
		{-0.0, 0, 0},                            // sign kept (compared as values)
		{5.960464477539063e-08, 5.960464477539063e-08, 5.960464477539063e-08}, // FP16's smallest subnormal
		{2.9802322387695312e-08, 0, 2.9802322387695312e-08},                   // half of it: tie to even (0)
	}
	for _, c := range cases {
		if got := float64(f16ToF32(f32ToF16(c.in))); got != c.half {
			t.Errorf("FP16(%v) = %v, want %v", c.in, got, c.half)
		}
		if got := float64(bf16ToF32(f32ToBF16(c.in))); got != c.bf16 {
			t.Errorf("BF16(%v) = %v, want %v", c.in, got, c.bf16)
		}
	}
	if !math.IsNaN(float64(f16ToF32(f32ToF16(float32(math.NaN()))))) || !math.IsNaN(float64(bf16ToF32(f32ToBF16(float32(math.NaN()))))) {
		t.Errorf("NaN does not stay NaN")
	}
}

// TestBlockGrid launches a kernel as a grid of 4 blocks (ir.Call.Blocks):
// every block writes its index + 1 into its own cell, and block 0 first
// waits for a signal that block 3 sets, so the blocks must run
// concurrently and share the rank's window.
func TestBlockGrid(t *testing.T) {
	row := &ir.Tensor{Shape: ir.ConstShape(1, 4), DType: ir.INT32}
	sigT := &ir.DistributedTensor{Shape: ir.ConstShape(1, 1), DType: ir.INT32}
	index := &ir.Scalar{DType: ir.INDEX}
	ky, ksig := v("y", row), v("sig", sigT)
	b, b1, b32 := v("b", index), v("b1", index), v("b32", &ir.Scalar{DType: ir.INT32})
	is0, is3 := v("is0", ir.Bool), v("is3", ir.Bool)
	kernel := &ir.Func{Name: "mark", Level: ir.InCore, Params: []*ir.Param{{Var: ky, Dir: ir.Out}, {Var: ksig}}, Body: &ir.Block{}}
	ctx, me := v("ctx", &ir.CommCtx{}), v("me", &ir.Scalar{DType: ir.INT32})
	kernel.Body.Add(&ir.Op{Name: "pld.get_comm_ctx", Args: []ir.Operand{ksig}, Result: ctx})
	kernel.Body.Add(&ir.Op{Name: "pld.rank", Args: []ir.Operand{ctx}, Result: me})
	kernel.Body.Add(&ir.Op{Name: "pl.get_block_idx", Result: b})
	kernel.Body.Add(&ir.Bin{Op: ir.Eq, X: b, Y: idx(3), Result: is3})
	kernel.Body.Add(&ir.If{Cond: is3, Then: &ir.Block{Stmts: []ir.Stmt{
		&ir.Op{Name: "pld.system.notify", Args: []ir.Operand{ksig, me, list(idx(0), idx(0)), idx(7)},
			Attrs: []ir.Attr{{Key: "op", Value: ir.EnumAttr{Type: "pld.NotifyOp", Member: "Set", V: 1}}}},
	}}})
	kernel.Body.Add(&ir.Bin{Op: ir.Eq, X: b, Y: idx(0), Result: is0})
	kernel.Body.Add(&ir.If{Cond: is0, Then: &ir.Block{Stmts: []ir.Stmt{
		&ir.Op{Name: "pld.system.wait", Args: []ir.Operand{ksig, list(idx(0), idx(0)), idx(7)},
			Attrs: []ir.Attr{{Key: "cmp", Value: ir.EnumAttr{Type: "pld.WaitCmp", Member: "Eq", V: 0}}}},
	}}})
	kernel.Body.Add(&ir.Bin{Op: ir.Add, X: b, Y: idx(1), Result: b1})
	kernel.Body.Add(&ir.Op{Name: "pl.cast", Args: []ir.Operand{b1}, Attrs: []ir.Attr{{Key: "target_type", Value: ir.DTypeAttr(ir.INT32)}}, Result: b32})
	kernel.Body.Add(&ir.Op{Name: "pl.write", Args: []ir.Operand{ky, list(idx(0), b), b32}})
	oy, osig := v("y", row), v("sig", sigT)
	wrapper := &ir.Func{Name: "launch", Level: ir.Orchestration, Params: []*ir.Param{{Var: oy, Dir: ir.Out}, {Var: osig}}, Body: &ir.Block{}}
	wrapper.Body.Add(&ir.Call{Callee: kernel, Args: []ir.Operand{oy, osig}, Blocks: 4})
	hostT := &ir.Tensor{Shape: ir.ConstShape(2, 1, 4), DType: ir.INT32}
	hy, r, yr := v("y", hostT), v("r", index), v("%0", row)
	buf, view := v("sig_buf", &ir.Ptr{Bytes: ir.ConstDim(4)}), v("sig", sigT)
	loop := &ir.For{Var: r, Start: idx(0), Stop: idx(2), Step: idx(1), Body: &ir.Block{}}
	loop.Body.Add(&ir.Op{Name: "pld.window", Args: []ir.Operand{buf, list(idx(1), idx(1))}, Attrs: []ir.Attr{{Key: "dtype", Value: ir.DTypeAttr(ir.INT32)}}, Result: view})
	loop.Body.Add(&ir.Index{X: hy, Index: r, Result: yr})
	loop.Body.Add(&ir.Call{Callee: wrapper, Args: []ir.Operand{yr, view}, Device: r})
	entry := &ir.Func{Name: "probe", Level: ir.Host, Params: []*ir.Param{{Var: hy, Dir: ir.Out}}, Body: &ir.Block{}}
	entry.Body.Add(&ir.Op{Name: "pld.alloc_window_buffer", Args: []ir.Operand{idx(4)}, Result: buf})
	entry.Body.Add(loop)
	prog := &ir.Program{Name: "grid", Ranks: 2, Platform: "910B", Funcs: []*ir.Func{entry, wrapper, kernel}, Entry: entry}
	if err := ir.Verify(prog); err != nil {
		t.Fatal(err)
	}
	var col trace.Collector
	res := Run(context.Background(), prog, Options{OnEvent: col.Sink()})
	if res.Status != StatusOK {
		t.Fatalf("%s: %v", res.Status, res.Error)
	}
	for rank := 0; rank < 2; rank++ {
		if got := res.Outputs["y"].Row(rank); fmt.Sprint(got) != "[1 2 3 4]" {
			t.Errorf("rank %d: y = %v, want [1 2 3 4]", rank, got)
		}
	}
	// Each rank's block 0 was released by its own block 3's notify, and
	// the blocks of a rank share one event sequence.
	byRef := map[trace.Ref]trace.Event{}
	waits := 0
	for _, e := range col.Events {
		ref := trace.Ref{Rank: e.Rank, Seq: e.Seq}
		if _, dup := byRef[ref]; dup {
			t.Errorf("two events are %+v", ref)
		}
		byRef[ref] = e
		if e.Op == "pld.system.wait" {
			waits++
			n := byRef[*e.ReleasedBy]
			if e.Block != 0 || n.Op != "pld.system.notify" || n.Rank != e.Rank || n.Block != 3 {
				t.Errorf("wait %+v released by %+v", e, n)
			}
		}
	}
	if waits != 2 {
		t.Errorf("%d waits, want 2", waits)
	}
}

// TestImports keeps the emulator's dependencies to the IR, the trace model
// and the tables every layer reads, limits and platforms (STYLE.md: emu →
// ir, trace).
func TestImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "pldworkbench/") && path != "pldworkbench/engine/ir" && path != "pldworkbench/engine/trace" && path != "pldworkbench/engine/limits" && path != "pldworkbench/engine/platform" {
				t.Errorf("%s imports %s; package emu may import only engine/ir, engine/trace, engine/limits and engine/platform of the project", f, path)
			}
		}
	}
}
