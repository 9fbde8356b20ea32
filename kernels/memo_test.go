package kernels

import (
	"slices"
	"strings"
	"testing"
)

// getUncached is Get as it was before the index: parse every embedded
// file, then search. It is the baseline of BenchmarkGet.
func getUncached(name string) (Kernel, bool) {
	name = strings.TrimSuffix(name, ".py")
	for _, k := range parseAll() {
		if k.Name == name {
			return k, true
		}
	}
	return Kernel{}, false
}

// BenchmarkGet is the server's most frequent kernel lookup, before and
// after parsing the embedded headers once: parse-every-call re-reads and
// re-parses all the files (what Get did), memoized reads the index.
func BenchmarkGet(b *testing.B) {
	for _, bm := range []struct {
		name string
		get  func(string) (Kernel, bool)
	}{{"parse-every-call", getUncached}, {"memoized", Get}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := bm.get("08_allreduce_mesh_starter"); !ok {
					b.Fatal("no kernel")
				}
			}
		})
	}
}

// TestIndexIsTheFiles checks that the memoized index holds what parsing
// the files again gives, and that a caller appending to a kernel's slices
// cannot change what the next caller sees.
func TestIndexIsTheFiles(t *testing.T) {
	fresh := parseAll()
	got := append(append(All(), Bugs()...), Starters()...)
	if len(got) != len(fresh) {
		t.Fatalf("the index has %d kernels, the files %d", len(got), len(fresh))
	}
	for _, want := range fresh {
		k, ok := Get(want.File)
		if !ok || k.File != want.File || string(k.Source) != string(want.Source) ||
			!slices.Equal(k.Entries, want.Entries) || !slices.Equal(k.Ranks, want.Ranks) ||
			!slices.Equal(k.Goldens, want.Goldens) || !slices.Equal(k.Warnings, want.Warnings) ||
			k.Bug != want.Bug || k.Starter != want.Starter {
			t.Errorf("Get(%s) = %+v, the file parses to %+v", want.File, k, want)
		}
	}
	k, _ := Get("08_allreduce_mesh")
	_ = append(k.Ranks, 99)
	_ = append(k.Entries, "changed")
	again, _ := Get("08_allreduce_mesh")
	if !slices.Equal(again.Ranks, []int{2, 3, 4, 8}) || len(again.Entries) != 1 {
		t.Errorf("after a caller's append, Get gives ranks %v entries %v", again.Ranks, again.Entries)
	}
}
