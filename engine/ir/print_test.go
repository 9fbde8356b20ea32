package ir

import (
	"flag"
	"golang.org/x/tools/txtar"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func sp(line int) Span { return Span{File: "t.py", Line: line, Col: 5, EndLine: line, EndCol: 20} }

// handProgram builds, without the checker, a small two-rank exchange that
// uses every statement kind: the host allocates a data and a signal window
// and dispatches per_rank on each rank; the kernel stages its slice, tells
// its right neighbour and reads the neighbour's slice back.
func handProgram() *Program {
	vec := &Tensor{Shape: ConstShape(1, 64), DType: FP32}
	hostVec := &Tensor{Shape: Shape{SymDim("NR"), ConstDim(1), ConstDim(64)}, DType: FP32}
	win := &DistributedTensor{Shape: ConstShape(1, 64), DType: FP32}
	sigHost := &DistributedTensor{Shape: ConstShape(2, 1), DType: INT32}
	sigKern := &DistributedTensor{Shape: Shape{SymDim("NR"), ConstDim(1)}, DType: INT32}
	i32 := &Scalar{DType: INT32}
	idx := &Scalar{DType: INDEX}
	tile := &Tile{Shape: ConstShape(1, 64), DType: FP32}

	// InCore kernel.
	kx := &Var{Name: "x", Type: vec}
	ky := &Var{Name: "y", Type: vec}
	kdata := &Var{Name: "data", Type: win}
	ksig := &Var{Name: "signal", Type: sigKern}
	ctx := &Var{Name: "ctx", Type: &CommCtx{}}
	me := &Var{Name: "my_rank", Type: i32}
	n := &Var{Name: "nranks", Type: i32}
	t0 := &Var{Name: "%0", Type: idx, Temp: true}
	peer := &Var{Name: "peer", Type: idx}
	local := &Var{Name: "local", Type: tile}
	recv := &Var{Name: "recv", Type: tile}
	half := &Var{Name: "half", Type: &Scalar{DType: FP32}}
	t1 := &Var{Name: "%1", Type: Bool, Temp: true}
	t2 := &Var{Name: "%2", Type: idx, Temp: true}
	kernel := &Func{Name: "shift_step", Level: InCore, Span: sp(10),
		Params: []*Param{{Var: kx}, {Var: ky, Dir: Out}, {Var: kdata, Dir: InOut}, {Var: ksig, Dir: InOut}},
		Result: vec,
		Body: &Block{Stmts: []Stmt{
			&Op{Name: "pld.get_comm_ctx", Args: []Operand{kdata}, Result: ctx, Site: Site{Span: sp(11)}},
			&Op{Name: "pld.rank", Args: []Operand{ctx}, Result: me, Site: Site{Span: sp(12)}},
			&Op{Name: "pld.nranks", Args: []Operand{ctx}, Result: n, Site: Site{Span: sp(13)}},
			&Op{Name: "pl.load", Args: []Operand{kx, &ListOp{Elems: []Operand{IntConst(0, INDEX), IntConst(0, INDEX)}},
				&ListOp{Elems: []Operand{IntConst(1, INDEX), IntConst(64, INDEX)}}}, Result: local, Site: Site{Span: sp(14)}},
			&Op{Name: "pl.store", Args: []Operand{local, &ListOp{Elems: []Operand{IntConst(0, INDEX), IntConst(0, INDEX)}}, kdata},
				Attrs: []Attr{{Key: "atomic", Value: EnumAttr{Type: "pl.AtomicType", Member: "None_", V: 0}}}, Result: kdata, Site: Site{Span: sp(15)}},
			&Bin{Op: Add, X: me, Y: IntConst(1, INDEX), Result: t0, Site: Site{Span: sp(16)}},
			&Bin{Op: Mod, X: t0, Y: n, Result: peer, Site: Site{Span: sp(16)}},
			&Op{Name: "pld.system.notify", Args: []Operand{ksig, peer, &ListOp{Elems: []Operand{me, IntConst(0, INDEX)}}, IntConst(1, INDEX)},
				Attrs: []Attr{{Key: "op", Value: EnumAttr{Type: "pld.NotifyOp", Member: "AtomicAdd", V: 0}}}, Site: Site{Span: sp(17)}},
			&Bin{Op: Ne, X: peer, Y: me, Result: t1, Site: Site{Span: sp(18)}},
			&If{Cond: t1, Site: Site{Span: sp(18)}, Then: &Block{Stmts: []Stmt{
				&Op{Name: "pld.system.wait", Args: []Operand{ksig, &ListOp{Elems: []Operand{peer, IntConst(0, INDEX)}}, IntConst(1, INDEX)},
					Attrs: []Attr{{Key: "cmp", Value: EnumAttr{Type: "pld.WaitCmp", Member: "Ge", V: 1}}}, Site: Site{Span: sp(19)}},
			}}, Else: &Block{Stmts: []Stmt{
				&Unary{Op: Neg, X: me, Result: t2, Site: Site{Span: sp(21)}},
			}}},
			&Op{Name: "pld.tile.remote_load", Args: []Operand{kdata, peer, &ListOp{Elems: []Operand{IntConst(0, INDEX), IntConst(0, INDEX)}},
				&ListOp{Elems: []Operand{IntConst(1, INDEX), IntConst(64, INDEX)}}}, Result: recv, Site: Site{Span: sp(22)}},
			&Assign{Dst: half, Src: FloatConst(0.5, FP32), Site: Site{Span: sp(23)}},
			&Op{Name: "pl.mul", Args: []Operand{recv, half}, Result: recv, Site: Site{Span: sp(24)}},
			&Op{Name: "pl.store", Args: []Operand{recv, &ListOp{Elems: []Operand{IntConst(0, INDEX), IntConst(0, INDEX)}}, ky},
				Attrs: []Attr{{Key: "atomic", Value: EnumAttr{Type: "pl.AtomicType", Member: "None_", V: 0}}}, Result: ky, Site: Site{Span: sp(25)}},
			&Return{Value: ky, Site: Site{Span: sp(26)}},
		}},
	}

	// Orchestration wrapper.
	ox := &Var{Name: "x", Type: vec}
	oy := &Var{Name: "y", Type: vec}
	odata := &Var{Name: "data", Type: win}
	osig := &Var{Name: "signal", Type: sigKern}
	oret := &Var{Name: "%0", Type: vec, Temp: true}
	wrapper := &Func{Name: "per_rank", Level: Orchestration, Span: sp(30),
		Params: []*Param{{Var: ox}, {Var: oy, Dir: Out}, {Var: odata, Dir: InOut}, {Var: osig, Dir: InOut}},
		Result: vec,
		Body: &Block{Stmts: []Stmt{
			&Call{Callee: kernel, Args: []Operand{ox, oy, odata, osig}, Result: oret, Site: Site{Span: sp(31)}},
			&Return{Value: oret, Site: Site{Span: sp(31)}},
		}},
	}

	// Host orchestrator.
	hx := &Var{Name: "x", Type: hostVec}
	hy := &Var{Name: "y", Type: hostVec}
	dbuf := &Var{Name: "data_buf", Type: &Ptr{Bytes: ConstDim(256)}}
	sbuf := &Var{Name: "signal_buf", Type: &Ptr{Bytes: ConstDim(8)}}
	ws := &Var{Name: "%0", Type: &Scalar{DType: INT64}, Temp: true}
	r := &Var{Name: "r", Type: idx}
	data := &Var{Name: "data", Type: win}
	sig := &Var{Name: "signal", Type: sigHost}
	xr := &Var{Name: "%1", Type: vec, Temp: true}
	yr := &Var{Name: "%2", Type: vec, Temp: true}
	host := &Func{Name: "ring_shift", Level: Host, Span: sp(40),
		Params: []*Param{{Var: hx}, {Var: hy, Dir: Out}},
		Body: &Block{Stmts: []Stmt{
			&Op{Name: "pld.alloc_window_buffer", Args: []Operand{&ListOp{Elems: []Operand{IntConst(1, INDEX), IntConst(64, INDEX)}}},
				Attrs: []Attr{{Key: "dtype", Value: DTypeAttr(FP32)}}, Result: dbuf, Site: Site{Span: sp(41)}},
			&Op{Name: "pld.alloc_window_buffer", Args: []Operand{IntConst(8, INDEX)}, Result: sbuf, Site: Site{Span: sp(42)}},
			&Op{Name: "pld.world_size", Result: ws, Site: Site{Span: sp(43)}},
			&For{Var: r, Start: IntConst(0, INDEX), Stop: ws, Step: IntConst(1, INDEX), Site: Site{Span: sp(43)}, Body: &Block{Stmts: []Stmt{
				&Op{Name: "pld.window", Args: []Operand{dbuf, &ListOp{Elems: []Operand{IntConst(1, INDEX), IntConst(64, INDEX)}}},
					Attrs: []Attr{{Key: "dtype", Value: DTypeAttr(FP32)}}, Result: data, Site: Site{Span: sp(44)}},
				&Op{Name: "pld.window", Args: []Operand{sbuf, &ListOp{Elems: []Operand{IntConst(2, INDEX), IntConst(1, INDEX)}}},
					Attrs: []Attr{{Key: "dtype", Value: DTypeAttr(INT32)}}, Result: sig, Site: Site{Span: sp(45)}},
				&Index{X: hx, Index: r, Result: xr, Site: Site{Span: sp(46)}},
				&Index{X: hy, Index: r, Result: yr, Site: Site{Span: sp(46)}},
				&Call{Callee: wrapper, Args: []Operand{xr, yr, data, sig}, Device: r,
					Binds: []Bind{{Sym: "NR", Dim: ConstDim(2)}}, Site: Site{Span: sp(46)}},
			}}},
			&Return{Site: Site{Span: sp(47)}},
		}},
	}
	return &Program{Name: "ring_shift", Ranks: 2, Platform: "910B", Funcs: []*Func{host, wrapper, kernel}, Entry: host}
}

func TestPrintGolden(t *testing.T) {
	path := filepath.Join("testdata", "print.txtar")
	data, err := os.ReadFile(path)
	if err != nil && !*update {
		t.Fatal(err)
	}
	a := txtar.Parse(data)
	p := handProgram()
	got := map[string]string{
		"hand.ir":       Print(p),
		"hand-lines.ir": PrintOptions{Lines: true}.Print(p),
		"kernel.ir":     p.Func("shift_step").String(),
	}
	if *update {
		a.Files = nil
		for _, name := range []string{"hand.ir", "hand-lines.ir", "kernel.ir"} {
			a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(got[name])})
		}
		if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, text := range got {
		want, ok := archiveFile(a, name)
		if !ok {
			t.Errorf("%s: no golden section; run go test -update", name)
			continue
		}
		if text != want {
			t.Errorf("%s differs from golden:\n--- got\n%s--- want\n%s", name, text, want)
		}
	}
}

