package meta

import (
	"errors"
	"math"
	"testing"
)

// TestFloorDivMod checks // and % on every small int pair against the
// definition Python uses: q = floor(a / b), r = a - b*q.
func TestFloorDivMod(t *testing.T) {
	for a := int64(-9); a <= 9; a++ {
		for b := int64(-4); b <= 4; b++ {
			if b == 0 {
				continue
			}
			q := int64(math.Floor(float64(a) / float64(b)))
			r := a - b*q
			gotQ, err := Binary("//", Int{a}, Int{b})
			if err != nil || gotQ != Value(Int{q}) {
				t.Errorf("%d // %d = %v, %v; want %d", a, b, gotQ, err, q)
			}
			gotR, err := Binary("%", Int{a}, Int{b})
			if err != nil || gotR != Value(Int{r}) {
				t.Errorf("%d %% %d = %v, %v; want %d", a, b, gotR, err, r)
			}
			// Floats follow the same rule.
			fq, _ := Binary("//", Float{float64(a)}, Int{b})
			fr, _ := Binary("%", Int{a}, Float{float64(b)})
			if fq != Value(Float{float64(q)}) || fr != Value(Float{float64(r)}) {
				t.Errorf("float %d //,%% %d = %v, %v; want %d, %d", a, b, fq, fr, q, r)
			}
		}
	}
}

func TestBinaryAPI(t *testing.T) {
	for _, tc := range []struct {
		op   string
		x, y Value
		want string
	}{
		{"+", Bool{true}, Int{1}, "2"},
		{"*", Bool{true}, Bool{true}, "1"},
		{"&", Bool{true}, Bool{false}, "False"},
		{"**", Int{2}, Int{10}, "1024"},
		{"**", Int{2}, Int{-2}, "0.25"},
		{"/", Int{7}, Int{2}, "3.5"},
		{"/", Int{6}, Int{3}, "2.0"},
		{"+", Str{"a"}, Str{"b"}, "'ab'"},
		{"*", Int{2}, &List{Elts: []Value{Int{0}}}, "[0, 0]"},
		{"+", Tuple{Elts: []Value{Int{1}}}, Tuple{}, "(1,)"},
		{"%", Str{"%03d"}, Int{7}, "'007'"},
		{">>", Int{-1}, Int{70}, "-1"},
		{"<<", Int{1}, Int{62}, "4611686018427387904"},
		{"-", Float{0.5}, Bool{true}, "-0.5"},
	} {
		got, err := Binary(tc.op, tc.x, tc.y)
		if err != nil {
			t.Errorf("%s %s %s: %v", Repr(tc.x), tc.op, Repr(tc.y), err)
			continue
		}
		if Repr(got) != tc.want {
			t.Errorf("%s %s %s = %s, want %s", Repr(tc.x), tc.op, Repr(tc.y), Repr(got), tc.want)
		}
	}
	for _, tc := range []struct {
		op       string
		x, y     Value
		typ, cod string
	}{
		{"//", Int{1}, Int{0}, "ZeroDivisionError", CodeZeroDiv},
		{"+", Int{1}, Str{"a"}, "TypeError", CodeType},
		{"*", Int{math.MaxInt64}, Int{2}, "OverflowError", CodeOverflow},
		{"<<", Int{1}, Int{-1}, "ValueError", CodeValue},
		{"@", Int{1}, Int{1}, "TypeError", CodeType},
	} {
		_, err := Binary(tc.op, tc.x, tc.y)
		var e *Error
		if !errors.As(err, &e) || e.Type != tc.typ || e.Code != tc.cod || e.Hint == "" {
			t.Errorf("%s %s %s: error %v, want %s (%s) with a hint", Repr(tc.x), tc.op, Repr(tc.y), err, tc.typ, tc.cod)
		}
	}
}

