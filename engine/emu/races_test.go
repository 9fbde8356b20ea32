package emu_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/lower"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
)

// schedules are the schedules every race and schedule test runs under.
var schedules = []string{"fair", "adversarial", "random:1", "random:2", "random:3", "random:1234567"}

// lowered checks and lowers one entry, as engine.Module.Compile does before it
// emulates, so builtin collectives run as the primitives they become.
func lowered(t testing.TB, name, src, entry string, ranks int) *ir.Program {
	t.Helper()
	prog, err := lower.Lower(compile(t, name, src, entry, ranks), "")
	if err != nil {
		t.Fatalf("%s %s: lowering: %v", name, entry, err)
	}
	return prog
}

// runSched runs prog under sched with a copy of in.
func runSched(prog *ir.Program, in map[string]*emu.Tensor, scalars map[string]float64, sched string) *emu.Result {
	cp := map[string]*emu.Tensor{}
	for k, v := range in {
		cp[k] = v.Clone()
	}
	return emu.Run(context.Background(), prog, emu.Options{Inputs: cp, Scalars: scalars, Schedule: sched})
}

// sourceLine returns the 1-based line of the only occurrence of frag.
func sourceLine(t testing.TB, src, frag string) int {
	t.Helper()
	if n := strings.Count(src, frag); n != 1 {
		t.Fatalf("%q occurs %d times, want 1", frag, n)
	}
	return strings.Count(src[:strings.Index(src, frag)], "\n") + 1
}

// TestRaceReports runs each program of testdata/races.py without its
// synchronisation (fenced=0) and with it (fenced=1) under every schedule
// at P = 2, 3, 4, 8: unfenced it must end with status race and a report
// naming exactly the two racing lines, the memory and the missing edge;
// fenced it must be clean.
func TestRaceReports(t *testing.T) {
	const path = "testdata/races.py"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := string(raw)
	for _, c := range []struct {
		entry        string
		first, later string // fragments of the two racing lines, in program order
		region       string // the region's prefix, and where it lives
		where        string
		words        string // in the message
		// exposed: the adversarial schedule runs the read before the
		// write it needs, so the unfenced output differs from the fenced.
		exposed bool
	}{
		{"mailbox_store", "pld.tile.remote_store(mine, mail, right", "got = pl.load(mail, [0, 0], [1, S])\n    y = pl.store(got, [0, 0], y)\n    return y\n\n\n@pl.jit\ndef post_store_dev",
			"mail[0, 0:16]", " on rank ", "no notify/wait orders them: put a barrier between the store and the read", true},
		{"mailbox_put", "pld.tensor.put(mail, right, x)", "got = pl.load(mail, [0, 0], [1, S])\n    y = pl.store(got, [0, 0], y)\n    return y\n\n\n@pl.jit\ndef post_put_dev",
			"mail[0, 0:16]", " on rank ", "put a barrier between the put and the read", true},
		{"crowded_slot", "pld.tile.remote_store(mine, slot, 0, [0, 0])", "",
			"slot[0, 0:16]", " on rank 0", "both stored these bytes", false},
		{"pile_up", "pld.tensor.put(total, 0, x, atomic=pld.AtomicType.Add)", "got = pl.load(total, [0, 0], [1, S])",
			"total[0, 0:16]", " on rank 0", "put a barrier between the atomic put and the read", true},
		{"shared_rows", "y = pl.store(mine, [0, 0], y)", "",
			"y[0, 0:16]", " on the host", "both stored these bytes", false},
	} {
		first := sourceLine(t, src, c.first)
		later := first
		if c.later != "" {
			later = sourceLine(t, src, c.later)
		}
		for _, P := range []int{2, 3, 4, 8} {
			prog := compile(t, path, src, c.entry, P)
			in := fill(prog, "index", 0)
			for _, sched := range schedules {
				what := fmt.Sprintf("%s P=%d %s", c.entry, P, sched)
				fenced := runSched(prog, in, map[string]float64{"fenced": 1}, sched)
				if fenced.Status != emu.StatusOK || len(fenced.Races) != 0 {
					t.Errorf("%s fenced: status %s, races %+v, want ok and none", what, fenced.Status, fenced.Races)
				}
				res := runSched(prog, in, map[string]float64{"fenced": 0}, sched)
				if _, same := allclose(res.Outputs["y"].Floats(), fenced.Outputs["y"].Floats(), 0, 0); sched == "adversarial" && c.exposed && same {
					t.Errorf("%s: the unfenced output equals the fenced one; the adversarial schedule should expose the race", what)
				}
				if res.Status != emu.StatusRace || len(res.Races) != 1 || res.RacesOmitted != 0 {
					t.Errorf("%s unfenced: status %s, %d races (+%d), want race and exactly one", what, res.Status, len(res.Races), res.RacesOmitted)
					continue
				}
				r := res.Races[0]
				if lines := []int{min(r.A.Line, r.B.Line), max(r.A.Line, r.B.Line)}; !slices.Equal(lines, []int{first, later}) {
					t.Errorf("%s: race between lines %d and %d, want %d and %d", what, r.A.Line, r.B.Line, first, later)
				}
				if r.A.Rank == r.B.Rank {
					t.Errorf("%s: both sides are rank %d", what, r.A.Rank)
				}
				for _, side := range []emu.RaceAccess{r.A, r.B} {
					if !strings.HasPrefix(side.Region, c.region+c.where) || side.Op == "" {
						t.Errorf("%s: side %+v, want region %s%s... and an op", what, side, c.region, c.where)
					}
				}
				if !strings.Contains(r.Message, c.words) || !strings.Contains(r.Message, "line "+strconv.Itoa(first)) ||
					!strings.Contains(r.Message, fmt.Sprintf("rank %d", r.A.Rank)) || !strings.Contains(r.Message, fmt.Sprintf("rank %d", r.B.Rank)) {
					t.Errorf("%s: message %q, want both ranks, line %d and %q", what, r.Message, first, c.words)
				}
			}
		}
	}
}

