package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pldworkbench/engine/limits"
)

// sessionClient is a page's one socket (GET /ws/session), read on this
// goroutine: frames for other runs are kept for later.
type sessionClient struct {
	c       *websocket.Conn
	pending []sessionFrame
}

// sessionFrame is one frame the session sent, decoded loosely.
type sessionFrame struct {
	Type     string            `json:"type"`
	Tag      json.RawMessage   `json:"tag"`
	ID       string            `json:"id"`
	Cached   bool              `json:"cached"`
	Status   int               `json:"status"`
	Error    string            `json:"error"`
	Hint     string            `json:"hint"`
	Messages []json.RawMessage `json:"messages"`
}

func (ts *testServer) session(t testing.TB, header http.Header) *sessionClient {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.url, "http")+"/ws/session", header)
	if err != nil {
		t.Fatalf("dial /ws/session: %v (%v)", err, resp)
	}
	t.Cleanup(func() { c.Close() })
	return &sessionClient{c: c}
}

// send sends a run request (tag, body) or any other message.
func (sc *sessionClient) send(t testing.TB, m any) {
	t.Helper()
	if err := sc.c.WriteJSON(m); err != nil {
		t.Fatal(err)
	}
}

// next returns the next frame that matches, keeping the others.
func (sc *sessionClient) next(t testing.TB, match func(*sessionFrame) bool) *sessionFrame {
	t.Helper()
	for i := range sc.pending {
		if match(&sc.pending[i]) {
			f := sc.pending[i]
			sc.pending = append(sc.pending[:i], sc.pending[i+1:]...)
			return &f
		}
	}
	_ = sc.c.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		_, b, err := sc.c.ReadMessage()
		if err != nil {
			t.Fatalf("session: %v", err)
		}
		var f sessionFrame
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("bad session frame %.200q: %v", b, err)
		}
		if match(&f) {
			return &f
		}
		sc.pending = append(sc.pending, f)
	}
}

// answer is the started or refused frame of tag.
func (sc *sessionClient) answer(t testing.TB, tag string) *sessionFrame {
	t.Helper()
	return sc.next(t, func(f *sessionFrame) bool {
		return (f.Type == "started" || f.Type == "refused") && string(f.Tag) == `"`+tag+`"`
	})
}

// messages reads run id's messages to its done.
func (sc *sessionClient) messages(t testing.TB, id string) []msg {
	t.Helper()
	var out []msg
	for {
		f := sc.next(t, func(f *sessionFrame) bool { return f.Type == "messages" && f.ID == id })
		for _, raw := range f.Messages {
			var m msg
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			m.raw = raw
			out = append(out, m)
			if m.Type == "done" {
				return out
			}
		}
	}
}

// run sends a run request and reads it to done.
func (sc *sessionClient) run(t testing.TB, tag string, body map[string]any) (*sessionFrame, []msg) {
	t.Helper()
	sc.send(t, map[string]any{"type": "run", "tag": tag, "request": body})
	a := sc.answer(t, tag)
	if a.Type != "started" {
		t.Fatalf("run %s refused: %d %s (%s)", tag, a.Status, a.Error, a.Hint)
	}
	return a, sc.messages(t, a.ID)
}

