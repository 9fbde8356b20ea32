package conform

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"pldworkbench/engine/syntax"
)

var updateConform = flag.Bool("update-conform", false, "rewrite testdata/conform/baseline.json from this run")

// conformBaseline is what the suite gave when it was last recorded: the
// count per status and every case that passed. A later run may do better;
// it may not do worse.
type conformBaseline struct {
	Upstream string         `json:"upstream"`
	Counts   map[string]int `json:"counts"`
	Passing  []string       `json:"passing"` // file | program | case | entry | P
}

func caseKey(c ConformCase) string {
	return c.File + " | " + c.Program + " | " + c.Case + " | " + c.Entry + " | P=" + itoa(c.Ranks)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestConform runs upstream PyPTO's distributed system tests and examples
// (read from the local clone $PLD_UPSTREAM names) and fails when a case
// that passed in the recorded baseline no longer passes, or when more
// cases fail than the baseline's. Every row is upstream's program.
func TestConform(t *testing.T) {
	dir := os.Getenv(ConformEnv)
	if dir == "" {
		t.Skip(ConformNeed)
	}
	snap, err := OpenSnapshot(dir, ConformCommit)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Conform(context.Background(), snap, ConformOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(ConformSummary(rep))
	if len(rep.Cases) == 0 {
		t.Fatal("the suite found no case: the snapshot lacks upstream's distributed tests")
	}
	path := filepath.Join("testdata", "conform", "baseline.json")
	got := conformBaseline{Upstream: rep.Upstream, Counts: rep.Counts}
	for _, c := range rep.Cases {
		if c.Origin != "upstream" {
			t.Errorf("%s: origin %q, want upstream", caseKey(c), c.Origin)
		}
		if c.Status == ConformPass {
			got.Passing = append(got.Passing, caseKey(c))
		}
	}
	sort.Strings(got.Passing)
	if *updateConform {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var base conformBaseline
	if err := json.Unmarshal(b, &base); err != nil {
		t.Fatal(err)
	}
	now := map[string]ConformCase{}
	for _, c := range rep.Cases {
		now[caseKey(c)] = c
	}
	for _, k := range base.Passing {
		c, ok := now[k]
		switch {
		case !ok:
			t.Errorf("baseline case %s is gone", k)
		case c.Status != ConformPass:
			t.Errorf("regression: %s was pass, now %s: %s", k, c.Status, c.Reason)
		}
	}
	if got.Counts[ConformPass] < base.Counts[ConformPass] {
		t.Errorf("%d cases pass, the baseline %d", got.Counts[ConformPass], base.Counts[ConformPass])
	}
	if got.Counts[ConformFail] > base.Counts[ConformFail] {
		for _, c := range rep.Cases {
			if c.Status == ConformFail {
				t.Logf("fail: %s: %s", caseKey(c), c.Reason)
			}
		}
		t.Errorf("%d cases fail, the baseline %d", got.Counts[ConformFail], base.Counts[ConformFail])
	}
	if got.Counts[ConformPass] > base.Counts[ConformPass] {
		t.Logf("%d cases pass, %d more than the baseline: record it with go test ./engine -run TestConform -update-conform", got.Counts[ConformPass], got.Counts[ConformPass]-base.Counts[ConformPass])
	}
}

// TestConformDiscover reads a test module's programs and parametrisation
// without running it: rank counts from the device_ids slice, the cartesian
// product of parametrize lists, factories called with the case's values,
// fixtures with yield parsed and left alone.
func TestConformDiscover(t *testing.T) {
	src := []byte(`import pytest
import pypto.language as pl

SIZE = 64


def _build(n_ranks, size):
    @pl.program
    class P:
        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(self, x: pl.Tensor[[2, 64], pl.FP32]):
            pass

    return P


@pl.program
class Fixed:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[2, 64], pl.FP32]):
        pass


@pytest.fixture
def resource():
    yield 1


class TestIt:
    def _compile(self, program, device_ids):
        return program, device_ids[:2]

    @pytest.mark.parametrize("size", [1, SIZE])
    @pytest.mark.parametrize(("n_ranks", "tag"), [(2, "a"), pytest.param(4, "b", marks=pytest.mark.skip)])
    def test_built(self, device_ids, n_ranks, size, tag):
        prog = _build(n_ranks, size)
        compile(prog, device_ids=device_ids[:n_ranks])

    def test_fixed(self, device_ids):
        self._compile(Fixed, device_ids)
`)
	file, diags := parseForTest(src)
	if diags != nil {
		t.Fatal(diags)
	}
	progs, cases := discoverCases(file)
	if len(progs) != 2 {
		t.Fatalf("got %d programs, want 2 (_build, Fixed)", len(progs))
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.String())
	}
	want := []string{
		"TestIt.test_built[n_ranks=2,tag=\"a\",size=1] _build((2), (1)).host_orch P=2",
		"TestIt.test_built[n_ranks=2,tag=\"a\",size=SIZE] _build((2), (SIZE)).host_orch P=2",
		"TestIt.test_built[n_ranks=4,tag=\"b\",size=1] _build((4), (1)).host_orch P=4",
		"TestIt.test_built[n_ranks=4,tag=\"b\",size=SIZE] _build((4), (SIZE)).host_orch P=4",
		"TestIt.test_fixed Fixed.host P=2",
	}
	if len(got) != len(want) {
		t.Fatalf("got cases\n%q\nwant\n%q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("case %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// TestConformNeedsSnapshot: without a clone the suite says what it needs.
func TestConformNeedsSnapshot(t *testing.T) {
	if _, err := OpenSnapshot("", ConformCommit); err == nil || err.Error() != ConformNeed {
		t.Errorf("OpenSnapshot(\"\") = %v, want the message saying what the suite needs", err)
	}
	if _, err := OpenSnapshot(t.TempDir(), ConformCommit); err == nil {
		t.Error("OpenSnapshot of an empty directory succeeded")
	}
}

func parseForTest(src []byte) (*syntax.File, error) {
	f, diags := syntax.ParseFile("t.py", src)
	if diags.HasErrors() {
		return nil, diags
	}
	return f, nil
}