// meshWithout returns step 08's mesh all-reduce with part of its barrier
// deleted, and the lines of its staging store and its remote_load.
func meshWithout(t testing.TB, remove string) (src string, stage, read int) {
	t.Helper()
	k, ok := kernels.Get("08_allreduce_mesh")
	if !ok {
		t.Fatal("no kernel 08_allreduce_mesh")
	}
	orig := string(k.Source)
	if n := strings.Count(orig, remove); n != 1 {
		t.Fatalf("the text to delete occurs %d times, want 1", n)
	}
	src = strings.Replace(orig, remove, "", 1)
	return src, sourceLine(t, src, "part = pl.store(mine, [0, 0], part)"), sourceLine(t, src, "theirs = pld.tile.remote_load(part, peer,")
}

const (
	meshBarrier = "    for peer in pl.range(nranks):\n" +
		"        if peer != me:\n" +
		"            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)\n" +
		meshWait
	meshWait = "    for src in pl.range(nranks):\n" +
		"        if src != me:\n" +
		"            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)\n"
)

// TestMeshWithoutBarrier: step 08 with its barrier removed (all of it, or
// only the waits) is reported at every P >= 2 under every schedule, with
// the staging store and the remote_load named; under the adversarial
// schedule its output is also wrong, while fair hides that.
func TestMeshWithoutBarrier(t *testing.T) {
	for _, cut := range []struct{ name, text string }{{"barrier", meshBarrier}, {"waits", meshWait}} {
		src, stage, read := meshWithout(t, cut.text)
		for _, P := range []int{2, 3, 4, 8} {
			prog := compile(t, "08_without_"+cut.name, src, "mesh_allreduce", P)
			in := fill(prog, "randn", uint64(P))
			want := allreduce(P, in)["y"]
			for _, sched := range schedules {
				what := fmt.Sprintf("without its %s, P=%d, %s", cut.name, P, sched)
				res := runSched(prog, in, nil, sched)
				if res.Status != emu.StatusRace {
					t.Errorf("%s: status %s, want race", what, res.Status)
					continue
				}
				found := false
				for _, r := range res.Races {
					if min(r.A.Line, r.B.Line) == stage && max(r.A.Line, r.B.Line) == read &&
						strings.HasPrefix(r.A.Region, "part[0, 0:64] on rank ") && strings.HasPrefix(r.B.Region, "part[0, 0:64] on rank ") {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: races %+v, want one between the staging store (line %d) and the remote_load (line %d) on part[0, 0:64]", what, res.Races, stage, read)
				}
				_, ok := allclose(res.Outputs["y"].Floats(), want, 1e-5, 1e-5)
				switch sched {
				case "adversarial":
					if ok {
						t.Errorf("%s: the output matches the sum; the adversarial schedule should have exposed the missing %s", what, cut.name)
					}
				case "fair":
					if !ok {
						t.Logf("%s: fair gives a wrong sum too", what)
					}
				}
			}
		}
	}
}

// cleanRun is one correct program at one rank count for the schedule and
// false-positive tests.
type cleanRun struct {
	what string
	prog *ir.Program
}

// kernelRuns lists every entry of every kernel at every rank count its
// header lists.
func kernelRuns(t testing.TB) []cleanRun {
	var out []cleanRun
	for _, k := range kernels.All() {
		for _, p := range k.Ranks {
			for _, e := range k.EntriesAt(p) {
				out = append(out, cleanRun{fmt.Sprintf("kernels/%s %s P=%d", k.File, e, p), lowered(t, k.File, string(k.Source), e, p)})
			}
		}
	}
	return out
}

// programRuns lists every entry of the engine's corpus at every rank count
// its header lists.
func programRuns(t testing.TB) []cleanRun {
	files, _ := filepath.Glob("../testdata/programs/*.py")
	var out []cleanRun
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var entries []string
		var ranks []int
		for _, m := range headerRe.FindAllStringSubmatch(string(src), -1) {
			if m[1] == "entry" {
				entries = append(entries, strings.TrimSpace(m[2]))
				continue
			}
			for _, f := range strings.Fields(m[2]) {
				n, _ := strconv.Atoi(f)
				ranks = append(ranks, n)
			}
		}
		for _, e := range entries {
			for _, P := range ranks {
				e := strings.ReplaceAll(e, "{P}", strconv.Itoa(P))
				out = append(out, cleanRun{fmt.Sprintf("%s %s P=%d", filepath.Base(path), e, P), lowered(t, path, string(src), e, P)})
			}
		}
	}
	return out
}

