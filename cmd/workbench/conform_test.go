package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine/conform"
)

// TestConformNeedsUpstream: without a clone of upstream the command says
// exactly what it needs and exits 2 — never a silent pass.
func TestConformNeedsUpstream(t *testing.T) {
	t.Setenv(conform.ConformEnv, "")
	var out, errb bytes.Buffer
	if code := run([]string{"conform"}, &out, &errb); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), conform.ConformEnv) || !strings.Contains(errb.String(), conform.ConformCommit) {
		t.Errorf("stderr %q does not say what the suite needs", errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out.String())
	}
}

// TestConformTable runs the suite on one upstream file when a clone is
// there: every row is marked upstream's and the summary counts them.
func TestConformTable(t *testing.T) {
	dir := os.Getenv(conform.ConformEnv)
	if dir == "" {
		t.Skip(conform.ConformNeed)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"conform", "--only", "03_window_buffer"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "upstream  examples/distributed/03_window_buffer.py") || !strings.Contains(s, "1 cases of 1 programs in 1 files: 1 pass") {
		t.Errorf("table:\n%s", s)
	}
}
