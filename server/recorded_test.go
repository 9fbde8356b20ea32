package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/pmezard/go-difflib/difflib"
	"golang.org/x/tools/txtar"
)

// TestRecordedAPI replays a recorded set of /api and /ws requests against
// today's server (in this process: real Fiber, real websockets, a real
// SQLite file in a temporary directory) and requires every answer to be
// byte-identical, after the normalizations below, to what the workbench
// answered when the set was recorded (issue 15: the compile-once rework
// must not change what a client sees, except where a fix is intended).
//
// The recorded answers in testdata/recorded/NN-name.txt come from an OLD
// binary, not from this code, so they are a checked reference and not a
// copy of today's output. They were recorded from the workbench at commit
// 0da344d (before issue 15's work began):
//
//	git worktree add ../base15 0da344d
//	(cd ../base15 && go build -o wb-0da344d ./cmd/workbench)
//	PLD_RECORD_BIN=$(cd ../base15 && pwd)/wb-0da344d go test -count=1 ./server -run TestRecordedAPI -args -record
//
// (-record without PLD_RECORD_BIN is refused: the reference must come
// from a binary named on purpose). Recording starts that binary as
// `serve --addr 127.0.0.1:0 --data DIR` on a fresh DIR, sends the cases
// of recordedCases in order, and writes each request with its answer.
// Replay reads the request from the file, so a later edit of a kernel does
// not silently change what is asked.
//
// A difference that is intended is named in recordedChanges (route, what
// differs, why); that case is then checked against NN-name.now.txt,
// recorded from today's server with
//
//	go test -count=1 ./server -run TestRecordedAPI -args -record-changed
//
// and the test also requires that the old answer still shows the old
// behaviour and the new one the new (so a table row cannot outlive its
// difference).
//
// Normalizations (applied to both sides, the only ones):
//   - "created":"..." (a stored run's wall-clock creation time) becomes
//     "created":"<created>";
//   - the page's per-load CSP nonce (<meta name="csp-nonce" content=...>)
//     becomes <nonce>;
//   - the server's own 127.0.0.1:PORT (a fresh port each start) becomes
//     127.0.0.1:PORT;
//   - a websocket's frames are split into their messages, one per line: a
//     frame of /ws/runs/{id} is one message or an array of them, a session
//     "messages" frame carries several, and where a frame ends depends on
//     timing, not on the server's answer. The bytes of each message are
//     kept as sent. A session's messages are written as
//     {"id":RUN,"message":MSG}.
//
// Not recorded: GET /api/pypto, POST /api/pypto/check and
// /api/pypto/run, whose answers depend on what this machine has installed
// (python3, PyPTO, torch, NPU cards), not on the server; and the pages
// (/, /step/{n}, /lessons/{name}, /assets/*), which are the bundle's
// files, not /api. /api/platforms existed at 0da344d and is recorded.
//
// Run and share ids are not normalized: they are content hashes (API.md:
// SHA-256 over the code and the normalized settings), so they must match.
func TestRecordedAPI(t *testing.T) {
	dir := filepath.Join("testdata", "recorded")
	if *recordOld {
		bin := os.Getenv("PLD_RECORD_BIN")
		if bin == "" {
			t.Fatal("-record needs PLD_RECORD_BIN=/path/to/the/old/workbench: the reference is recorded from an old binary, never from this code")
		}
		c := startChildBin(t, bin, t.TempDir())
		recordAll(t, c.url, dir, recordedCases(t), func(rc recordedCase) string { return rc.file })
		return
	}
	ts := start(t, "")
	if *recordChanged {
		// Today's answers to the changed cases, asked in the recorded
		// order among the others so the store holds what it held then.
		recordAll(t, ts.url, dir, recordedCases(t), func(rc recordedCase) string {
			if _, ok := changeOf(rc.name); ok {
				return strings.TrimSuffix(rc.file, ".txt") + ".now.txt"
			}
			return ""
		})
		return
	}
	files := recordedFiles(t, dir)
	for _, ch := range recordedChanges {
		if _, ok := files[ch.name]; !ok {
			t.Errorf("recordedChanges names %s, which is not recorded", ch.name)
		}
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	// In the recorded order (NN-): later cases read runs earlier ones stored.
	sort.Slice(names, func(i, j int) bool { return files[names[i]] < files[names[j]] })
	for _, name := range names {
		old := readRecord(t, files[name])
		got := replay(t, ts.url, old.req)
		// A comparison stores its side runs in the background; a later
		// post of a side's code finds that run only once it is stored, so
		// the next case waits for them rather than racing the writer.
		for _, m := range sideRunRe.FindAllStringSubmatch(got, -1) {
			if !waitFor(20*time.Second, func() bool { return ts.stored(t, m[1]) }) {
				t.Fatalf("%s: side run %s never stored", name, m[1])
			}
		}
		ch, changed := changeOf(name)
		if !changed {
			if d := recordDiff(old.answer, got); d != "" {
				t.Errorf("%s: %s answers otherwise than the workbench at 0da344d (a regression, or an intended change to name in recordedChanges):\n%s", name, old.req.line(), d)
			}
			continue
		}
		want := readRecord(t, strings.TrimSuffix(files[name], ".txt")+".now.txt")
		if d := recordDiff(want.answer, got); d != "" {
			t.Errorf("%s: %s differs from its recorded changed answer (%s):\n%s", name, old.req.line(), ch.what, d)
		}
		if !shows(old.answer, ch.old) {
			t.Errorf("%s: the old answer does not show %q; recordedChanges' row is stale", name, ch.old)
		}
		if !shows(got, ch.now) {
			t.Errorf("%s: today's answer does not show %q (%s)", name, ch.now, ch.what)
		}
		if old.answer == got {
			t.Errorf("%s: today answers as 0da344d did; drop its row from recordedChanges", name)
		}
	}
	if n := len(recordedCases(t)); n != len(files) {
		t.Errorf("recordedCases has %d cases and testdata/recorded %d: re-record (see the comment)", n, len(files))
	}
}

var (
	recordOld     = flag.Bool("record", false, "TestRecordedAPI: re-record testdata/recorded from the binary in PLD_RECORD_BIN")
	recordChanged = flag.Bool("record-changed", false, "TestRecordedAPI: re-record the cases of recordedChanges from today's server (NN-name.now.txt)")
)

// recordedChange is a difference between 0da344d and today that is meant.
type recordedChange struct {
	name string // the case
	what string // what differs, and why
	old  string // a piece of the old answer that shows the old behaviour
	now  string // a piece of today's that shows the new
}

// recordedChanges lists every intended difference from 0da344d: the
// commit that made it says why. A piece starting with "!" must be absent.
var recordedChanges = []recordedChange{
	{"run-compare-side-b", "POST /api/runs of the code and settings a comparison's side B had (a program with no default entry) finds the side run the comparison stored (cached), with its coded E0412 under main.py: since f83f14a a comparison stores such a side as a compile_error run, where it answered 400 and stored nothing; the side run's diagnostics name main.py, as the post's own would, since the fix that renames a side's a.py/b.py",
		`"cached":false`, `"cached":true`},
	{"get-step-17", "GET /api/steps/17: step 17's lesson and kernels were rewritten (7b17b12): a HOST allreduce without a signal is E0250, so the solution keeps only its lane-signal entry and the bug asks 64 cores with 64 lanes",
		`build_many_cores_auto({P}).synthesized`, `!build_many_cores_auto`},
	{"get-step-11", "GET /api/steps/11: the lesson's table says a HOST allreduce's signal is explicit too (E0250), where it said the compiler may allocate it (7b17b12)",
		`may be left out for mesh`, `explicit too: PyPTO documents a signal-less mesh form`},
	{"get-step-18", "GET /api/steps/18: the lesson's tables say the HOST builtin's signal is required (E0250), where it was optional for mesh (7b17b12)",
		`optional for mesh (synthesized`, `required (\u003ccode\u003eE0250\u003c/code\u003e: PyPTO e2d0f78ae cannot compile`},
	{"get-lessons-doc-reference", "GET /api/lessons/doc/reference: pl.array.create, get_element and update_element are allowed in host code too (63d9948, a2e450c: issue 12's host pl.array)",
		`allowed only in orchestration or InCore code`, `allowed only in host or orchestration or InCore code`},
	{"get-passes", "GET /api/passes: the host-signals pass is gone (7b17b12): nothing reaches it since a HOST allreduce without a signal is E0250",
		`"name":"host-signals"`, `!host-signals`},
	{"check-host-allreduce-no-signal", "POST /api/check: a HOST allreduce without a signal is error E0250 (PyPTO cannot compile it), where it was warning W0306 (7b17b12)",
		`"code": "W0306"`, `"code": "E0250"`},
	{"ir-l2-only", "POST /api/ir: a program with no HOST level prints its IR at the chip orchestration named in entry, where it printed nothing (7a87760, 774538f: issue 12's L2-only programs)",
		`"ir":"","diagnostics":[]`, `"ir":"# program Blend, 1 rank, platform 910B`},
	{"run-l2-only", "POST /api/runs + /ws/runs: a program with no HOST level runs its named chip orchestration on one chip (ranks 1, events, outputs, done ok), where it ended compile_error at 0 ranks (7a87760)",
		`"type":"done","status":"compile_error"`, `"type":"done","status":"ok"`},
	{"run-l2-only-no-entry", "POST /api/runs + /ws/runs: a program with no HOST level and no entry named streams the coded E0412 naming its chip orchestrations, and done's error carries it, where done said \"main.py defines no host orchestrator\" (7a87760, 774538f)",
		`"message":"main.py defines no host orchestrator; name a function with --entry"`, `"code":"E0412","severity":"error","message":"no entry named, and the file has 2 chip orchestrations`},
	{"ir-factory-no-entry", "POST /api/ir: a program with no default entry answers the coded diagnostic E0412 naming its entries, where it was a bare \"error\" string (774538f)",
		`"diagnostics":[],"error":"main.py's host orchestrator comes from a factory`, `"code":"E0412"`},
	{"schedules-factory-no-entry", "POST /api/schedules: a program with no default entry adds \"diagnostics\" with the coded E0412, and its \"error\" is that diagnostic's message (f83f14a)",
		`"error":"main.py's host orchestrator comes from a factory`, `"diagnostics":[{"file":"main.py","line":1,"col":1,"end_line":1,"end_col":1,"code":"E0412"`},
	{"compare-factory-no-entry", "POST /api/compare: a side with no default entry is compared as a side that does not compile, 200 with its result compile_error and E0412, where it was a bare 400 (f83f14a)",
		"400\nContent-Type: application/json\n\n{\"error\":\"b.py's host orchestrator", `"code":"E0412"`},
	{"run-factory-no-entry", "POST /api/runs + /ws/runs: a program with no default entry streams a diagnostic message with E0412 before its done, and done's error carries code E0412 with the new message and hint (774538f)",
		`"hint":"name the host orchestrator to run in entry"`, `{"type":"diagnostic","diagnostic":{"file":"main.py","line":1,"col":1,"end_line":1,"end_col":1,"code":"E0412"`},
}

// shows reports whether s holds piece ("!piece": does not hold it).
func shows(s, piece string) bool {
	if p, ok := strings.CutPrefix(piece, "!"); ok {
		return !strings.Contains(s, p)
	}
	return strings.Contains(s, piece)
}

func changeOf(name string) (recordedChange, bool) {
	for _, c := range recordedChanges {
		if c.name == name {
			return c, true
		}
	}
	return recordedChange{}, false
}

// recordedCase is one request of the set. path may hold {id:NAME}: the
// id case NAME's answer carried (resolved when recording; the file holds
// the literal path).
type recordedCase struct {
	name   string
	file   string // NN-name.txt
	method string // GET, POST; WS dials path and reads its messages; SESSION dials /ws/session and sends body as one frame
	path   string
	header []string // "Key: value"
	body   string
	follow bool // POST /api/runs: then read /ws/runs/{id} of its answer to its end
}

// recordedReq is a case as written in its file.
type recordedReq struct {
	method, path string
	header       []string
	body         string
	follow       bool
}

func (r recordedReq) line() string { return r.method + " " + r.path }

// recordedCases builds the set from today's kernels (the request text is
// then kept in the files). Order matters: later cases read runs earlier
// ones stored.
func recordedCases(t *testing.T) []recordedCase {
	mesh := kernelSource(t, "08_allreduce_mesh")
	race := kernelSource(t, "08_allreduce_mesh_bug")
	dead := kernelSource(t, "20_set_not_add_bug")
	broken := kernelSource(t, "19_mesh_or_ring_bug")
	factory := kernelSource(t, "11_allreduce_reveal")
	// Step 17's solution as it was at 0da344d: its second entry calls a
	// HOST allreduce without a signal (then warning W0306, now E0250).
	oldStep17 := readFile(t, filepath.Join("testdata", "recorded-step17-0da344d.py"))
	// A program with no HOST level: two chip orchestrations (issue 12).
	l2 := readFile(t, filepath.Join("..", "engine", "check", "testdata", "ok", "l2_only.py"))
	sweepSrc := readFile(t, filepath.Join("..", "kernels", "sweep", "allgather.py"))
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ct := "Content-Type: application/json"
	var cs []recordedCase
	add := func(name, method, path string, body any, header ...string) *recordedCase {
		rc := recordedCase{name: name, method: method, path: path, header: header}
		switch b := body.(type) {
		case nil:
		case string:
			rc.body = b
		default:
			rc.body = js(b)
		}
		if method == "POST" && header == nil {
			rc.header = []string{ct}
		}
		cs = append(cs, rc)
		return &cs[len(cs)-1]
	}
	run := func(name string, body any) { add(name, "POST", "/api/runs", body).follow = true }

	// Lessons and kernels.
	add("get-steps", "GET", "/api/steps", nil)
	add("get-step-8", "GET", "/api/steps/8", nil)
	add("get-step-11", "GET", "/api/steps/11", nil)
	add("get-step-17", "GET", "/api/steps/17", nil)
	add("get-step-18", "GET", "/api/steps/18", nil)
	add("get-step-unknown", "GET", "/api/steps/99", nil)
	add("get-lessons-readme", "GET", "/api/lessons/readme", nil)
	add("get-lessons-doc-glossary", "GET", "/api/lessons/doc/glossary", nil)
	add("get-lessons-doc-reference", "GET", "/api/lessons/doc/reference", nil)
	add("get-lessons-doc-unknown", "GET", "/api/lessons/doc/nope", nil)
	add("get-kernel-mesh", "GET", "/api/kernels/08_allreduce_mesh", nil)
	add("get-kernel-mesh-bug", "GET", "/api/kernels/08_allreduce_mesh_bug", nil)
	add("get-kernel-mesh-starter", "GET", "/api/kernels/08_allreduce_mesh_starter", nil)
	add("get-kernel-factory", "GET", "/api/kernels/11_allreduce_reveal", nil)
	add("get-kernel-unknown", "GET", "/api/kernels/nope", nil)
	add("get-kernel-bug-race", "GET", "/api/kernels/08_allreduce_mesh_bug/bug?ranks=4", nil)
	add("get-kernel-bug-deadlock", "GET", "/api/kernels/20_set_not_add_bug/bug", nil)
	add("get-kernel-bug-not-a-bug", "GET", "/api/kernels/08_allreduce_mesh/bug", nil)
	add("get-kernel-bug-bad-ranks", "GET", "/api/kernels/08_allreduce_mesh_bug/bug?ranks=5", nil)
	add("get-passes", "GET", "/api/passes", nil)
	add("get-platforms", "GET", "/api/platforms", nil)

	// Checking and lowering.
	add("check-mesh", "POST", "/api/check", map[string]any{"code": mesh, "ranks": 4})
	add("check-race", "POST", "/api/check", map[string]any{"code": race, "ranks": 4})
	add("check-compile-error", "POST", "/api/check", map[string]any{"code": broken, "entry": `build_allreduce(4, 1024, "ring").run`, "ranks": 4})
	add("check-factory-all", "POST", "/api/check", map[string]any{"code": factory, "ranks": 4})
	add("check-factory-entry", "POST", "/api/check", map[string]any{"code": factory, "entry": `build_allreduce_reveal(4, "ring", "min").allreduce`, "ranks": 4})
	add("check-l2-only", "POST", "/api/check", map[string]any{"code": l2})
	add("ir-l2-only", "POST", "/api/ir", map[string]any{"code": l2, "entry": "Blend.blend"})
	add("check-host-allreduce-no-signal", "POST", "/api/check", map[string]any{"code": oldStep17, "entry": "build_many_cores_auto(4).synthesized", "ranks": 4})
	add("check-950", "POST", "/api/check", map[string]any{"code": mesh, "ranks": 8, "platform": "950"})
	add("check-bad-json", "POST", "/api/check", `{"code": `)
	add("check-missing-code", "POST", "/api/check", map[string]any{"ranks": 4})
	add("check-ranks-over-cap", "POST", "/api/check", map[string]any{"code": mesh, "ranks": 65})
	add("check-unknown-platform", "POST", "/api/check", map[string]any{"code": mesh, "platform": "H100"})
	add("check-wrong-content-type", "POST", "/api/check", js(map[string]any{"code": mesh}), "Content-Type: text/plain")
	add("check-bad-origin", "POST", "/api/check", js(map[string]any{"code": mesh}), ct, "Origin: http://evil.example")
	add("ir-mesh", "POST", "/api/ir", map[string]any{"code": mesh, "ranks": 4})
	add("ir-mesh-checked", "POST", "/api/ir", map[string]any{"code": mesh, "ranks": 4, "after": "checked"})
	add("ir-compile-error", "POST", "/api/ir", map[string]any{"code": broken, "entry": `build_allreduce(4, 1024, "ring").run`, "ranks": 4})
	add("ir-factory-no-entry", "POST", "/api/ir", map[string]any{"code": factory, "ranks": 4})
	add("ir-lines-factory", "POST", "/api/ir/lines", map[string]any{"code": factory, "entry": `build_allreduce_reveal(4, "mesh", "sum").allreduce`, "ranks": 4})
	add("schedules-mesh", "POST", "/api/schedules", map[string]any{"code": mesh, "ranks": 4, "n": 3})
	add("schedules-race", "POST", "/api/schedules", map[string]any{"code": race, "ranks": 4, "n": 4, "seed": 3})
	add("schedules-factory-no-entry", "POST", "/api/schedules", map[string]any{"code": factory, "ranks": 4, "n": 2})
	add("schedules-n-zero", "POST", "/api/schedules", map[string]any{"code": mesh, "n": 0})
	add("sweep-allgather", "POST", "/api/sweep", map[string]any{"code": sweepSrc, "ranks": []int{2, 4}, "sizes": "1K:4K"})
	add("sweep-no-sweep-lines", "POST", "/api/sweep", map[string]any{"code": mesh})
	add("compare-mesh-two-phase", "POST", "/api/compare", map[string]any{"a": map[string]any{"code": mesh}, "b": map[string]any{"kernel": "09_allreduce_two_phase"}, "ranks": 4, "seed": 5})
	add("compare-factory-no-entry", "POST", "/api/compare", map[string]any{"a": map[string]any{"code": mesh}, "b": map[string]any{"code": factory}, "ranks": 4})
	// The same code and settings as the comparison's side B: the run
	// POST /api/runs makes of it has the id the comparison's run_b had.
	run("run-compare-side-b", map[string]any{"code": factory, "ranks": 4})
	add("compare-missing-b", "POST", "/api/compare", map[string]any{"a": map[string]any{"code": mesh}})
	add("export-mesh", "POST", "/api/export", map[string]any{"code": mesh, "ranks": 4, "fill": "index", "kernel": "08_allreduce_mesh"})

	// Runs, followed over their websocket, then read back.
	run("run-mesh", map[string]any{"code": mesh, "step": 8, "ranks": 4, "seed": 7})
	add("run-mesh-again", "POST", "/api/runs", map[string]any{"code": mesh, "step": 8, "ranks": 4, "seed": 7})
	add("ws-run-mesh-replay", "WS", "/ws/runs/{id:run-mesh}", nil)
	add("get-run-mesh", "GET", "/api/runs/{id:run-mesh}", nil)
	add("get-run-mesh-trace", "GET", "/api/runs/{id:run-mesh}/trace.json", nil)
	add("get-run-mesh-events", "GET", "/api/runs/{id:run-mesh}/events", nil)
	add("get-share-page", "GET", "/r/{id:run-mesh}", nil)
	add("get-share-page-unknown", "GET", "/r/AAAAAAAAAAAAAAAA", nil)
	add("get-run-unknown", "GET", "/api/runs/AAAAAAAAAAAAAAAA", nil)
	run("run-race-bug", map[string]any{"code": race, "step": 8, "variant": "bug", "ranks": 4, "seed": 7})
	add("get-run-race-bug", "GET", "/api/runs/{id:run-race-bug}", nil)
	run("run-deadlock-bug", map[string]any{"code": dead, "step": 20, "variant": "bug", "kernel": "20_set_not_add_bug", "ranks": 2, "schedule": "adversarial"})
	run("run-compile-error", map[string]any{"code": broken, "ranks": 4, "entry": `build_allreduce(4, 1024, "ring").run`})
	add("get-run-deadlock-bug-trace", "GET", "/api/runs/{id:run-deadlock-bug}/trace.json", nil)
	run("run-factory-entry", map[string]any{"code": factory, "step": 11, "ranks": 3, "entry": `build_allreduce_reveal(3,"ring","sum").allreduce`, "fill": "index"})
	run("run-factory-no-entry", map[string]any{"code": factory, "ranks": 4, "seed": 2})
	run("run-l2-only", map[string]any{"code": l2, "entry": "Blend.blend", "fill": "ones"})
	run("run-l2-only-no-entry", map[string]any{"code": l2})
	add("run-ranks-over-cap", "POST", "/api/runs", map[string]any{"code": mesh, "ranks": 65})
	add("run-unknown-step", "POST", "/api/runs", map[string]any{"code": mesh, "step": 99})
	add("run-bad-json", "POST", "/api/runs", `{"code": 1}`)
	add("run-missing-code", "POST", "/api/runs", map[string]any{"step": 8})
	add("run-bad-origin", "POST", "/api/runs", js(map[string]any{"code": mesh}), ct, "Origin: http://evil.example")
	add("session-run-mesh", "SESSION", "/ws/session", map[string]any{"type": "run", "tag": 1, "request": map[string]any{"code": mesh, "step": 8, "ranks": 2, "seed": 9}})
	add("session-run-over-cap", "SESSION", "/ws/session", map[string]any{"type": "run", "tag": "x", "request": map[string]any{"code": mesh, "ranks": 65}})
	add("session-plain-get", "GET", "/ws/session", nil)
	add("session-bad-origin", "GET", "/ws/session", nil, "Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Origin: http://evil.example")

	// Step checks.
	add("stepcheck-mesh", "POST", "/api/steps/8/check", map[string]any{"code": mesh})
	add("stepcheck-race-bug", "POST", "/api/steps/8/check", map[string]any{"code": race, "variant": "bug"})
	add("stepcheck-compile-error", "POST", "/api/steps/8/check", map[string]any{"code": broken})
	add("stepcheck-unknown-step", "POST", "/api/steps/99/check", map[string]any{"code": mesh})
	add("stepcheck-bad-variant", "POST", "/api/steps/8/check", map[string]any{"code": mesh, "variant": "builtin"})

	for i := range cs {
		cs[i].file = fmt.Sprintf("%02d-%s.txt", i+1, cs[i].name)
	}
	return cs
}

// recordAll sends the cases to url in order and writes those file names
// (fileOf's answer, "" = ask but do not write).
func recordAll(t *testing.T, url, dir string, cs []recordedCase, fileOf func(recordedCase) string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	idRef := regexp.MustCompile(`\{id:([a-z0-9-]+)\}`)
	for _, rc := range cs {
		path := idRef.ReplaceAllStringFunc(rc.path, func(m string) string {
			id, ok := ids[idRef.FindStringSubmatch(m)[1]]
			if !ok {
				t.Fatalf("%s: no id from %s", rc.name, m)
			}
			return id
		})
		req := recordedReq{method: rc.method, path: path, header: rc.header, body: rc.body, follow: rc.follow}
		answer := replay(t, url, req)
		// The id a later case names: the first body line's "id".
		var a struct {
			ID string `json:"id"`
		}
		if _, body, ok := strings.Cut(answer, "\n\n"); ok {
			if line, _, _ := strings.Cut(body, "\n"); json.Unmarshal([]byte(line), &a) == nil && a.ID != "" {
				ids[rc.name] = a.ID
			}
		}
		name := fileOf(rc)
		if name == "" {
			continue
		}
		changed := ""
		if strings.HasSuffix(name, ".now.txt") {
			ch, _ := changeOf(rc.name)
			changed = "CHANGED ON PURPOSE, see recordedChanges in recorded_test.go: " + ch.what + "\n" +
				"Recorded from today's server at " + headCommit() + " (go test ./server -run TestRecordedAPI -args -record-changed).\n"
		} else {
			changed = "Recorded from the workbench at 0da344d (PLD_RECORD_BIN; see recorded_test.go).\n"
		}
		ar := &txtar.Archive{Comment: []byte(rc.name + ": " + req.line() + "\n" + changed)}
		var head strings.Builder
		fmt.Fprintf(&head, "%s %s\n", req.method, req.path)
		for _, h := range req.header {
			head.WriteString(h + "\n")
		}
		if req.follow {
			head.WriteString("X-Recorded-Follow: ws\n")
		}
		ar.Files = append(ar.Files, txtar.File{Name: "request", Data: []byte(head.String())},
			txtar.File{Name: "request body", Data: []byte(req.body + "\n")},
			txtar.File{Name: "answer", Data: []byte(answer + "\n")})
		if err := os.WriteFile(filepath.Join(dir, name), txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// headCommit names the commit a -record-changed recording was made at.
func headCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "an unknown commit"
	}
	return strings.TrimSpace(string(out))
}

// recordFile is a file of testdata/recorded.
type recordFile struct {
	req    recordedReq
	answer string
}

func readRecord(t *testing.T, path string) recordFile {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sec := map[string]string{}
	for _, f := range ar.Files {
		// Every section was written with one newline added.
		sec[f.Name] = strings.TrimSuffix(string(f.Data), "\n")
	}
	lines := strings.Split(sec["request"], "\n")
	method, path2, ok := strings.Cut(lines[0], " ")
	if !ok {
		t.Fatalf("%s: bad request line %q", path, lines[0])
	}
	r := recordFile{req: recordedReq{method: method, path: path2, body: sec["request body"]}, answer: sec["answer"]}
	for _, h := range lines[1:] {
		if h == "X-Recorded-Follow: ws" {
			r.req.follow = true
		} else if h != "" {
			r.req.header = append(r.req.header, h)
		}
	}
	return r
}

// recordedFiles maps each case name to its old-binary file.
func recordedFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range paths {
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".now.txt") {
			continue
		}
		_, name, _ := strings.Cut(strings.TrimSuffix(base, ".txt"), "-")
		files[name] = p
	}
	if len(files) == 0 {
		t.Fatalf("nothing recorded in %s", dir)
	}
	return files
}

