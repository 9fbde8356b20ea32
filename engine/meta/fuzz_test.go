package meta

import (
	"testing"

	"pldworkbench/engine/syntax"
)

// FuzzEval evaluates arbitrary expressions after the semantics prelude under
// a small budget: whatever the input, evaluation must end with a value or a
// diagnostic, never a panic or a hang.
func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		"-7 // 2", "'%5.2f|%-4s' % (3.14159, 'ab')", "f\"{SIZE:{8}}|{xs!r:>12}\"", "[i for i in range(9) if i % 2]",
		"{k: v for k, v in d.items()}", "sorted(xs, key=lambda v: -v)", "'a,b'.split(',')[1:]", "range(10)[::-3]",
		"make_adder(2)(3) ** 5", "fact(12) // 7 % 5", "(lambda *a, **k: (a, k))(1, x=2)", "[[]] * 3 == [[], [], []]",
		"'{0}{name!r:^9}'.format(1, name='n')", "divmod(-9, 4)", "int('0x1f', 0)", "max(d, key=d.get)",
	} {
		f.Add(seed)
	}
	m, errs := Load(mustParse(f, semanticsPrelude), Options{MaxSteps: 20000})
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, errs := syntax.ParseExpr("<fuzz>", src)
		if errs.HasErrors() {
			return
		}
		v, d := EvalExpr(m, e, m.Globals())
		if (v == nil) == (d == nil) {
			t.Fatalf("EvalExpr(%q) = %v, %v: want exactly one of a value and a diagnostic", src, v, d)
		}
		if v != nil {
			_ = Repr(v)
		}
	})
}

func mustParse(f *testing.F, src string) *syntax.File {
	file, errs := syntax.ParseFile("prelude.py", []byte(src))
	if errs.HasErrors() {
		f.Fatal(errs)
	}
	return file
}
