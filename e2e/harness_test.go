package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/chromedp"

	"pldworkbench/server"
)

// testTimeout bounds one test: browser start, every navigation, run and
// wait. waitTimeout bounds one wait, and is shorter, so that a wait that
// times out still has a live browser to ask what the page shows instead
// (when the two were equal, a CI failure read "the page shows: ?": the
// test's context had ended and taken the browser with it). A cold
// Chromium on a loaded 2-core machine starts in 2-5 s and a 4-rank run
// takes well under a second, so either only trips on a real hang.
const (
	testTimeout = 150 * time.Second
	waitTimeout = 60 * time.Second
)

// pollEvery is the interval of the JavaScript predicates the tests wait on.
// Interval polling, not requestAnimationFrame, so that a tab whose frames
// are throttled still gets checked.
const pollEvery = 100 * time.Millisecond

// Viewport size of every tab and of the full-page screenshots.
const (
	viewW = 1280
	viewH = 800
)

// chromePath returns the Chromium binary, or skips the test when there is
// none: the only reason a browser test skips.
func chromePath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROME"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "chromium not found (install Debian's chromium: apt-get install chromium)"
	if os.Getenv("PLD_REQUIRE_BROWSER") != "" {
		// .ci/run sets it: CI installs chromium, so a missing one is a failure there.
		t.Fatal(msg + "; PLD_REQUIRE_BROWSER is set, so the browser tests may not skip")
	}
	t.Skip(msg + "; browser tests skipped")
	return ""
}

// site is one running workbench server on a loopback port.
type site struct {
	t    *testing.T
	dir  string
	srv  *server.Server
	base string // http://127.0.0.1:PORT
	once sync.Once
	done chan struct{}
	err  error // what Serve returned, once done is closed
}

// startSite starts a server on 127.0.0.1:0 with its data (runs.db) in dir.
// The server stops when the test ends, after the browser (cleanups run last
// registered first, and tests start the site before the browser).
func startSite(t *testing.T, dir string) *site {
	t.Helper()
	return startSiteWith(t, server.Options{DataDir: dir})
}

// startSiteWith is startSite with the server's options spelled out
// (opts.DataDir is the data dir).
func startSiteWith(t *testing.T, opts server.Options) *site {
	t.Helper()
	dir := opts.DataDir
	srv, err := server.New(opts)
	if err != nil {
		t.Fatalf("server.New(%s): %v", dir, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &site{t: t, dir: dir, srv: srv, base: "http://" + ln.Addr().String(), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = srv.Serve(ln)
	}()
	t.Cleanup(s.stop)
	return s
}

// stop shuts the server down and waits for Serve to return. It is safe to
// call more than once.
func (s *site) stop() {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			s.t.Errorf("shutdown %s: %v", s.base, err)
		}
		select {
		case <-s.done:
			if s.err != nil {
				s.t.Errorf("Serve on %s: %v", s.base, s.err)
			}
		case <-ctx.Done():
			s.t.Errorf("Serve on %s did not return after Shutdown", s.base)
		}
	})
}

// httpClient bounds the tests' own API calls (a run's record, a post).
var httpClient = &http.Client{Timeout: 10 * time.Second}

// getJSON fetches base+path from the server and decodes its JSON body.
func (s *site) getJSON(path string, v any) error {
	resp, err := httpClient.Get(s.base + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// startBrowser starts a headless Chromium with a fresh profile and returns
// the context of its first tab. Later tabs derive from that context.
func startBrowser(t *testing.T, parent context.Context) *tab {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromePath(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(viewW, viewH),
	)
	allocCtx, cancel := chromedp.NewExecAllocator(parent, opts...)
	t.Cleanup(cancel)
	return openTab(t, allocCtx)
}

// tab is one browser tab with its console forwarded to the test log.
type tab struct {
	t      *testing.T
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	done   chan struct{}

	mu         sync.Mutex
	exceptions []string
	crashed    bool // the renderer crashed (Inspector.targetCrashed)
}

// crashNote is " (the tab's renderer had crashed)" once it has, else "".
func (tb *tab) crashNote() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.crashed {
		return " (the tab's renderer had crashed)"
	}
	return ""
}

// openTab opens a tab under parent (an allocator context for the first tab,
// a tab context for the others; chromedp.WithNewBrowserContext() gives the
// tab a fresh profile with empty storage). The tab closes when the test ends;
// an uncaught exception seen in it fails the test then.
func openTab(t *testing.T, parent context.Context, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent, opts...)
	tb := &tab{t: t, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	t.Cleanup(tb.close)
	// Console starts the browser or opens the tab, and subscribes before
	// any page loads, so no message is lost.
	messages := chromedp.Console(ctx)
	go func() {
		defer close(tb.done)
		for m, err := range messages {
			if err != nil {
				if ctx.Err() == nil {
					t.Logf("console of tab: %v", err)
				}
				return
			}
			switch {
			case m.IsException():
				tb.mu.Lock()
				tb.exceptions = append(tb.exceptions, fmt.Sprintf("%s (%s:%d:%d)", m.Text, m.URL, m.Line+1, m.Column+1))
				tb.mu.Unlock()
				t.Logf("browser: uncaught %s at %s:%d", m.Text, m.URL, m.Line+1)
			case strings.Contains(m.Text, "Content Security Policy"):
				// The page must live within its own CSP (server/gate.go):
				// a violation is something the page needed and did not get.
				t.Errorf("browser: the page broke its Content-Security-Policy: %s %s", m.Text, m.URL)
			case m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning:
				t.Logf("browser console %s: %s %s", m.Type, m.Text, m.URL)
			}
		}
	}()
	// A renderer that crashed (out of memory, say) answers no poll: a wait
	// that times out says so, and so does the test's end.
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*inspector.EventTargetCrashed); ok {
			tb.mu.Lock()
			tb.crashed = true
			tb.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(viewW, viewH)); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	return tb
}

