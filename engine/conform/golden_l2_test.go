package conform

import (
	"context"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
)

// TestConformDiscoverChip: a program with no HOST level runs on one chip,
// at the orchestration its test selects by name, or as a whole program
// when the test selects none or several of several.
func TestConformDiscoverChip(t *testing.T) {
	src := []byte(`import pypto.language as pl


@pl.program
class Pair:
    @pl.function(type=pl.FunctionType.Orchestration)
    def left(self, x: pl.Tensor[[8, 8], pl.FP32]):
        pass

    @pl.function(type=pl.FunctionType.Orchestration)
    def right(self, x: pl.Tensor[[8, 8], pl.FP32]):
        pass


@pl.program
class Solo:
    @pl.function(type=pl.FunctionType.Orchestration)
    def only(self, x: pl.Tensor[[8, 8], pl.FP32]):
        pass


class TestPair:
    def test_left(self, device_ids):
        built = compile(Pair)
        built["left"](device_ids)

    def test_both(self):
        built = compile(Pair)
        assert built.left is not built.right

    def test_layout(self):
        compile(Pair)


def test_solo(device_ids):
    compile(Solo, device_ids=device_ids[:2])
`)
	file, err := parseForTest(src)
	if err != nil {
		t.Fatal(err)
	}
	progs, cases := discoverCases(file)
	if len(progs) != 2 || len(progs[0].Chips) != 2 || len(progs[0].Hosts) != 0 {
		t.Fatalf("programs %+v, want Pair with two chip orchestrations and Solo", progs)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.String())
	}
	want := []string{
		"TestPair.test_left Pair.left P=1",
		"TestPair.test_both  P=1",
		"TestPair.test_layout  P=1",
		"test_solo Solo.only P=1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got cases\n%q\nwant\n%q", got, want)
	}
	if n := cases[len(cases)-1].Note; !strings.Contains(n, "one chip, not on the 2 devices") {
		t.Errorf("test_solo's note %q does not say its two devices are not used", n)
	}
}

// TestDispatchSurface runs the port of test_dispatch_surface on our own
// two-orchestration program, and checks it notices a wrong expectation.
func TestDispatchSurface(t *testing.T) {
	src, err := os.ReadFile("../check/testdata/ok/l2_only.py")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := engine.Options{Ranks: 1}
	mod := engine.Load(ctx, "l2_only.py", src, o)
	s := conformCaseSpec{Program: &conformProgram{Name: "Blend", Class: true, Chips: []string{"blend", "distance"}}}
	if msg := dispatchSurface([]string{"blend", "distance"}, []string{"x", "w", "out"}, "missing")(ctx, mod, s, o); msg != "" {
		t.Errorf("the port fails on a program that does what the test asserts: %s", msg)
	}
	for _, bad := range []struct {
		names, params []string
		want          string
	}{
		{[]string{"blend"}, []string{"x", "w", "out"}, "the entries are"},
		{[]string{"blend", "distance"}, []string{"a", "b", "f"}, "has parameters"},
	} {
		if msg := dispatchSurface(bad.names, bad.params, "missing")(ctx, mod, s, o); !strings.Contains(msg, bad.want) {
			t.Errorf("names %q params %q: %q, want it to say %q", bad.names, bad.params, msg, bad.want)
		}
	}
}