// addsAtomically reports whether prog stores or puts with atomic=Add.
func addsAtomically(prog *ir.Program) bool {
	found := false
	for _, f := range prog.Funcs {
		ir.Walk(f.Body, func(st ir.Stmt) bool {
			if op, ok := st.(*ir.Op); ok {
				if e, ok := op.Attr("atomic").(ir.EnumAttr); ok && e.Member == "Add" {
					found = true
				}
			}
			return true
		})
	}
	return found
}

// checkClean runs each program under every schedule with random inputs:
// every run must end ok without a race, and give the same outputs as the
// fair schedule, bit for bit — except where atomic adds from several
// ranks may land in another order, which changes the float rounding: those
// compare within the all-reduce tolerance. It returns the number of runs.
func checkClean(t *testing.T, runs []cleanRun) int {
	n := 0
	for _, c := range runs {
		tol := 0.0
		if addsAtomically(c.prog) {
			tol = 1e-5
		}
		in := fill(c.prog, "randn", 7)
		var fair *emu.Result
		for _, sched := range schedules {
			res := runSched(c.prog, in, nil, sched)
			n++
			if res.Status != emu.StatusOK || len(res.Races) > 0 {
				msg := ""
				if res.Error != nil {
					msg = res.Error.Error()
				}
				for _, r := range res.Races {
					msg += fmt.Sprintf("\n  %+v", r)
				}
				t.Errorf("%s under %s: status %s, want ok without races: %s", c.what, sched, res.Status, msg)
				continue
			}
			if fair == nil {
				fair = res
				continue
			}
			for name, want := range fair.Outputs {
				if i, ok := allclose(res.Outputs[name].Floats(), want.Floats(), tol, tol); !ok {
					t.Errorf("%s: %s[%d] is %v under %s, %v under fair", c.what, name, i, res.Outputs[name].Floats()[i], sched, want.Floats()[i])
				}
			}
		}
	}
	return n
}