// TestSessionRuns: runs on one session stream the messages /ws/runs/{id}
// sends (the live run's events, outputs and done, byte for byte as the
// replay of the same run over its own socket, but for the status line);
// two runs stream side by side; a second request of stored content
// answers cached and replays it; a stop cancels a run; a bad request is
// refused with POST /api/runs's status and words; the session outlives
// every run.
func TestSessionRuns(t *testing.T) {
	ts := start(t, "")
	sc := ts.session(t, http.Header{"Origin": {ts.url}})
	mesh := kernelSource(t, "08_allreduce_mesh")
	a, live := sc.run(t, "a", map[string]any{"code": mesh, "ranks": 4, "seed": 1})
	if a.Cached || len(ofType(live, "event")) == 0 || live[len(live)-1].Status != "ok" || live[len(live)-1].Share != "/r/"+a.ID {
		t.Fatalf("session run: cached %v, %d messages, last %s", a.Cached, len(live), live[len(live)-1].raw)
	}
	for ts.isLive(a.ID) {
		time.Sleep(5 * time.Millisecond)
	}
	replay := readAll(t, ts.dial(t, a.ID))
	if len(replay) != len(live) {
		t.Fatalf("replay over /ws/runs: %d messages, the session had %d", len(replay), len(live))
	}
	for i := range live {
		if live[i].Type == "status" {
			continue
		}
		if !bytes.Equal(live[i].raw, replay[i].raw) {
			t.Fatalf("message %d: session %.200s, replay %.200s", i, live[i].raw, replay[i].raw)
		}
	}

	// Two at once, then the first again (stored: cached, a replay).
	sc.send(t, map[string]any{"type": "run", "tag": "b", "request": map[string]any{"code": mesh, "ranks": 2, "seed": 2}})
	sc.send(t, map[string]any{"type": "run", "tag": "c", "request": map[string]any{"code": mesh, "ranks": 3, "seed": 3}})
	b, c := sc.answer(t, "b"), sc.answer(t, "c")
	for _, f := range []*sessionFrame{b, c} {
		if ms := sc.messages(t, f.ID); ms[len(ms)-1].Status != "ok" {
			t.Errorf("side-by-side run %s: %s", f.ID, ms[len(ms)-1].raw)
		}
	}
	again, ms := sc.run(t, "again", map[string]any{"code": mesh, "ranks": 4, "seed": 1})
	if !again.Cached || again.ID != a.ID || ofType(ms, "status")[0].Status != "replay" {
		t.Errorf("the same content again: cached %v id %s (want %s), status %s", again.Cached, again.ID, a.ID, ofType(ms, "status")[0].Status)
	}

	// Stop.
	sc.send(t, map[string]any{"type": "run", "tag": "long", "request": map[string]any{"code": loopCode(t, 2_000_000), "ranks": 2}})
	long := sc.answer(t, "long")
	sc.next(t, func(f *sessionFrame) bool { return f.Type == "messages" && f.ID == long.ID }) // it started
	sc.send(t, map[string]any{"type": "stop", "id": long.ID})
	if ms := sc.messages(t, long.ID); ms[len(ms)-1].Status != statusCancelled {
		t.Errorf("stopped run: %s", ms[len(ms)-1].raw)
	}

	// Refused as POST /api/runs refuses.
	for _, tc := range []struct {
		body any
		code int
		says string
	}{
		{map[string]any{"code": ""}, 400, "empty"},
		{map[string]any{"code": mesh, "fill": "purple"}, 400, "fill"},
		{"not an object", 400, "bad JSON"},
		{nil, 400, "without its request"},
	} {
		sc.send(t, map[string]any{"type": "run", "tag": "bad", "request": tc.body})
		f := sc.answer(t, "bad")
		if f.Type != "refused" || f.Status != tc.code || !strings.Contains(f.Error, tc.says) {
			t.Errorf("request %v: %s %d %q, want refused %d naming %q", tc.body, f.Type, f.Status, f.Error, tc.code, tc.says)
		}
		if m, ok := tc.body.(map[string]any); ok {
			if status, post := ts.do(t, "POST", "/api/runs", m); status != f.Status || !bytes.Contains(post, mustJSON(f.Error)) {
				t.Errorf("request %v: POST says %d %s, the session %d %q", tc.body, status, post, f.Status, f.Error)
			}
		}
	}
	// Still open.
	if _, ms := sc.run(t, "last", map[string]any{"code": mesh, "ranks": 2, "seed": 4}); ms[len(ms)-1].Status != "ok" {
		t.Errorf("a run after the refusals: %s", ms[len(ms)-1].raw)
	}
}

