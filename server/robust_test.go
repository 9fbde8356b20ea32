package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pldworkbench/engine/diag"
)

// robustTimeout is the server's run timeout in TestRobustPrograms: a few
// seconds, so that the endless and the 10^9-iteration loops end (timeout or
// the engine's step budget) and the test stays short. Every lesson program
// finishes in well under 100 ms.
const robustTimeout = 3 * time.Second

// robustGrace is how long after robustTimeout a run's websocket may take to
// deliver done: the engine's stop, the store's write and the stream of up
// to maxEvents events to this client on a loaded 2-core machine.
const robustGrace = 25 * time.Second

// doneStatuses are the done statuses API.md documents.
var doneStatuses = []string{"ok", "race", "deadlock", "runtime_error", "compile_error", "timeout", "cancelled"}

// startOpts serves a new Server with opts (a fresh temporary data dir when
// opts.DataDir is empty) and shuts it down when the test or benchmark ends.
func startOpts(tb testing.TB, opts Options) *testServer {
	tb.Helper()
	if opts.DataDir == "" {
		opts.DataDir = tb.TempDir()
	}
	log := newSyncBuffer()
	opts.Logger = log
	s, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	ts := &testServer{Server: s, url: "http://" + ln.Addr().String(), dir: opts.DataDir, log: log, served: served}
	tb.Cleanup(func() {
		// Many parallel posts make net/http dial spare connections that
		// it parks unused; fasthttp counts such a connection as active
		// (it waits for its first request until the 30 s ReadTimeout),
		// and Shutdown would wait for it. Close them first.
		http.DefaultClient.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := ts.Shutdown(ctx); err != nil {
			tb.Errorf("shutdown: %v", err)
		}
		if err := <-ts.served; err != nil {
			tb.Errorf("serve: %v", err)
		}
	})
	return ts
}

// robustCase is one program posted to /api/check and /api/runs: its body
// is sent as raw bytes, so a program may hold bytes that are not UTF-8.
type robustCase struct {
	name string
	code []byte
	// extra are the other fields of both posts (entry, ranks, step).
	extra map[string]any
}

// nonUTF8 stands for a 0xFF byte in a program until the request body is
// built: encoding/json would turn the byte into U+FFFD.
const nonUTF8 = "\u0001NON_UTF8\u0001"

// rawBody builds a JSON request body with code and extra, with every
// nonUTF8 marker replaced by a raw 0xFF byte.
func rawBody(t testing.TB, code []byte, extra map[string]any) []byte {
	t.Helper()
	m := map[string]any{"code": string(code)}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	marker, _ := json.Marshal(nonUTF8)
	return bytes.ReplaceAll(b, marker[1:len(marker)-1], []byte{0xff})
}

