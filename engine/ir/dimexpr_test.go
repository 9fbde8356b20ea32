package ir

import "testing"

func TestDimValue(t *testing.T) {
	syms := map[string]int64{"M": 64, "N": 3}
	for _, c := range []struct {
		sym  string
		want int64
		ok   bool
	}{
		{"M", 64, true},
		{"(M * 2)", 128, true},
		{"((M * N) + 1)", 193, true},
		{"(M // 5)", 12, true},
		{"(M % 5)", 4, true},
		{"(M / 5)", 12, true},
		{"(-7 // 2)", -4, true},
		{"(M - K)", 0, false}, // K is unbound
		{"(M // 0)", 0, false},
		{"K", 0, false},
	} {
		got, ok := DimValue(c.sym, syms)
		if got != c.want || ok != c.ok {
			t.Errorf("DimValue(%q) = %d, %v; want %d, %v", c.sym, got, ok, c.want, c.ok)
		}
	}
}

func TestBindDim(t *testing.T) {
	for _, c := range []struct {
		sym   string
		v     int64
		known map[string]int64
		want  map[string]int64 // the symbols bound besides sym itself
	}{
		{"(M * 2)", 128, nil, map[string]int64{"M": 64}},
		{"(2 * M)", 128, nil, map[string]int64{"M": 64}},
		{"((M * 4) + 8)", 24, nil, map[string]int64{"M": 4}},
		{"(10 - M)", 7, nil, map[string]int64{"M": 3}},
		{"(M - 1)", 7, nil, map[string]int64{"M": 8}},
		{"(NR * SIZE)", 32, map[string]int64{"SIZE": 8}, map[string]int64{"NR": 4, "SIZE": 8}},
		{"(M * 3)", 128, nil, map[string]int64{}},                            // 128 is no multiple of 3: M stays unbound
		{"(M // 2)", 5, nil, map[string]int64{}},                             // floor division loses M
		{"(M * N)", 12, nil, map[string]int64{}},                             // two unknowns
		{"(M * 2)", 128, map[string]int64{"M": 9}, map[string]int64{"M": 9}}, // a bound symbol is kept
	} {
		syms := map[string]int64{}
		for k, v := range c.known {
			syms[k] = v
		}
		BindDim(c.sym, c.v, syms)
		if syms[c.sym] != c.v {
			t.Errorf("BindDim(%q, %d) left %q = %d", c.sym, c.v, c.sym, syms[c.sym])
		}
		delete(syms, c.sym)
		if len(syms) != len(c.want) {
			t.Errorf("BindDim(%q, %d) bound %v, want %v", c.sym, c.v, syms, c.want)
			continue
		}
		for k, v := range c.want {
			if syms[k] != v {
				t.Errorf("BindDim(%q, %d) bound %v, want %v", c.sym, c.v, syms, c.want)
			}
		}
	}
}

func TestDimSymbols(t *testing.T) {
	got := DimSymbols("((M * N) + (M // 2))")
	want := []string{"M", "N", "M"}
	if len(got) != len(want) {
		t.Fatalf("DimSymbols = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("DimSymbols = %v, want %v", got, want)
		}
	}
	if d := SymDim("(M * 2)"); !d.IsComposite() || SymDim("M").IsComposite() {
		t.Error("IsComposite: want (M * 2) composite and M not")
	}
}

// TestDimMax checks the upper bounds PyPTO's analyzer proves (each case
// with a bound was one its tile.load bounds check used, at MirrorCommit).
func TestDimMax(t *testing.T) {
	for _, c := range []struct {
		dim  Dim
		max  int64
		want bool
	}{
		{ConstDim(8), 8, true},
		{SymDim("M"), 0, false},
		{SymDim("(M % 4)"), 3, true},
		{SymDim("((M % 4) + 1)"), 4, true},
		{SymDim("((M % 4) * 2)"), 6, true},
		{SymDim("(2 * (M % 4))"), 6, true},
		{SymDim("((M % 8) // 2)"), 3, true},
		{SymDim("(8 - (M % 4))"), 8, true},
		{SymDim("(8 - M)"), 0, false}, // nothing is proven of M itself
		{SymDim("((M % 4) - 1)"), 2, true},
		{SymDim("(M // 4)"), 0, false},
		{SymDim("(M * 2)"), 0, false},
		{SymDim("(M % N)"), 0, false},
	} {
		got, ok := DimMax(c.dim)
		if ok != c.want || (ok && got != c.max) {
			t.Errorf("DimMax(%s) = %d, %v; want %d, %v", c.dim, got, ok, c.max, c.want)
		}
	}
}

// TestDimRecovers checks which host tensor dimensions give PyPTO's host
// codegen back their pl.dynamic symbol.
func TestDimRecovers(t *testing.T) {
	for _, c := range []struct {
		dim  string
		want bool
	}{
		{"M", true},
		{"(M + 1)", true},
		{"(2 - M)", true},
		{"(M * 2)", true},
		{"(2 * M)", true},
		{"(M // 4)", true},
		{"(M * 0)", false},
		{"(4 // M)", false},
		{"(M % 4)", false},
		{"((M % 4) + 1)", false},
		{"((M + 1) * 2)", false},
		{"(M * N)", false},
		{"N", false},
	} {
		if got := DimRecovers(SymDim(c.dim), "M"); got != c.want {
			t.Errorf("DimRecovers(%s, M) = %v, want %v", c.dim, got, c.want)
		}
	}
}