// TestSessionGate: /ws/session is behind the gate like every route: a
// foreign Origin, a cross-site fetch and a rebound Host are refused
// before the upgrade, a plain GET is told it is a websocket, and the
// page's own origin opens it.
func TestSessionGate(t *testing.T) {
	ts := start(t, "")
	url := "ws" + strings.TrimPrefix(ts.url, "http") + "/ws/session"
	port := strings.Split(strings.TrimPrefix(ts.url, "http://"), ":")[1]
	for _, tc := range []struct {
		name string
		h    http.Header
	}{
		{"foreign Origin", http.Header{"Origin": {"http://evil.example"}}},
		{"foreign Origin on this port", http.Header{"Origin": {"http://localhost.evil.example:" + port}}},
		{"null Origin", http.Header{"Origin": {"null"}}},
		{"cross-site", http.Header{"Sec-Fetch-Site": {"cross-site"}}},
	} {
		if c, resp, err := websocket.DefaultDialer.Dial(url, tc.h); err == nil {
			c.Close()
			t.Errorf("%s opened the session", tc.name)
		} else if resp == nil || resp.StatusCode != 403 {
			t.Errorf("%s: %v %v, want 403", tc.name, err, resp)
		}
	}
	req, _ := http.NewRequest("GET", ts.url+"/ws/session", nil)
	req.Host = "rebind.evil.example:" + port
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("rebound Host: %v %v, want 403", err, resp)
	} else {
		resp.Body.Close()
	}
	if code, _, b := request(t, "GET", ts.url+"/ws/session", "", nil); code != 426 {
		t.Errorf("plain GET /ws/session: %d %s, want 426", code, b)
	}
	if n := ts.Executions(); n != 0 {
		t.Errorf("refused sessions executed %d runs", n)
	}
	sc := ts.session(t, http.Header{"Origin": {ts.url}})
	if _, ms := sc.run(t, "own", map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 2}); ms[len(ms)-1].Status != "ok" {
		t.Errorf("own origin: %s", ms[len(ms)-1].raw)
	}
}

// TestSessionParsesOnce: a run request on the session, like POST
// /api/runs, parses and compiles its code once.
func TestSessionParsesOnce(t *testing.T) {
	ts, c := startCounting(t)
	sc := ts.session(t, nil)
	if _, ms := sc.run(t, "x", map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 4}); ms[len(ms)-1].Status != "ok" {
		t.Fatalf("run: %s", ms[len(ms)-1].raw)
	}
	if p, k, r := c.Parses.Load(), c.Compiles.Load(), c.Runs.Load(); p != 1 || k != 1 || r != 1 {
		t.Errorf("a session run: %d parses, %d compiles, %d emulator runs; want 1, 1, 1", p, k, r)
	}
}

// TestSessionShutdown: a server shutting down ends a session's runs with
// done and closes it going away.
func TestSessionShutdown(t *testing.T) {
	ts := start(t, "")
	sc := ts.session(t, nil)
	sc.send(t, map[string]any{"type": "run", "tag": "long", "request": map[string]any{"code": loopCode(t, 2_000_000), "ranks": 2}})
	long := sc.answer(t, "long")
	sc.next(t, func(f *sessionFrame) bool { return f.Type == "messages" && f.ID == long.ID })
	stopped := make(chan struct{})
	go func() { ts.stop(t); close(stopped) }()
	if ms := sc.messages(t, long.ID); ms[len(ms)-1].Status != statusCancelled {
		t.Errorf("run at shutdown: %s", ms[len(ms)-1].raw)
	}
	_, _, err := sc.c.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Errorf("the session ended with %v, want going away", err)
	}
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown did not return")
	}
}