// TestNoFalseRaces runs every kernel and every program of the engine's
// corpus, lowered, under every schedule: no race, no failure, and the
// outputs of the fair schedule under all of them.
func TestNoFalseRaces(t *testing.T) {
	kr, pr := kernelRuns(t), programRuns(t)
	n := checkClean(t, kr) + checkClean(t, pr)
	if !t.Failed() {
		t.Logf("%d kernel and %d corpus instances, %d runs under %d schedules: no race, no failure, same outputs", len(kr), len(pr), n, len(schedules))
	}
}

// TestUpstreamNoRaces does the same for the upstream tutorial programs,
// builtin entries included. It needs PLD_UPSTREAM (see upstream_test.go).
func TestUpstreamNoRaces(t *testing.T) {
	dir := os.Getenv("PLD_UPSTREAM")
	if dir == "" {
		t.Skip("set PLD_UPSTREAM to the directory of the upstream tutorial programs")
	}
	var runs []cleanRun
	add := func(file, entry string, ranks []int) {
		src, err := readTutorial(dir, file)
		if err != nil {
			t.Fatal(err)
		}
		for _, P := range ranks {
			e := entry
			if strings.Contains(e, "%d") {
				e = fmt.Sprintf(e, P)
			}
			runs = append(runs, cleanRun{fmt.Sprintf("%s %s P=%d", file, e, P), lowered(t, file, string(src), e, P)})
		}
	}
	for _, u := range upstreamRuns {
		add(u.file, u.entry, u.ranks)
	}
	for _, u := range upstreamBuiltin {
		ranks := []int{2}
		if strings.Contains(u.entry, "(") {
			ranks = []int{2, 4, 8}
		}
		add(u.file, strings.Replace(u.entry, "(4", "(%d", 1), ranks)
	}
	n := checkClean(t, runs)
	if !t.Failed() {
		t.Logf("%d upstream instances, %d runs: no race, no failure, same outputs", len(runs), n)
	}
}

// TestDeadlockEverySchedule: the ring that never starts deadlocks under
// every schedule, and the report does not depend on it.
func TestDeadlockEverySchedule(t *testing.T) {
	for _, path := range []string{"../testdata/run/deadlock_ring.py", "testdata/faults.py"} {
		entry := "pass_the_token"
		if strings.HasSuffix(path, "faults.py") {
			entry = "ring_deadlock"
		}
		prog := compileFile(t, path, entry, 4)
		in := fill(prog, "index", 0)
		var first *emu.Deadlock
		for _, sched := range schedules {
			res := runSched(prog, in, nil, sched)
			if res.Status != emu.StatusDeadlock || res.Deadlock == nil || len(res.Deadlock.Ranks) != 4 {
				t.Errorf("%s under %s: status %s, want a deadlock of all 4 ranks", path, sched, res.Status)
				continue
			}
			if first == nil {
				first = res.Deadlock
			} else if fmt.Sprint(first) != fmt.Sprint(res.Deadlock) {
				t.Errorf("%s under %s: deadlock %+v, fair gave %+v", path, sched, res.Deadlock, first)
			}
		}
	}
}

// order returns the (rank, line) of every event in execution order.
func order(t *testing.T, prog *ir.Program, in map[string]*emu.Tensor, sched string) string {
	var col trace.Collector
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Schedule: sched, OnEvent: col.Sink()})
	if res.Status != emu.StatusOK {
		t.Fatalf("%s: %s %v", sched, res.Status, res.Error)
	}
	var b strings.Builder
	for _, e := range col.Events {
		fmt.Fprintf(&b, "%d:%d ", e.Rank, e.Line)
	}
	return b.String()
}