func TestPrintIsDeterministic(t *testing.T) {
	a, b := Print(handProgram()), Print(handProgram())
	if a != b {
		t.Fatalf("two prints of equal programs differ")
	}
}

func TestLinesColumn(t *testing.T) {
	out := PrintOptions{Lines: true}.Print(handProgram())
	n := 0
	for _, l := range strings.Split(out, "\n") {
		i := strings.Index(l, "# line ")
		if i < 0 {
			continue
		}
		n++
		if i < LineColumn {
			t.Errorf("line comment at column %d, want >= %d: %q", i, LineColumn, l)
		}
		if i > LineColumn && l[i-1] != ' ' {
			t.Errorf("line comment not separated: %q", l)
		}
	}
	if n == 0 {
		t.Fatal("no line comments printed")
	}
}

func TestConstString(t *testing.T) {
	cases := []struct {
		c    *Const
		want string
	}{
		{IntConst(5, INDEX), "5"},
		{IntConst(-3, INT32), "-3:INT32"},
		{FloatConst(1, FP32), "1.0"},
		{FloatConst(0.25, FP16), "0.25:FP16"},
		{FloatConst(1e20, FP32), "1e+20"},
		{BoolConst(true), "True"},
		{BoolConst(false), "False"},
	}
	for _, c := range cases {
		if got := c.c.String(); got != c.want {
			t.Errorf("%+v prints %q, want %q", *c.c, got, c.want)
		}
	}
}

// archiveFile returns the text of the file called name in a.
func archiveFile(a *txtar.Archive, name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// TestFormatFloat checks the IR text of float constants: Python's words
// for the non-finite ones (NonFiniteText, which repr(float) shares), and a
// ".0" on an integral value so it reads back as a float.
func TestFormatFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
		{2, "2.0"}, {0.5, "0.5"}, {-1e21, "-1e+21"},
	} {
		if got := formatFloat(c.f); got != c.want {
			t.Errorf("formatFloat(%v) = %q, want %q", c.f, got, c.want)
		}
	}
	if got := NonFiniteText(1.5); got != "" {
		t.Errorf("NonFiniteText(1.5) = %q, want \"\"", got)
	}
}