// TestSessionSilentAtShutdown: a session client that never answers the
// server's going-away close (a frozen tab) is cut off after the close
// grace, so Shutdown returns then, not after the read deadline.
func TestSessionSilentAtShutdown(t *testing.T) {
	ts := start(t, "")
	sc := ts.session(t, nil)
	sc.c.SetCloseHandler(func(int, string) error { return nil }) // silent: no close frame back
	stopped := make(chan struct{})
	begun := time.Now()
	go func() { ts.stop(t); close(stopped) }()
	_ = sc.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, _, err := sc.c.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("the session ended with %v, want going away", err)
	}
	select {
	case <-stopped:
	case <-time.After(wsCloseGrace + 10*time.Second):
		t.Fatalf("Shutdown has not returned %v after it began (close grace %v, read deadline %v)", time.Since(begun), wsCloseGrace, wsReadTimeout)
	}
	_ = sc.c.UnderlyingConn().SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := sc.c.UnderlyingConn().Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("after Shutdown the session's connection is open: read %d bytes, %v", n, err)
	}
}

// isLive reports whether run id is in the live map.
func (ts *testServer) isLive(id string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.live[id] != nil
}

// TestSessionRunsBounded: a session streams at most limits.SessionRuns
// runs at once; the next request is refused with 429 and starts nothing,
// and once the runs are done the session takes runs again. The runs are
// held in their slots (and so the rest in the queue) until the refusal
// has been seen.
func TestSessionRunsBounded(t *testing.T) {
	release := make(chan struct{})
	ts := startHooked(t, Options{MaxQueue: 2 * limits.SessionRuns}, func(s *Server) {
		hold := func(string) { <-release }
		s.testHook.Store(&hold)
	})
	sc := ts.session(t, nil)
	mesh := kernelSource(t, "08_allreduce_mesh")
	var ids []string
	for i := range limits.SessionRuns {
		tag := fmt.Sprint(i)
		sc.send(t, map[string]any{"type": "run", "tag": tag, "request": map[string]any{"code": mesh, "ranks": 2, "seed": i}})
		a := sc.answer(t, tag)
		if a.Type != "started" {
			t.Fatalf("run %d of %d refused: %d %s", i+1, limits.SessionRuns, a.Status, a.Error)
		}
		ids = append(ids, a.ID)
	}
	sc.send(t, map[string]any{"type": "run", "tag": "over", "request": map[string]any{"code": mesh, "ranks": 2, "seed": 999}})
	if f := sc.answer(t, "over"); f.Type != "refused" || f.Status != 429 {
		t.Errorf("run %d: %s %d %q, want refused 429", limits.SessionRuns+1, f.Type, f.Status, f.Error)
	}
	ts.mu.Lock()
	live := len(ts.live)
	ts.mu.Unlock()
	if live != limits.SessionRuns {
		t.Errorf("%d runs live, want %d: the refused request started one", live, limits.SessionRuns)
	}
	close(release)
	for _, id := range ids {
		if ms := sc.messages(t, id); ms[len(ms)-1].Status != "ok" {
			t.Errorf("run %s: %s", id, ms[len(ms)-1].raw)
		}
	}
	if _, ms := sc.run(t, "after", map[string]any{"code": mesh, "ranks": 2, "seed": 999}); ms[len(ms)-1].Status != "ok" {
		t.Errorf("a run after the others: %s", ms[len(ms)-1].raw)
	}
}