// replay sends req to the server at url and returns its answer as text,
// normalized: the status line, the headers that matter, a blank line, the
// body; then, for a websocket, one message per line.
func replay(t *testing.T, url string, req recordedReq) string {
	t.Helper()
	host := strings.TrimPrefix(url, "http://")
	var out strings.Builder
	switch req.method {
	case "WS":
		out.WriteString("websocket " + req.path + "\n\n")
		wsMessages(t, &out, url+req.path)
	case "SESSION":
		out.WriteString("websocket " + req.path + "\n\n")
		sessionMessages(t, &out, url+req.path, req.body)
	default:
		status, header, body := httpDo(t, url, req)
		fmt.Fprintf(&out, "%d\n", status)
		for _, h := range []string{"Content-Type", "Content-Disposition", "Retry-After"} {
			if v := header.Get(h); v != "" {
				fmt.Fprintf(&out, "%s: %s\n", h, v)
			}
		}
		out.WriteString("\n")
		out.Write(body)
		if req.follow {
			var a struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(body, &a); err != nil || a.ID == "" {
				t.Fatalf("%s: no run id in %s", req.line(), body)
			}
			out.WriteString("\nwebsocket /ws/runs/" + a.ID + "\n")
			wsMessages(t, &out, url+"/ws/runs/"+a.ID)
		}
	}
	return normalizeRecorded(out.String(), host)
}

