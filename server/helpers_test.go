package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pldworkbench/kernels"
)

// testServer is a real server on 127.0.0.1:0 with its store in a
// temporary directory.
type testServer struct {
	*Server
	url, dir string
	log      *syncBuffer
	served   chan error
	once     sync.Once
}

// syncBuffer is a log the server may write from several goroutines.
type syncBuffer struct {
	ch  chan struct{}
	buf bytes.Buffer
}

func newSyncBuffer() *syncBuffer {
	b := &syncBuffer{ch: make(chan struct{}, 1)}
	b.ch <- struct{}{}
	return b
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	<-b.ch
	defer func() { b.ch <- struct{}{} }()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	<-b.ch
	defer func() { b.ch <- struct{}{} }()
	return b.buf.String()
}

// start serves a new Server on dir (a fresh temporary one when empty)
// and shuts it down when the test ends.
func start(t *testing.T, dir string) *testServer {
	t.Helper()
	return startWith(t, Options{DataDir: dir})
}

// startWith is start with options (DataDir "" = a fresh temporary one;
// Logger is the test's buffer).
func startWith(t *testing.T, opts Options) *testServer {
	t.Helper()
	return startHooked(t, opts, nil)
}

// startHooked is startWith that calls hook on the server before it serves.
func startHooked(t *testing.T, opts Options, hook func(*Server)) *testServer {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	dir := opts.DataDir
	log := newSyncBuffer()
	opts.Logger = log
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		hook(s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	ts := &testServer{Server: s, url: "http://" + ln.Addr().String(), dir: dir, log: log, served: served}
	t.Cleanup(func() { ts.stop(t) })
	return ts
}

// stop shuts the server down (once) and requires a clean end.
func (ts *testServer) stop(t *testing.T) {
	ts.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := ts.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-ts.served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// do sends a request to the real server and returns the status and body.
func (ts *testServer) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, ts.url+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// post starts a run and returns the answer.
func (ts *testServer) post(t *testing.T, body map[string]any) postResponse {
	t.Helper()
	code, b := ts.do(t, "POST", "/api/runs", body)
	if code != 200 {
		t.Fatalf("POST /api/runs: %d %s", code, b)
	}
	var pr postResponse
	if err := json.Unmarshal(b, &pr); err != nil {
		t.Fatal(err)
	}
	return pr
}

// dial opens the run's websocket.
func (ts *testServer) dial(t *testing.T, id string) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.url, "http")+"/ws/runs/"+id, nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	return c
}

// msg is one websocket message, decoded loosely, with its bytes.
type msg struct {
	raw        json.RawMessage
	Type       string          `json:"type"`
	Status     string          `json:"status"`
	Ranks      int             `json:"ranks"`
	Name       string          `json:"name"`
	Share      string          `json:"share"`
	Event      json.RawMessage `json:"event"`
	Diagnostic json.RawMessage `json:"diagnostic"`
	Race       json.RawMessage `json:"race"`
	Deadlock   json.RawMessage `json:"deadlock"`
	Check      json.RawMessage `json:"check"`
	Tensor     json.RawMessage `json:"tensor"`
}

// frame reads one frame and returns its messages (a batch is an array).
func frame(t *testing.T, c *websocket.Conn) ([]msg, error) {
	t.Helper()
	_, b, err := c.ReadMessage()
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &raws); err != nil {
			t.Fatalf("bad batch %q: %v", b, err)
		}
	} else {
		raws = []json.RawMessage{b}
	}
	out := make([]msg, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatalf("bad message %q: %v", r, err)
		}
		out[i].raw = r
	}
	return out, nil
}

// readAll reads every message until the server closes the socket, and
// requires a normal close after done.
func readAll(t *testing.T, c *websocket.Conn) []msg {
	t.Helper()
	defer c.Close()
	var all []msg
	for {
		ms, err := frame(t, c)
		if err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Fatalf("socket ended with %v after %d messages", err, len(all))
			}
			break
		}
		all = append(all, ms...)
	}
	if len(all) == 0 || all[len(all)-1].Type != "done" {
		t.Fatalf("the last message is not done: %d messages", len(all))
	}
	return all
}

// watch posts a run and reads its whole stream, and returns once its
// record is committed (the done comes before the commit: writer.go), for
// the tests that read the store next.
func (ts *testServer) watch(t *testing.T, body map[string]any) (postResponse, []msg) {
	t.Helper()
	pr := ts.post(t, body)
	ms := readAll(t, ts.dial(t, pr.ID))
	ts.settle(t, pr.ID)
	return pr, ms
}

func ofType(ms []msg, typ string) []msg {
	var out []msg
	for _, m := range ms {
		if m.Type == typ {
			out = append(out, m)
		}
	}
	return out
}

func kernelSource(tb testing.TB, name string) string {
	tb.Helper()
	k, ok := kernels.Get(name)
	if !ok {
		tb.Fatalf("no kernel %s", name)
	}
	return string(k.Source)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type getResult struct {
	body        []byte
	disposition string
}

func httpGet(url string) (*getResult, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return &getResult{body: b, disposition: resp.Header.Get("Content-Disposition")}, err
}

func httpPost(url string, body []byte) ([]byte, error) {
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