// TestDecodeSession holds the one-pass decode of a session message to
// what the two passes (the message, then its request) make of it: the
// same request when one pass decodes it, the two passes (req nil) when a
// repeated or differently cased "request" key or a bad request could make
// them differ.
func TestDecodeSession(t *testing.T) {
	known := newCodeTexts(1 << 20)
	code := kernelSource(t, "08_allreduce_mesh")
	full, _ := json.Marshal(map[string]any{"type": "run", "tag": 7, "request": map[string]any{"code": code, "step": 8, "ranks": 4, "seed": 3, "args": map[string]float64{"N": 2}}})
	for _, tc := range []struct {
		msg     string
		onePass bool
	}{
		{string(full), true},
		{`{"type":"run","tag":"a","request":{"code":"x = \"request\"","ranks":2}}`, true}, // the word inside a string is no key
		{`{"type":"run","request":{"code":"a"},"request":{"ranks":2}}`, false},
		{`{"type":"run","request":{"code":"a"},"REQUEST":{"ranks":2}}`, false},
		{`{"type":"run","request":{"code":"a"},"re\u0071uest":{"ranks":2}}`, false},
		{`{"type":"run","request":{"code":"a"},"requeſt":{"ranks":2}}`, false},
		{`{"type":"run","request":{"code":"a","ranks":"four"}}`, false},
		{`{"type":"run","request":null}`, false},
		{`{"type":"run"}`, false},
		{`{"type":"stop","id":"abc"}`, false},
		// The code's text, unquoted by hand (decodeSessionCode) or by json.
		{`{"type":"run","request":{"code":"a\n\t\"b\"\\ \/ \b\f\r é","ranks":2}}`, true},
		{`{"type":"run","request":{"code":"\ud83d\ude00 \u00e9"}}`, false}, // a \u might spell "request"
		{"{\"type\":\"run\",\"request\":{\"code\":\"a\xffb\"}}", true},
		{"{\"type\":\"run\",\"request\":{\"code\":\"a\tb\"}}", false},
		{`{"type":"run","request":{"code":"a\x"}}`, false},
		{`{"type":"run","request":{"code":"a\u12"}}`, false},
		{`{"type":"run","request":{"code" : "a" , "Code":"b"}}`, true},
		{`{"type":"run","request":{"code" :  "a"}, "code":"b"}`, true},
		{`{"type":"run","code":"b","request":{"ranks":2}}`, true},
		{`{"type":"run","request":{"args":{"code":"b"}}}`, false},
		{`{"type":"run","request":{"code":1}}`, false},
		{`{"type":"run","request":{"entry":"code","code":"a"}}`, true},
		// A text known by its spelling, the key repeated after it.
		{`{"type":"run","request":{"code":"a\nb","code":"c"}}`, true}, // json itself, in one pass
		{`{"type":"run","request":{"code":"a\nb"},"Code":"c"}`, true},
		{`{"type":"run","request":{"code":"a\nb\\"}}`, true},
		{`{"type":"run","request":{"code":"a\nb\\\"\\"}}`, true},
	} {
		// Each message three times: without known texts, then with them
		// (the first time adds the text, the second finds it).
		for pass, texts := range []*codeTexts{nil, known, known} {
			decodeSessionOnce(t, tc.msg, tc.onePass, texts, pass)
		}
	}
}

// decodeSessionOnce is one of TestDecodeSession's decodings.
func decodeSessionOnce(t *testing.T, msg string, onePass bool, texts *codeTexts, pass int) {
	m, req, ok := decodeSession([]byte(msg), texts)
	var want sessionIn
	wantOK := json.Unmarshal([]byte(msg), &want) == nil
	if ok != wantOK || (req != nil) != onePass {
		t.Errorf("%.80s (pass %d): ok %v one pass %v, want %v %v", msg, pass, ok, req != nil, wantOK, onePass)
		return
	}
	if m.Type != want.Type || string(m.Tag) != string(want.Tag) || m.ID != want.ID {
		t.Errorf("%.80s (pass %d): message %+v, want %+v", msg, pass, m, want)
	}
	if req == nil {
		if string(m.Request) != string(want.Request) {
			t.Errorf("%.80s (pass %d): request %s, want %s", msg, pass, m.Request, want.Request)
		}
		return
	}
	var two runRequest
	if err := decodeJSON(want.Request, &two); err != nil {
		t.Fatalf("%.80s: %v", msg, err)
	}
	if !reflect.DeepEqual(withoutText(t, *req), two) {
		t.Errorf("%.80s (pass %d): one pass %+v, two passes %+v", msg, pass, *req, two)
	}
}

// withoutText is r without the entry of its text decoding left it, which
// json's decoding has not; an entry it has must be of r's own text.
func withoutText(t testing.TB, r runRequest) runRequest {
	t.Helper()
	if r.text != nil && r.text.code != r.Code {
		t.Fatalf("the request's text entry holds %.40q, its code is %.40q", r.text.code, r.Code)
	}
	r.text = nil
	return r
}