// postRaw posts body to path and returns the status and the answer.
func (ts *testServer) postRaw(t testing.TB, path string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(ts.url+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	return resp.StatusCode, b
}

// headerRE matches a program's `#! entry:` and `#! ranks:` headers.
var headerRE = regexp.MustCompile(`(?m)^#! (entry|ranks): *(\S+)`)

// headerSettings returns the entry and ranks a program's headers name
// first ({P} expanded), or nil when it has no entry header: then the
// server picks the entry (Module.Compile with no entry) and the rank count.
func headerSettings(src []byte) map[string]any {
	var entry string
	ranks := 4
	for _, m := range headerRE.FindAllSubmatch(src, -1) {
		switch string(m[1]) {
		case "entry":
			if entry == "" {
				entry = string(m[2])
			}
		case "ranks":
			if n, err := strconv.Atoi(string(m[2])); err == nil && ranks == 4 {
				ranks = n
			}
		}
	}
	if entry == "" {
		return nil
	}
	return map[string]any{"entry": strings.ReplaceAll(entry, "{P}", strconv.Itoa(ranks)), "ranks": ranks}
}

// programCases reads every program of the engine's testdata (errors, run,
// programs) and every kernel, from disk.
func programCases(t *testing.T) []robustCase {
	t.Helper()
	var out []robustCase
	for _, pat := range []string{"../engine/testdata/errors/*.py", "../engine/testdata/run/*.py", "../engine/testdata/programs/*.py", "../kernels/*.py"} {
		files, err := filepath.Glob(pat)
		if err != nil || len(files) == 0 {
			t.Fatalf("no programs in %s (%v)", pat, err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, robustCase{name: strings.TrimPrefix(f, "../"), code: src, extra: headerSettings(src)})
		}
	}
	return out
}

// mangledCases are broken variants of step 8's mesh kernel, posted as step
// 8 runs at 2 ranks: truncations at seeded random offsets, a tab/space mix,
// 200-deep nesting, bytes that are not UTF-8, endless loops where the
// language has them (module code; a DSL body refuses while) and a loop of
// 10^9 iterations in the kernel.
func mangledCases(t *testing.T) []robustCase {
	t.Helper()
	src := readFile(t, "../kernels/08_allreduce_mesh.py")
	must := func(name, old, new string) string {
		if !strings.Contains(src, old) {
			t.Fatalf("mangle %s: the kernel has no %q", name, old)
		}
		return strings.Replace(src, old, new, 1)
	}
	var out []robustCase
	add := func(name, code string) {
		out = append(out, robustCase{name: "mangled/" + name, code: []byte(code), extra: map[string]any{"step": 8, "ranks": 2}})
	}
	rng := rand.New(rand.NewPCG(8, 2026))
	for range 6 {
		n := rng.IntN(len(src))
		add(fmt.Sprintf("truncated_at_%d", n), src[:n])
	}
	// Every other line of the kernel body indented with a tab.
	lines := strings.Split(src, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "def mesh_kernel(") })
	for i, k := start+7, 0; i < len(lines) && !strings.HasPrefix(lines[i], "@"); i++ {
		if strings.HasPrefix(lines[i], "    ") {
			if k%2 == 1 {
				lines[i] = "\t" + lines[i][4:]
			}
			k++
		}
	}
	add("tab_space_mix", strings.Join(lines, "\n"))
	add("nested_parens_200", must("nested_parens_200", "SIZE = 64", "SIZE = "+strings.Repeat("(", 200)+"64"+strings.Repeat(")", 200)))
	add("nested_calls_200", must("nested_calls_200", "total = pl.add(total, theirs)",
		"total = "+strings.Repeat("pl.add(", 200)+"pl.add(total, theirs)"+strings.Repeat(", 0.0)", 200)))
	add("nested_parens_100k", must("nested_parens_100k", "SIZE = 64", "SIZE = "+strings.Repeat("(", 100_000)+"64"+strings.Repeat(")", 100_000)))
	add("non_utf8_docstring", must("non_utf8_docstring", "AI cores: stage", "AI cores"+nonUTF8+": stage"))
	add("non_utf8_name", must("non_utf8_name", "    me = pld.rank(ctx)", "    me"+nonUTF8+" = pld.rank(ctx)"))
	add("while_true_module", must("while_true_module", "SIZE = 64\n", "SIZE = 64\nwhile True:\n    SIZE = SIZE\n"))
	add("while_true_kernel", must("while_true_kernel", "    me = pld.rank(ctx)\n", "    me = pld.rank(ctx)\n    while True:\n        me = me + 0\n"))
	add("loop_1e9", must("loop_1e9", "    # 4. Write out.", "    for i in pl.range(1_000_000_000):\n        total = pl.add(total, 1.0)\n\n    # 4. Write out."))
	return out
}

// runOutcome is what a run's websocket delivered up to done.
type runOutcome struct {
	firstEvent  time.Time // when the first event arrived
	status      string    // the first status message's
	diagnostics []diag.JSON
	events      int
	done        struct {
		Status string `json:"status"`
		Share  string `json:"share"`
		Error  *struct {
			Rank    int    `json:"rank"`
			Line    int    `json:"line"`
			Code    string `json:"code"`
			Message string `json:"message"`
			Hint    string `json:"hint"`
		} `json:"error"`
	}
	sawDone bool
}

