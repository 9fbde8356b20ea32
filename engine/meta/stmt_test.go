package meta

import (
	"os"
	"testing"
)

// TestStatements runs testdata/statements.py and compares each global with
// the repr CPython 3 gives it after running the same file.
func TestStatements(t *testing.T) {
	src, err := os.ReadFile("testdata/statements.py")
	if err != nil {
		t.Fatal(err)
	}
	m := load(t, string(src))
	for _, tc := range []struct{ name, want string }{
		{"over_range", "[10, 20, 30]"},
		{"over_str", "['A', 'B', 'C']"},
		{"ch", "'c'"},
		{"over_dict", "['x', 'y']"},
		{"key", "'y'"},
		{"over_tuple", "18"},
		{"v", "7"},
		{"found", "7"},
		{"n", "2"},
		{"no_break", "[0, 2, 'else']"},
		{"count", "-6"},
		{"nested", "[(0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]"},
		{"i", "2"},
		{"j", "2"},
		{"a", "2"},
		{"b", "1"},
		{"p", "3"},
		{"q", "4"},
		{"r", "5"},
		{"head", "1"},
		{"tail", "[2, 3, 4]"},
		{"init", "['x', 'y']"},
		{"last", "'z'"},
		{"idx", "1"},
		{"lo", "2"},
		{"hi", "3"},
		{"x", "8"},
		{"y", "7"},
		{"grid", "[[0, 0, 0], [0, 0, 5]]"},
		{"text", "'ababab'"},
		{"bits", "60"},
		{"shared", "[1, 2, 3]"},
		{"alias", "[1, 2, 3]"},
		{"copied", "[1, 2, 3, 99]"},
		{"sliced", "[1, 'a', 5, 6, 7, 8, 9]"},
		{"counts", "{'the': 2, 'hat': 1}"},
		{"word", "'hat'"},
		{"d1", "'a:64'"},
		{"d2", "'b-8-1-2-y=2-z=1'"},
		{"d3", "'c:4'"},
		{"d4", "'d/16/mode=ring'"},
		{"c_value", "16"},
		{"tripled", "[0, 3, 6, 9]"},
		{"default_list_calls", "[[1], [2]]"},
		{"LEVEL", "2"},
		{"fibs", "[0, 1, 1, 2, 3, 5, 8, 13, 21, 34]"},
		{"signs", "['neg', 'zero', 'pos']"},
		{"nothing", "None"},
		{"leak", "'outer'"},
		{"squares", "[0, 1, 2]"},
		{"config_height", "8"},
		{"div_ok", "(3, ['ok', 'done'])"},
		{"div_zero", "(None, ['zero', 'done'])"},
		{"guard_ok", "4"},
		{"guard_bad", "'rejected: need two ranks, got 1'"},
		{"reraised", "(True, \"'k'\")"},
		{"flags", "(True, False, False, True)"},
		{"summary", "'10 fibs, last=  34, ratio=1.619'"},
	} {
		v, ok := m.Globals().Vars[tc.name]
		if !ok {
			t.Errorf("%s is not bound", tc.name)
			continue
		}
		if got := Repr(v); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
	}
}
