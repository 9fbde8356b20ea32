package check_test

import (
	"os"
	"strings"
	"testing"

	"pldworkbench/tutorials"
	"pldworkbench/tutorials/check"
)

// TestReferenceCard regenerates the operation reference from the checker's
// table and compares it with tutorials/reference.md; -update rewrites it.
func TestReferenceCard(t *testing.T) {
	got := check.ReferenceCard()
	if *update {
		if err := os.WriteFile("../reference.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := tutorials.DocSource("reference")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Error("tutorials/reference.md differs from the checker's table: go test ./tutorials/check -run TestReferenceCard -update")
	}
	for _, op := range []string{"pld.tensor.put", "pld.system.notify", "pld.system.wait", "pld.tile.remote_load", "pl.load"} {
		if !strings.Contains(got, "## "+op+"\n") {
			t.Errorf("the card has no %s", op)
		}
	}
	if !strings.Contains(got, "`pld.tensor.put(dst, peer, src, dst_offsets=None, src_offsets=None, shape=None, *, atomic=") {
		t.Error("put's signature is not in argument order on the card")
	}
}

const costBegin = "<!-- cost table: generated from engine/emu; go test ./tutorials/check -run TestIntroCostTable -update -->\n"
const costEnd = "<!-- end of cost table -->"

// TestIntroCostTable regenerates step 0's table of the cost model's
// constants from the emulator's profiles and compares it.
func TestIntroCostTable(t *testing.T) {
	src, err := tutorials.DocSource("intro")
	if err != nil {
		t.Fatal(err)
	}
	i, j := strings.Index(src, costBegin), strings.Index(src, costEnd)
	if i < 0 || j < i {
		t.Fatal("intro.md has no cost table markers")
	}
	got := src[:i+len(costBegin)] + check.CostTable() + src[j:]
	if *update {
		if err := os.WriteFile("../intro.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != src {
		t.Error("intro.md's cost table differs from the emulator's profiles: go test ./tutorials/check -run TestIntroCostTable -update")
	}
}