// TestSchedulesDiffer: a seed gives one interleaving every time, seeds
// give different ones, and the schedules really reorder the ranks.
func TestSchedulesDiffer(t *testing.T) {
	prog := compileFile(t, "../testdata/programs/08_allreduce_mesh.py", "build_mesh_allreduce(4).mesh_sum", 4)
	in := fill(prog, "index", 0)
	seen := map[string]string{}
	for _, sched := range append(schedules, "random:2") {
		o := order(t, prog, in, sched)
		if prev, ok := seen[sched]; ok && prev != o {
			t.Errorf("%s gave two interleavings", sched)
		}
		seen[sched] = o
	}
	distinct := map[string]bool{}
	for _, o := range seen {
		distinct[o] = true
	}
	if len(distinct) < 4 {
		t.Errorf("%d schedules gave %d distinct interleavings, want at least 4", len(seen), len(distinct))
	}
}

// TestScheduleNames: unknown schedules are input errors that list the
// known ones.
func TestScheduleNames(t *testing.T) {
	for _, good := range []string{"", "fair", "adversarial", "random:0", emu.RandomSchedule(18446744073709551615)} {
		if err := emu.ValidateSchedule(good); err != nil {
			t.Errorf("ValidateSchedule(%q) = %v", good, err)
		}
	}
	prog := compileFile(t, "testdata/races.py", "mailbox_store", 2)
	for _, bad := range []string{"Fair", "random", "random:", "random:-1", "random:x", "adversary"} {
		if err := emu.ValidateSchedule(bad); err == nil || !strings.Contains(err.Error(), "want fair, adversarial or random:SEED") {
			t.Errorf("ValidateSchedule(%q) = %v", bad, err)
		}
		res := emu.Run(context.Background(), prog, emu.Options{Inputs: fill(prog, "index", 0), Scalars: map[string]float64{"fenced": 1}, Schedule: bad})
		if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0510" {
			t.Errorf("schedule %q: %s %+v, want an E0510 input error", bad, res.Status, res.Error)
		}
	}
}

// TestNoRaces: with detection off a racy run is ok and lists nothing.
func TestNoRaces(t *testing.T) {
	prog := compileFile(t, "testdata/races.py", "crowded_slot", 4)
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: fill(prog, "index", 0), Scalars: map[string]float64{"fenced": 0}, NoRaces: true})
	if res.Status != emu.StatusOK || res.Races != nil {
		t.Errorf("status %s, races %+v, want ok and none", res.Status, res.Races)
	}
}

// TestRaceAndFailure: a run that fails keeps its failure status and still
// lists the races found before it stopped.
func TestRaceAndFailure(t *testing.T) {
	src, _, _ := meshWithout(t, meshWait)
	// The unwaited-for notifies are also never consumed; a trailing wait
	// for a cell nobody notifies turns the run into a deadlock.
	src = strings.Replace(src, "    # 4. Write out.\n", "    pld.system.wait(arrived, [me, 0], 1, cmp=pld.WaitCmp.Ge)\n    # 4. Write out.\n", 1)
	prog := compile(t, "08_deadlocks", src, "mesh_allreduce", 4)
	res := run(t, prog, fill(prog, "index", 0))
	if res.Status != emu.StatusDeadlock || len(res.Races) == 0 {
		t.Errorf("status %s with %d races, want deadlock with races", res.Status, len(res.Races))
	}
}

// TestEveryWaitMatters deletes the kernels' waits one at a time (the line
// becomes `pass`) and runs every entry the deletion changes at every rank
// count: each must be reported as a race, because in a correct kernel
// every wait orders some access. An entry the deletion does not change
// (it never runs that line: same number of waits) must stay clean.
func TestEveryWaitMatters(t *testing.T) {
	deletions, reported := 0, 0
	for _, k := range kernels.All() {
		lines := strings.Split(string(k.Source), "\n")
		for i, l := range lines {
			if !strings.Contains(l, "pld.system.wait(") {
				continue
			}
			mut := slices.Clone(lines)
			mut[i] = l[:len(l)-len(strings.TrimLeft(l, " "))] + "pass"
			src := strings.Join(mut, "\n")
			for _, p := range k.Ranks {
				for _, e := range k.EntriesAt(p) {
					orig := lowered(t, k.File, string(k.Source), e, p)
					prog := lowered(t, k.File, src, e, p)
					in := fill(prog, "randn", 3)
					before, after := runSched(orig, in, nil, "fair"), runSched(prog, in, nil, "fair")
					what := fmt.Sprintf("%s line %d deleted, %s P=%d", k.File, i+1, e, p)
					switch {
					case after.Stats.Waits == before.Stats.Waits:
						if after.Status != emu.StatusOK {
							t.Errorf("%s: the entry never runs the line, yet %s", what, after.Status)
						}
					case after.Status == emu.StatusRace:
						deletions++
						reported++
					default:
						deletions++
						t.Errorf("%s: status %s, want race", what, after.Status)
					}
				}
			}
		}
	}
	if deletions == 0 {
		t.Fatal("no wait deletion changed any entry")
	}
	t.Logf("%d of %d runs with a wait deleted were reported as races", reported, deletions)
}

