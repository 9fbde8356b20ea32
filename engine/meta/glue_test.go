package meta

import (
	"strings"
	"testing"
)

// TestGeneratorGlue: a test module's pytest fixtures and helper generators
// load (they are defined, never run), and a generator called at compile
// time says plainly that it is not run.
func TestGeneratorGlue(t *testing.T) {
	m := load(t, `import pytest

@pytest.fixture
def resource():
    yield 1

def pairs(n):
    for i in range(n):
        yield i, i + 1

N = 4
`)
	if v := evalOK(t, m, "N"); v.String() != "4" {
		t.Errorf("N = %s, want 4", v)
	}
	d := evalErr(t, m, "pairs(2)")
	if d.Code != CodeUnsupported || !strings.Contains(d.Msg, "generator") {
		t.Errorf("calling a generator: got %s %q, want %s about generators", d.Code, d.Msg, CodeUnsupported)
	}
}