// withoutTextP is withoutText of *r (nil: nil).
func withoutTextP(t testing.TB, r *runRequest) *runRequest {
	if r == nil {
		return nil
	}
	c := withoutText(t, *r)
	return &c
}

// TestDecodeSessionCode: a run message as the page sends it takes the
// pass that leaves the program's text out of json's hands, and decodes as
// json does.
func TestDecodeSessionCode(t *testing.T) {
	for _, k := range []string{"08_allreduce_mesh", "12_broadcast_builtin"} {
		b, _ := json.Marshal(map[string]any{"type": "run", "tag": 1, "request": map[string]any{"code": kernelSource(t, k), "step": 8, "ranks": 4, "seed": 3}})
		m, req, ok := decodeSessionCode(b, nil)
		var want sessionRunMsg
		if err := json.Unmarshal(b, &want); err != nil || !ok {
			t.Fatalf("%s: decodeSessionCode ok %v, json %v", k, ok, err)
		}
		if m.Type != want.Type || string(m.Tag) != string(want.Tag) || !reflect.DeepEqual(req, want.Request) {
			t.Errorf("%s: %+v %+v, want %+v", k, m, req, want)
		}
	}
}

// TestUnquoteCode: the hand unquoting of a code string gives json's value
// or declines.
func TestUnquoteCode(t *testing.T) {
	for _, q := range []string{`"a"`, `""`, `"\u00e9\u0000\u2028x"`, `"\ud83d\ude00"`, `"\uD800"`, `"\u12"`, `"\u00G0"`, `"a` + "\x01" + `"`,
		`"\q"`, `"é\n"`, "\"\xff\"", `"unterminated`, `"a\`} {
		got, end, ok := unquoteCode([]byte(q[1:] + ",1]"))
		var want string
		err := json.Unmarshal([]byte(q), &want)
		if ok && (err != nil || got != want || end != len(q)-2) {
			t.Errorf("%s: %q at %d, json %q %v", q, got, end, want, err)
		}
		if !ok && err == nil && !strings.Contains(q, `\ud`) && !strings.Contains(q, `\uD`) && !strings.Contains(q, "\xff") {
			t.Errorf("%s: declined a string json reads as %q", q, want)
		}
	}
}

// FuzzDecodeSession: whatever the client sends, decodeSession answers as
// the two passes do (TestDecodeSession's cases are the seeds).
func FuzzDecodeSession(f *testing.F) {
	for _, s := range []string{
		`{"type":"run","tag":7,"request":{"code":"x = 1","step":8,"ranks":4,"seed":3,"args":{"N":2}}}`,
		`{"type":"run","request":{"code":"a"},"request":{"ranks":2}}`,
		`{"type":"run","request":{"code":"a"},"re\u0071uest":{"ranks":2}}`,
		`{"type":"run","request":{"code":"a","ranks":"four"}}`,
		`{"type":"stop","id":"abc"}`,
		`{"type":"run","request":{"code":"a\n\"b\" \u00e9 \ud83d\ude00"}}`,
		`{"type":"run","request":{"code" :  "a"}, "code":"b"}`,
	} {
		f.Add([]byte(s))
	}
	known := newCodeTexts(1 << 20) // across the inputs: a text one adds, a later one may find
	f.Fuzz(func(t *testing.T, b []byte) {
		m, req, ok := decodeSession(b, known)
		if m2, req2, ok2 := decodeSession(b, nil); ok2 != ok || !reflect.DeepEqual(m2, m) || !reflect.DeepEqual(req2, withoutTextP(t, req)) {
			t.Fatalf("with the texts known %+v %+v %v, without %+v %+v %v", m, req, ok, m2, req2, ok2)
		}
		var want sessionIn
		if wantOK := json.Unmarshal(b, &want) == nil; ok != wantOK {
			t.Fatalf("ok %v, two passes %v", ok, wantOK)
		}
		if !ok {
			return
		}
		if m.Type != want.Type || string(m.Tag) != string(want.Tag) || m.ID != want.ID {
			t.Fatalf("message %+v, two passes %+v", m, want)
		}
		if req == nil {
			return
		}
		var two runRequest
		if err := decodeJSON(want.Request, &two); err != nil {
			t.Fatalf("one pass decoded a request two passes refuse: %v", err)
		}
		if !reflect.DeepEqual(withoutText(t, *req), two) {
			t.Fatalf("one pass %+v, two passes %+v", *req, two)
		}
	})
}

// FuzzDecodeRunRequest: POST /api/runs's decoding (the code cut out of
// json's hands) answers every body as decodeJSON does, errors included.
func FuzzDecodeRunRequest(f *testing.F) {
	for _, s := range []string{
		`{"code":"x = 1\n\"y\"","step":8,"ranks":4,"seed":3,"args":{"N":2}}`,
		`{"code":"a","Code":"b"}`,
		`{"args":{"code":"b"}}`,
		`{"foo":{"code":"a"},"ranks":2}`,
		`[{"code":"a"}]`,
		`{"code":"a","ranks":"four"}`,
		`{"code":1}`,
		``,
	} {
		f.Add([]byte(s))
	}
	known := newCodeTexts(1 << 20)
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, again, want runRequest
		gerr, werr := decodeRunRequest(b, &got, known), decodeJSON(b, &want)
		if aerr := decodeRunRequest(b, &again, known); (aerr == nil) != (gerr == nil) || !reflect.DeepEqual(again, got) {
			t.Fatalf("a second decoding %+v %v, the first %+v %v", again, aerr, got, gerr)
		}
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("error %v, decodeJSON's %v", gerr, werr)
		}
		if !reflect.DeepEqual(withoutText(t, got), want) {
			t.Fatalf("%+v, decodeJSON's %+v", got, want)
		}
	})
}

// TestSpecial8: the word test finds a quote, a backslash or a control
// byte wherever it is among the eight, whatever the others are, and
// nothing in eight plain bytes.
func TestSpecial8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' }
	rng := rand.New(rand.NewPCG(8, 15))
	for n := range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = byte(rng.Uint32())
			if n%2 == 0 { // mostly plain words, near the boundaries
				w[i] = []byte{0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff, 'a'}[rng.IntN(9)]
			}
		}
		want := false
		for _, c := range w {
			want = want || !plain(c)
		}
		if got := special8(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("% x: special8 %v, want %v", w, got, want)
		}
	}
	for c := range 256 {
		for at := range 8 {
			w := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
			w[at] = byte(c)
			if got := special8(binary.LittleEndian.Uint64(w[:])); got != !plain(byte(c)) {
				t.Errorf("byte %#x at %d: special8 %v", c, at, got)
			}
		}
	}
}

// TestSessionRunAgainAtDone: the same run asked for again the moment its
// done arrives is streamed again, to its done. The first stream, still
// finishing (pinning the shared run), held the run as streaming, so the
// session answered "started" and sent nothing more: the page, whose
// client drops a run at its done, waited for ever on a second click of
// Run with the code unchanged (this test timed out so before the fix).
func TestSessionRunAgainAtDone(t *testing.T) {
	ts := start(t, "")
	sc := ts.session(t, http.Header{"Origin": {ts.url}})
	mesh := kernelSource(t, "08_allreduce_mesh")
	for i := range 40 {
		body := map[string]any{"code": mesh, "ranks": 2, "seed": 100 + i}
		first, ms := sc.run(t, fmt.Sprintf("a%d", i), body)
		if ms[len(ms)-1].Status != "ok" {
			t.Fatalf("run %d: %s", i, ms[len(ms)-1].raw)
		}
		again, ms := sc.run(t, fmt.Sprintf("b%d", i), body)
		if again.ID != first.ID || ms[len(ms)-1].Status != "ok" {
			t.Fatalf("run %d again: id %s (first %s), last %s", i, again.ID, first.ID, ms[len(ms)-1].raw)
		}
	}
}