// eventPrefix begins every event message (eventMessage): events, the bulk
// of a long run's stream, are counted without being decoded.
var eventPrefix = []byte(`{"type":"event",`)

// follow reads run id's websocket until the server closes it, by deadline.
func (ts *testServer) follow(t testing.TB, id string, deadline time.Time) (*runOutcome, error) {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.url, "http")+"/ws/runs/"+id, nil)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	if err := c.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	out := &runOutcome{}
	one := func(raw []byte) error {
		if bytes.HasPrefix(raw, eventPrefix) {
			if out.events == 0 {
				out.firstEvent = time.Now()
			}
			out.events++
			return nil
		}
		var m struct {
			Type       string          `json:"type"`
			Status     string          `json:"status"`
			Diagnostic *diag.JSON      `json:"diagnostic"`
			Raw        json.RawMessage `json:"-"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("bad message %.200q: %w", raw, err)
		}
		switch m.Type {
		case "status":
			if out.status == "" {
				out.status = m.Status
			}
		case "diagnostic":
			out.diagnostics = append(out.diagnostics, *m.Diagnostic)
		case "done":
			out.sawDone = true
			return json.Unmarshal(raw, &out.done)
		}
		return nil
	}
	for {
		_, b, err := c.ReadMessage()
		if err != nil {
			if websocket.IsCloseError(err, websocket.CloseNormalClosure) && out.sawDone {
				return out, nil
			}
			return out, fmt.Errorf("socket ended with %v after %d events (done seen: %v)", err, out.events, out.sawDone)
		}
		if len(b) > 0 && b[0] == '[' {
			var raws []json.RawMessage
			if err := json.Unmarshal(b, &raws); err != nil {
				return out, fmt.Errorf("bad batch: %w", err)
			}
			for _, r := range raws {
				if err := one(r); err != nil {
					return out, err
				}
			}
		} else if err := one(b); err != nil {
			return out, err
		}
	}
}

// TestRobustPrograms posts every program of the engine's testdata, every
// kernel and broken variants of one to POST /api/check and POST /api/runs
// and follows each run to done: no answer is a 5xx, every run ends with a
// documented status within its timeout, a compile error names a line and a
// column, and the server still serves the lessons afterwards.
func TestRobustPrograms(t *testing.T) {
	ts := startOpts(t, Options{RunTimeout: robustTimeout})
	cases := append(programCases(t), mangledCases(t)...)
	counts := map[string]int{}
	results := make(chan string, len(cases))
	t.Run("programs", func(t *testing.T) {
		for _, rc := range cases {
			t.Run(rc.name, func(t *testing.T) {
				t.Parallel()
				results <- ts.robustOne(t, rc)
			})
		}
	})
	close(results)
	for s := range results {
		counts[s]++
	}
	t.Logf("%d programs; done statuses: %v", len(cases), counts)

	code, b := ts.do(t, "GET", "/api/steps", nil)
	var steps struct {
		Steps []json.RawMessage `json:"steps"`
	}
	if code != 200 || json.Unmarshal(b, &steps) != nil || len(steps.Steps) != 20 {
		t.Errorf("GET /api/steps afterwards: %d %.200s", code, b)
	}
}

// robustOne checks and runs one program and returns its done status.
func (ts *testServer) robustOne(t *testing.T, rc robustCase) string {
	// The check: the program's own diagnostics, never a 5xx.
	checkExtra := map[string]any{}
	for k, v := range rc.extra {
		if k != "step" {
			checkExtra[k] = v
		}
	}
	code, b := ts.postRaw(t, "/api/check", rawBody(t, rc.code, checkExtra))
	if code >= 500 {
		t.Fatalf("POST /api/check: %d %.300s", code, b)
	}
	if code == 200 {
		var res struct {
			OK          bool        `json:"ok"`
			Diagnostics []diag.JSON `json:"diagnostics"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("POST /api/check: %v in %.300s", err, b)
		}
		for _, d := range res.Diagnostics {
			if d.Severity == "error" && (d.Line < 1 || d.Col < 1 || d.Message == "") {
				t.Errorf("POST /api/check: an error without a position: %+v", d)
			}
		}
		if !res.OK && !slices.ContainsFunc(res.Diagnostics, func(d diag.JSON) bool { return d.Severity == "error" }) {
			t.Errorf("POST /api/check: not ok and no error diagnostic: %.300s", b)
		}
	} else if !json.Valid(b) || !bytes.Contains(b, []byte(`"error"`)) {
		t.Errorf("POST /api/check: %d without a JSON error: %.300s", code, b)
	}

	// The run, followed to done.
	code, b = ts.postRaw(t, "/api/runs", rawBody(t, rc.code, rc.extra))
	if code >= 500 {
		t.Fatalf("POST /api/runs: %d %.300s", code, b)
	}
	if code != 200 {
		if !json.Valid(b) || !bytes.Contains(b, []byte(`"error"`)) {
			t.Errorf("POST /api/runs: %d without a JSON error: %.300s", code, b)
		}
		return fmt.Sprintf("http_%d", code)
	}
	var pr postResponse
	if err := json.Unmarshal(b, &pr); err != nil || pr.ID == "" {
		t.Fatalf("POST /api/runs: %v in %.300s", err, b)
	}
	// Queued behind at most the other parallel runs (GOMAXPROCS of them),
	// each bounded by robustTimeout.
	out, err := ts.follow(t, pr.ID, time.Now().Add(time.Duration(1+parallelism())*robustTimeout+robustGrace))
	if err != nil {
		t.Fatalf("run %s: %v", pr.ID, err)
	}
	st := out.done.Status
	if !slices.Contains(doneStatuses, st) {
		t.Errorf("run %s: done status %q, want one of %v", pr.ID, st, doneStatuses)
	}
	if st == "cancelled" {
		t.Errorf("run %s was cancelled, though its client watched it to the end", pr.ID)
	}
	if st == "compile_error" {
		errs := 0
		for _, d := range out.diagnostics {
			if d.Severity != "error" {
				continue
			}
			errs++
			if d.Line < 1 || d.Col < 1 || d.Message == "" {
				t.Errorf("run %s: compile error without a position: %+v", pr.ID, d)
			}
		}
		// A program that compiles but has no single host orchestrator
		// has no line to blame: its done error says which entries there
		// are (Module.Compile with no entry), with a hint.
		if errs == 0 && (out.done.Error == nil || out.done.Error.Message == "" || out.done.Error.Hint == "") {
			t.Errorf("run %s: compile_error with no error diagnostic and no explained error", pr.ID)
		}
	}
	if (st == "runtime_error" || st == "deadlock") && (out.done.Error == nil || out.done.Error.Line < 1 || out.done.Error.Message == "") {
		t.Errorf("run %s: %s without an error naming a line: %+v", pr.ID, st, out.done.Error)
	}
	// A run cut short is not its content's result: not stored.
	switch {
	case st == "cancelled" || st == "timeout":
		if out.done.Share != "" {
			t.Errorf("run %s: %s with share %q, want none (a run cut short is not stored)", pr.ID, st, out.done.Share)
		}
	case out.done.Share != "/r/"+pr.ID:
		t.Errorf("run %s: done share %q, want /r/%s (a finished run is stored)", pr.ID, out.done.Share, pr.ID)
	}
	t.Logf("%s: %s, %d events, %d diagnostics", pr.ID, st, out.events, len(out.diagnostics))
	return st
}

// parallelism is how many of TestRobustPrograms's subtests run at once
// (go test's -parallel, GOMAXPROCS by default).
func parallelism() int {
	if f := flag.Lookup("test.parallel"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
			return n
		}
	}
	return runtime.GOMAXPROCS(0)
}