func TestUnaryCompareTruth(t *testing.T) {
	for _, tc := range []struct {
		op   string
		x    Value
		want string
	}{
		{"-", Bool{true}, "-1"},
		{"~", Int{5}, "-6"},
		{"+", Bool{false}, "0"},
		{"not", Str{""}, "True"},
		{"-", Float{0}, "-0.0"},
	} {
		got, err := Unary(tc.op, tc.x)
		if err != nil || Repr(got) != tc.want {
			t.Errorf("%s %s = %v, %v; want %s", tc.op, Repr(tc.x), got, err, tc.want)
		}
	}
	if _, err := Unary("-", Str{"x"}); err == nil {
		t.Error("-'x' did not fail")
	}

	list := &List{Elts: []Value{Int{1}, Str{"a"}}}
	for _, tc := range []struct {
		op   string
		x, y Value
		want bool
	}{
		{"==", Int{1}, Float{1}, true},
		{"==", Bool{true}, Int{1}, true},
		{"==", Str{"1"}, Int{1}, false},
		{"<", Str{"abc"}, Str{"abd"}, true},
		{">=", Tuple{Elts: []Value{Int{1}, Int{2}}}, Tuple{Elts: []Value{Int{1}}}, true},
		{"in", Str{"a"}, list, true},
		{"not in", Int{2}, list, true},
		{"in", Int{4}, Range{0, 10, 2}, true},
		{"in", Int{5}, Range{0, 10, 2}, false},
		{"is", None, None, true},
		{"is not", list, &List{Elts: list.Elts}, true},
		{"==", list, &List{Elts: list.Elts}, true},
		{"==", DType{Name: "FP32", Bits: 32}, DType{Name: "FP32", Bits: 32}, true},
		{"==", Enum{Type: "pld.WaitCmp", Member: "Ge", V: 1}, Int{1}, false},
	} {
		got, err := Compare(tc.op, tc.x, tc.y)
		if err != nil || got != tc.want {
			t.Errorf("%s %s %s = %v, %v; want %v", Repr(tc.x), tc.op, Repr(tc.y), got, err, tc.want)
		}
	}
	if _, err := Compare("<", Int{1}, None); err == nil {
		t.Error("1 < None did not fail")
	}

	for _, tc := range []struct {
		v    Value
		want bool
	}{
		{Int{0}, false}, {Int{-1}, true}, {Float{0}, false}, {Str{""}, false}, {Str{"0"}, true},
		{None, false}, {Bool{false}, false}, {Tuple{}, false}, {Range{0, 0, 1}, false}, {Range{0, 1, 1}, true},
		{DType{Name: "FP32", Bits: 32}, true},
	} {
		if Truth(tc.v) != tc.want {
			t.Errorf("Truth(%s) = %v, want %v", Repr(tc.v), !tc.want, tc.want)
		}
	}
	if Truth(&List{}) || !Truth(&Dict{Keys: []Value{Int{1}}, Values: []Value{Int{2}}}) {
		t.Error("Truth of containers")
	}
}

func TestRepr(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Float{1e16}, "1e+16"},
		{Float{1e15}, "1000000000000000.0"},
		{Float{0.0001}, "0.0001"},
		{Float{0.00001}, "1e-05"},
		{Float{math.Inf(-1)}, "-inf"},
		{Str{"it's"}, `"it's"`},
		{Str{"a\tb\x01"}, `'a\tb\x01'`},
		{Tuple{Elts: []Value{Str{"x"}}}, "('x',)"},
		{&Set{}, "set()"},
		{Range{0, 5, 1}, "range(0, 5)"},
		{Range{5, 0, -2}, "range(5, 0, -2)"},
		{&Dict{Keys: []Value{Str{"k"}}, Values: []Value{None}}, "{'k': None}"},
		{&Exception{Type: "ValueError", Msg: "bad"}, "ValueError('bad')"},
		{DType{Name: "INT32", Bits: 32}, "pl.INT32"},
		{Enum{Type: "pld.ReduceOp", Member: "Sum"}, "pld.ReduceOp.Sum"},
		{&DynVar{Name: "NR"}, "pl.dynamic('NR')"},
	} {
		if got := Repr(tc.v); got != tc.want {
			t.Errorf("Repr = %s, want %s", got, tc.want)
		}
	}
	// A list that contains itself terminates.
	l := &List{}
	l.Elts = append(l.Elts, l)
	if got := Repr(l); len(got) == 0 || len(got) > 1000 {
		t.Errorf("self-containing list repr has length %d", len(got))
	}
}
