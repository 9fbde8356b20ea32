package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// request sends one request to the real server with the given headers
// (Host is set on the request itself) and returns the response's status,
// headers and body.
func request(t *testing.T, method, url, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestGuardRefusesForeignPages holds the attacks a page the learner visits
// could make: each is refused and nothing runs or is stored.
func TestGuardRefusesForeignPages(t *testing.T) {
	ts := start(t, "")
	host := strings.TrimPrefix(ts.url, "http://")
	body := jsonBody(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 2})
	json := map[string]string{"Content-Type": "application/json"}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{"Content-Type": "application/json"}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	cases := []struct {
		name          string
		method, path  string
		body          string
		headers       map[string]string
		code          int
		errorContains string
	}{
		{"no-cors text/plain POST", "POST", "/api/runs", body, map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403, "origin"},
		{"text/plain POST without Origin", "POST", "/api/runs", body, map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, 415, "application/json"},
		{"form POST", "POST", "/api/check", "code=x", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"POST with no content type", "POST", "/api/steps/8/check", "", nil, 415, "application/json"},
		{"foreign Origin JSON POST", "POST", "/api/runs", body, with(map[string]string{"Origin": "http://evil.example"}), 403, "origin"},
		{"foreign Origin on this port", "POST", "/api/runs", body, with(map[string]string{"Origin": "http://localhost.evil.example:" + strings.Split(host, ":")[1]}), 403, "origin"},
		{"null Origin", "POST", "/api/check", body, with(map[string]string{"Origin": "null"}), 403, "origin"},
		{"cross-site fetch metadata", "POST", "/api/check", body, with(map[string]string{"Sec-Fetch-Site": "cross-site"}), 403, "cross-site"},
		{"rebound Host on a POST", "POST", "/api/runs", body, with(map[string]string{"Host": "evil.example:" + strings.Split(host, ":")[1]}), 403, "host"},
		{"rebound Host on a GET", "GET", "/api/steps", "", map[string]string{"Host": "rebind.evil.example"}, 403, "host"},
		{"rebound Host on the page", "GET", "/", "", map[string]string{"Host": "192.168.1.20:8080"}, 403, "host"},
	}
	for _, c := range cases {
		code, _, b := request(t, c.method, ts.url+c.path, c.body, c.headers)
		if code != c.code || !strings.Contains(strings.ToLower(b), c.errorContains) {
			t.Errorf("%s: got %d %s, want %d naming %q", c.name, code, b, c.code, c.errorContains)
		}
	}
	if n := ts.Executions(); n != 0 {
		t.Errorf("refused requests executed %d runs", n)
	}
	var stored int
	if err := ts.db.QueryRow(`SELECT count(*) FROM runs`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Errorf("refused requests stored %d runs", stored)
	}

	// The learner's own page: same origin, JSON, loopback names.
	for _, h := range []map[string]string{
		with(map[string]string{"Origin": ts.url}),
		with(map[string]string{"Origin": "http://localhost:" + strings.Split(host, ":")[1], "Host": "localhost:" + strings.Split(host, ":")[1]}),
		with(map[string]string{"Sec-Fetch-Site": "same-origin"}),
		json,
	} {
		if code, _, b := request(t, "POST", ts.url+"/api/check", body, h); code != 200 {
			t.Errorf("own page %v: got %d %s", h, code, b)
		}
	}

	// A websocket from a foreign page is refused before the upgrade, so it
	// never sees a replay; the page's own origin is accepted.
	pr := ts.post(t, map[string]any{"code": kernelSource(t, "08_allreduce_mesh"), "ranks": 2})
	wsURL := "ws" + strings.TrimPrefix(ts.url, "http") + "/ws/runs/" + pr.ID
	if c, resp, err := websocket.DefaultDialer.Dial(wsURL, http.Header{"Origin": {"http://evil.example"}}); err == nil {
		c.Close()
		t.Errorf("a foreign Origin opened the run's websocket")
	} else if resp == nil || resp.StatusCode != 403 {
		t.Errorf("foreign Origin websocket: %v %v, want 403", err, resp)
	}
	c, _, err := websocket.DefaultDialer.Dial(wsURL, http.Header{"Origin": {ts.url}})
	if err != nil {
		t.Fatalf("own Origin websocket: %v", err)
	}
	if ms := readAll(t, c); len(ofType(ms, "done")) != 1 {
		t.Errorf("own Origin websocket: no done in %d messages", len(ms))
	}
	c.Close()
}