var (
	sideRunRe = regexp.MustCompile(`"run_[ab]":\s*"([^"]+)"`)
	createdRe = regexp.MustCompile(`"created":"[^"]*"`)
	nonceRe   = regexp.MustCompile(`(<meta name="csp-nonce" content=")[^"]*(")`)
)

// normalizeRecorded applies the normalizations TestRecordedAPI's comment names.
func normalizeRecorded(s, host string) string {
	s = createdRe.ReplaceAllString(s, `"created":"<created>"`)
	s = nonceRe.ReplaceAllString(s, `${1}<nonce>${2}`)
	return strings.ReplaceAll(s, host, "127.0.0.1:PORT")
}

func httpDo(t *testing.T, url string, req recordedReq) (int, http.Header, []byte) {
	t.Helper()
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	hr, err := http.NewRequest(req.method, url+req.path, body)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range req.header {
		k, v, _ := strings.Cut(h, ": ")
		hr.Header.Set(k, v)
	}
	resp, err := recordClient.Do(hr)
	if err != nil {
		t.Fatalf("%s: %v", req.line(), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", req.line(), err)
	}
	return resp.StatusCode, resp.Header, b
}

var recordClient = &http.Client{Timeout: 60 * time.Second}

// wsMessages reads a /ws/runs socket to its close, a message per line.
func wsMessages(t *testing.T, out *strings.Builder, url string) {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", url, err, resp)
	}
	defer c.Close()
	for {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, b, err := c.ReadMessage()
		if err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				fmt.Fprintf(out, "close %d\n", ce.Code)
				return
			}
			t.Fatalf("%s: %v", url, err)
		}
		for _, m := range splitFrame(t, b) {
			out.Write(m)
			out.WriteString("\n")
		}
	}
}