// TestTimeUnderSchedules: whatever order the ranks run in, each rank's
// (and block's) timeline only moves forward, every wait ends no earlier
// than the notify that released it started, and the trace keeps its
// invariants (checkTrace).
func TestTimeUnderSchedules(t *testing.T) {
	for _, p := range []struct {
		path, entry string
		P           int
	}{
		{"testdata/rma.py", "rma_host", 4},
		{"../testdata/programs/10_allreduce_ring.py", "build_ring_allreduce(8).ring_sum", 8},
		{"../testdata/programs/16_compose.py", "build_compose(4).host_orch", 4},
	} {
		src, err := os.ReadFile(p.path)
		if err != nil {
			t.Fatal(err)
		}
		prog := lowered(t, p.path, string(src), p.entry, p.P)
		in := fill(prog, "randn", 3)
		for _, sched := range schedules {
			var col trace.Collector
			res := emu.Run(context.Background(), prog, emu.Options{Inputs: in, Schedule: sched, OnEvent: col.Sink()})
			what := p.entry + " " + sched
			if res.Status != emu.StatusOK {
				t.Fatalf("%s: %s %v", what, res.Status, res.Error)
			}
			checkTrace(t, what, col.Events)
			last := map[[2]int]int64{}
			byRef := map[trace.Ref]trace.Event{}
			for _, e := range col.Events {
				k := [2]int{e.Rank, e.Block}
				if e.StartNs < last[k] {
					t.Errorf("%s: rank %d block %d event %d (%s, line %d) starts at %d ns, before its previous event ended (%d ns)",
						what, e.Rank, e.Block, e.Seq, e.Op, e.Line, e.StartNs, last[k])
				}
				last[k] = e.EndNs
				byRef[trace.Ref{Rank: e.Rank, Seq: e.Seq}] = e
				if e.ReleasedBy != nil {
					if n := byRef[*e.ReleasedBy]; e.EndNs < n.StartNs {
						t.Errorf("%s: wait %+v ends before its notify %+v starts", what, e, n)
					}
				}
				if e.EndNs > res.Stats.SimTimeNs {
					t.Errorf("%s: event %+v ends after the makespan %d", what, e, res.Stats.SimTimeNs)
				}
			}
		}
	}
}

// TestRaceJSON pins the wire form of a race in a result:
// "races": [{"a": {"rank", "line", "op", "region"}, "b": {...}, "message"}].
func TestRaceJSON(t *testing.T) {
	prog := compileFile(t, "testdata/races.py", "mailbox_store", 2)
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: fill(prog, "index", 0), Scalars: map[string]float64{"fenced": 0}})
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Status string `json:"status"`
		Races  []map[string]json.RawMessage
	}
	if err := json.Unmarshal(js, &wire); err != nil {
		t.Fatal(err)
	}
	if wire.Status != "race" || len(wire.Races) != 1 {
		t.Fatalf("JSON %s", js)
	}
	r := wire.Races[0]
	if len(r) != 3 || r["message"] == nil {
		t.Errorf("race keys: %s", js)
	}
	for _, side := range []string{"a", "b"} {
		var m map[string]any
		if err := json.Unmarshal(r[side], &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"line", "op", "rank", "region"}) {
			t.Errorf("side %s has keys %v, want line, op, rank, region", side, keys)
		}
	}
}