// TestSecurityHeaders: every response, page, asset, API and error, carries
// the CSP, nosniff and frame-ancestors 'none'.
func TestSecurityHeaders(t *testing.T) {
	ts := start(t, "")
	for _, path := range []string{"/", "/step/8", "/assets/app.js", "/api/steps", "/api/nothing", "/r/none"} {
		code, h, _ := request(t, "GET", ts.url+path, "", nil)
		csp := h.Get("Content-Security-Policy")
		if code >= 500 || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			strings.Contains(csp, "unsafe") || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d CSP %q nosniff %q", path, code, csp, h.Get("X-Content-Type-Options"))
		}
	}
}

// TestToken: a server given a token (what `workbench serve` does on a
// non-loopback address) answers nothing without it, takes it from the
// query once and from its cookie after, or from an Authorization header.
func TestToken(t *testing.T) {
	s, err := New(Options{DataDir: t.TempDir(), Token: "s3cret-token"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	url := "http://" + ln.Addr().String()

	if code, _, b := request(t, "GET", url+"/api/steps", "", nil); code != 401 || !strings.Contains(b, "token") {
		t.Errorf("no token: %d %s", code, b)
	}
	if code, _, _ := request(t, "GET", url+"/api/steps?token=wrong", "", nil); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	code, h, _ := request(t, "GET", url+"/?token=s3cret-token", "", nil)
	cookie := h.Get("Set-Cookie")
	if code != 200 || !strings.Contains(cookie, tokenCookie+"=s3cret-token") || !strings.Contains(strings.ToLower(cookie), "httponly") ||
		!strings.Contains(strings.ToLower(cookie), "samesite=strict") {
		t.Errorf("?token=: %d cookie %q", code, cookie)
	}
	if code, _, _ := request(t, "GET", url+"/api/steps", "", map[string]string{"Cookie": tokenCookie + "=s3cret-token"}); code != 200 {
		t.Errorf("cookie: %d", code)
	}
	// With a token the name the machine is reached by may be any (another
	// machine uses its address), but the Origin and content-type rules hold.
	auth := map[string]string{"Authorization": "token s3cret-token", "Host": "workstation.lan:8080", "Content-Type": "application/json"}
	if code, _, b := request(t, "POST", url+"/api/check", `{"code": "x = 1\n"}`, auth); code != 200 {
		t.Errorf("Authorization header: %d %s", code, b)
	}
	auth["Origin"] = "http://evil.example"
	if code, _, _ := request(t, "POST", url+"/api/check", `{"code": "x = 1\n"}`, auth); code != 403 {
		t.Errorf("token with a foreign Origin: %d, want 403", code)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.8.9.10:1": true, "localhost": true, "LOCALHOST:80": true,
		"localhost.:8080": true, "app.localhost:8080": true, "[::1]:8080": true, "::1": true,
		"evil.example": false, "localhost.evil.example": false, "127.0.0.1.nip.io": false, "0.0.0.0:8080": false,
		"192.168.1.2:8080": false, "[::ffff:10.0.0.1]:80": false, "": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestPageNonce: each page load gets its own nonce, in the CSP and in the
// meta tag the bundle reads, and nothing else admits inline style.
func TestPageNonce(t *testing.T) {
	ts := start(t, "")
	var seen []string
	for range 2 {
		_, h, body := request(t, "GET", ts.url+"/step/8", "", nil)
		csp := h.Get("Content-Security-Policy")
		_, rest, ok := strings.Cut(csp, "style-src 'self' 'nonce-")
		nonce, _, _ := strings.Cut(rest, "'")
		if !ok || len(nonce) < 20 || !strings.Contains(body, `<meta name="csp-nonce" content="`+nonce+`">`) {
			t.Fatalf("nonce %q not in both CSP %q and the page", nonce, csp)
		}
		seen = append(seen, nonce)
	}
	if seen[0] == seen[1] {
		t.Errorf("two page loads share the nonce %q", seen[0])
	}
}
