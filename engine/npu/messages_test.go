package npu_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/npu"
	"pldworkbench/kernels"
)

// The stderr shapes below are PyPTO's (e2d0f78ae) own, as its excepthook
// and Python print them (copied from runs of real PyPTO, with the line
// numbers put where this test's exported script has its program); the
// places they name in the exported script must come back as lines of the
// learner's file.
func TestMessagesNameTheLearnersLines(t *testing.T) {
	k, _ := kernels.Get("01_hello_rank")
	res, err := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Export(context.Background(), engine.ExportOptions{Options: engine.Options{Entry: "hello_rank", Ranks: 4}})
	if err != nil || res.Script == nil {
		t.Fatalf("export: %v %v", err, res.Diags)
	}
	start, n := npu.ProgramLines(res.Script)
	lines := strings.Split(string(res.Script), "\n")
	if start == 0 || strings.Join(lines[start-1:start-1+n], "\n")+"\n" != string(k.Source) {
		t.Fatalf("ProgramLines says %d lines from line %d, which are not the program", n, start)
	}
	at := func(l int) int { return start + l - 1 } // a program line in the script
	parser := fmt.Sprintf(`2026-12-01 14:30:00.000 D | Processing AssignStmt for x
Error: pld.system.world_size() can only be called in HOST orchestration context
  --> /tmp/pld-pypto-1/exported.py:%d:5
   |
13 |     count = pld.world_size()
   |     ^^^^^
   |
   = help: Use '@pl.function(level=pl.Level.HOST)' on the enclosing function

note: run with `+"`PTO_BACKTRACE=1`"+` environment variable to display a backtrace.`, at(13))
	r := npu.RefusalOf(parser, res.Script, "step01.py")
	if r.Error != "pld.system.world_size() can only be called in HOST orchestration context" || r.Where != "step01.py:13:5" || r.Line != 13 || r.Col != 5 ||
		len(r.Help) != 1 || r.Internal {
		t.Errorf("parser error read as %+v", r)
	}
	internal := fmt.Sprintf(`2026-12-01 14:30:00.000 W | [warning] unused at /tmp/pld-pypto-1/exported.py:%d:5
Traceback (most recent call last):
  File "/tmp/pld-pypto-1/exported.py", line %d, in <module>
    raise SystemExit(_pld_main())
  File "/tmp/pld-pypto-1/exported.py", line %d, in hello_rank
    x = 1
  File "/home/you/pypto/python/pypto/backend/pto_backend.py", line 1598, in _generate_with_distributed
    orch_code = cg.generate(transformed_program)
pypto.InternalError: WindowBuffer 'sig' is not a slot of any open CommDomainScopeStmt [/tmp/pld-pypto-1/exported.py:%d:20]
Check failed: false at /home/you/pypto/src/codegen/distributed/distributed_codegen.cpp:154

C++ Traceback (most recent call last):
 File "../csu/libc-start.c", line 360
`, at(30), start+n+50, at(40), at(41))
	r = npu.RefusalOf(internal, res.Script, "step01.py")
	if !strings.HasPrefix(r.Error, "pypto.InternalError: WindowBuffer 'sig'") || !strings.Contains(r.Error, "[step01.py:41:20]") ||
		r.Where != "step01.py:41:20" || !r.Internal || r.Check != "false at src/codegen/distributed/distributed_codegen.cpp:154" {
		t.Errorf("internal error read as %+v", r)
	}
	m := npu.Messages(internal, res.Script, "step01.py")
	for _, bad := range []string{" D | ", "pld-pypto-1", "libc-start", "C++ Traceback"} {
		if strings.Contains(m, bad) {
			t.Errorf("the messages still hold %q:\n%s", bad, m)
		}
	}
	for _, want := range []string{"unused at step01.py:30:5", `File "step01.py", line 40, in hello_rank`, "the workbench's driver, line", "[step01.py:41:20]"} {
		if !strings.Contains(m, want) {
			t.Errorf("the messages do not say %q:\n%s", want, m)
		}
	}
	// Without a location in the message, the innermost frame in the
	// program is where.
	r = npu.RefusalOf(strings.Replace(internal, fmt.Sprintf(" [/tmp/pld-pypto-1/exported.py:%d:20]", at(41)), "", 1), res.Script, "step01.py")
	if r.Where != "step01.py:40" {
		t.Errorf("the innermost program frame is not where: %+v", r)
	}
}