// close closes the tab and fails the test if the page threw an uncaught
// exception. It is safe to call more than once.
func (tb *tab) close() {
	tb.once.Do(func() {
		tb.cancel()
		<-tb.done
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, e := range tb.exceptions {
			tb.t.Errorf("uncaught exception in the page: %s", e)
		}
		if tb.crashed {
			tb.t.Errorf("the tab's renderer crashed")
		}
	})
}

// do runs actions in the tab and fails the test on error, naming what.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// navigate loads url and waits for the load event.
func (tb *tab) navigate(url string) {
	tb.t.Helper()
	tb.do("navigate to "+url, chromedp.Navigate(url))
}

// eval evaluates a JavaScript expression and decodes its value into T.
func eval[T any](tb *tab, what, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("%s: evaluating %s: %v", what, expr, err)
	}
	return v
}

// waitFor polls a JavaScript expression until it is truthy and returns its
// value. On timeout it fails the test with what, and with the value of
// state, a JavaScript expression describing what the page shows instead.
func waitFor[T any](tb *tab, what, expr, state string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Poll[T](expr,
		chromedp.WithPollingInterval(pollEvery),
		chromedp.WithPollingTimeout(waitTimeout)))
	if err != nil {
		got := "?"
		if state != "" {
			if s, err2 := chromedp.Run(context.WithoutCancel(tb.ctx), chromedp.Evaluate[string]("String("+state+")")); err2 == nil {
				got = s
			}
		}
		if errors.Is(err, chromedp.ErrPollingTimeout) || errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v", waitTimeout)
			logServerGoroutines(tb.t)
		}
		tb.t.Fatalf("waiting for %s: %v%s; the page shows: %s", what, err, tb.crashNote(), got)
	}
	return v
}

// logServerGoroutines logs the stacks of the goroutines that are in the
// server's code, the engine's or the HTTP stack's (the server runs in
// this process), so that a wait that timed out says whether the server
// was stuck and where: a request fasthttp is still reading or writing
// has no frame of the server's.
func logServerGoroutines(t *testing.T) {
	t.Helper()
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		t.Logf("goroutine dump: %v", err)
		return
	}
	var keep []string
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "pldworkbench/server") || strings.Contains(g, "pldworkbench/engine") || strings.Contains(g, "valyala/fasthttp") || strings.Contains(g, "gofiber/") {
			keep = append(keep, g)
		}
	}
	t.Logf("%d of the process's goroutines are in the server's, the engine's or the HTTP stack's code:\n%s", len(keep), strings.Join(keep, "\n\n"))
}

// shotDir is where screenshots go: $PLD_SCREENSHOTS, or a temporary dir.
func shotDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("PLD_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("screenshot dir: %v", err)
		}
		return d
	}
	return t.TempDir()
}

// savePNG writes a screenshot and logs its path.
func savePNG(t *testing.T, dir, name string, png []byte) {
	t.Helper()
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot %s: not a PNG (%d bytes)", name, len(png))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot %s (%d bytes)", p, len(png))
}

// viewportShot captures the 1280x800 viewport as a PNG.
func (tb *tab) viewportShot(dir, name string) {
	tb.t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	savePNG(tb.t, dir, name, png)
}

// elementShot captures the element a JavaScript expression yields.
func (tb *tab) elementShot(dir, name, elemJS string) {
	tb.t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.Screenshot(chromedp.JSPath(elemJS)))
	if err != nil {
		tb.t.Fatalf("screenshot %s of %s: %v", name, elemJS, err)
	}
	savePNG(tb.t, dir, name, png)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a Go string always marshals
	}
	return string(b)
}

// testContext returns a context that ends at the test's deadline or after
// testTimeout, whichever is first.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newSession starts a server on a fresh data dir and a browser, and returns
// both. The browser closes before the server stops.
func newSession(t *testing.T) (*site, *tab) {
	t.Helper()
	chromePath(t) // skip before starting anything
	s := startSite(t, t.TempDir())
	tb := startBrowser(t, testContext(t))
	return s, tb
}

// summary is a JavaScript expression that describes the cells of the page,
// for failure messages.
const summary = `[...document.querySelectorAll('[data-test=cell]')].map((c, i) =>
	i + ':' + c.dataset.action + ':' + (c.dataset.kernel || '') + ':' + c.dataset.state).join(' | ') +
	' || body: ' + document.body.innerText.slice(0, 300)`