// sessionMessages sends one run message on /ws/session and reads until
// that run's done or its refusal, a message per line.
func sessionMessages(t *testing.T, out *strings.Builder, url, send string) {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", url, err, resp)
	}
	defer c.Close()
	if err := c.WriteMessage(websocket.TextMessage, []byte(send)); err != nil {
		t.Fatal(err)
	}
	for {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, b, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		var f struct {
			Type     string            `json:"type"`
			ID       string            `json:"id"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: bad frame %q: %v", url, b, err)
		}
		if f.Type != "messages" {
			out.Write(b)
			out.WriteString("\n")
			if f.Type == "refused" {
				return
			}
			continue
		}
		for _, m := range f.Messages {
			fmt.Fprintf(out, `{"id":%q,"message":%s}`+"\n", f.ID, m)
			var d struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(m, &d) == nil && d.Type == "done" {
				return
			}
		}
	}
}

// splitFrame returns a frame's messages, each with the bytes it was sent
// with (a batch is a JSON array of them).
func splitFrame(t *testing.T, b []byte) []json.RawMessage {
	t.Helper()
	if len(b) == 0 || b[0] != '[' {
		return []json.RawMessage{b}
	}
	var ms []json.RawMessage
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatalf("bad batch %q: %v", b, err)
	}
	return ms
}

// recordDiff is "" when want and got are equal, else a line diff with
// each JSON line indented, so one field's change shows as one line.
func recordDiff(want, got string) string {
	if want == got {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(expandJSON(want)),
		B: difflib.SplitLines(expandJSON(got)), FromFile: "recorded", ToFile: "today", Context: 2})
	if err != nil {
		return err.Error()
	}
	if lines := strings.Split(d, "\n"); len(lines) > 80 {
		d = strings.Join(lines[:80], "\n") + fmt.Sprintf("\n... (%d more diff lines)", len(lines)-80)
	}
	return d
}

// expandJSON indents every line that is a JSON object or array.
func expandJSON(s string) string {
	var out strings.Builder
	for _, line := range strings.Split(s, "\n") {
		var b bytes.Buffer
		if (strings.HasPrefix(line, "{") || strings.HasPrefix(line, "[")) && json.Indent(&b, []byte(line), "", "  ") == nil {
			out.Write(b.Bytes())
		} else {
			out.WriteString(line)
		}
		out.WriteString("\n")
	}
	return out.String()
}
