package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// loadShape is the load test's size: PLD_LOAD=full gives the 100
// clients × 60 s; the default is CI's 10 clients × 5 s.
func loadShape() (clients int, d time.Duration) {
	if os.Getenv("PLD_LOAD") == "full" {
		return 100, 60 * time.Second
	}
	return 10, 5 * time.Second
}

// loadStats are what the load clients saw.
type loadStats struct {
	mu                   sync.Mutex
	runs, checks, shares int
	retries              int // 503s answered with Retry-After, then retried
	errors               []string
	firstEvent           []time.Duration // post to first event, per run
	links                []string
}

func (ls *loadStats) fail(format string, args ...any) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.errors) < 20 {
		ls.errors = append(ls.errors, fmt.Sprintf(format, args...))
	} else {
		ls.errors = append(ls.errors, "")
	}
}

// TestLoad: clients mixing runs (watched to done over the websocket),
// checks and share reads (the share page, the record, a replay) against
// one real server: no errors, and the goroutines back to their baseline
// afterwards. A 503 with Retry-After is the documented back-pressure: the
// client waits and retries, and the test counts it apart.
//
//	PLD_LOAD=full go test ./server -run TestLoad -v   # 100 clients × 60 s
func TestLoad(t *testing.T) {
	clients, d := loadShape()
	ts := start(t, "")
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	hc := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	// The baseline is taken once the server has served a request (fasthttp
	// starts its worker-pool cleaner and date updater on the first).
	if code, _ := ts.do(t, "GET", "/api/steps", nil); code != 200 {
		t.Fatalf("GET /api/steps: %d", code)
	}
	tr.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond)
	base := runtime.NumGoroutine()
	mesh := kernelSource(t, "08_allreduce_mesh")
	var ls loadStats
	post := func(path string, body any) (int, []byte, error) {
		j, _ := json.Marshal(body)
		for {
			resp, err := hc.Post(ts.url+path, "application/json", bytes.NewReader(j))
			if err != nil {
				return 0, nil, err
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "" {
				ls.mu.Lock()
				ls.retries++
				ls.mu.Unlock()
				secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
				time.Sleep(time.Duration(secs) * time.Second)
				continue
			}
			return resp.StatusCode, b, err
		}
	}
	get := func(path string) (int, []byte, error) {
		resp, err := hc.Get(ts.url + path)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	// watch reads a run's socket to done; it returns the time to the
	// first event and the share link.
	watch := func(id string, since time.Time) (time.Duration, string, error) {
		c, _, err := websocket.DefaultDialer.Dial("ws"+ts.url[len("http"):]+"/ws/runs/"+id, nil)
		if err != nil {
			return 0, "", err
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
		var first time.Duration
		var last []byte
		for {
			_, b, err := c.ReadMessage()
			if err != nil {
				return 0, "", fmt.Errorf("socket ended before done: %v (last frame %.300s)", err, last)
			}
			last = b
			var ms []msg
			if b[0] == '[' {
				err = json.Unmarshal(b, &ms)
			} else {
				ms = make([]msg, 1)
				err = json.Unmarshal(b, &ms[0])
			}
			if err != nil {
				return 0, "", err
			}
			for _, m := range ms {
				if m.Type == "event" && first == 0 {
					first = time.Since(since)
				}
				if m.Type == "done" {
					if m.Status != "ok" || m.Share == "" {
						return 0, "", fmt.Errorf("done %s share %q", m.Status, m.Share)
					}
					return first, m.Share, nil
				}
			}
		}
	}

	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for time.Now().Before(end) {
				switch k := rng.IntN(10); {
				case k < 5: // a run: a few hundred distinct ones, so some are cached replays
					since := time.Now()
					code, b, err := post("/api/runs", map[string]any{"code": mesh, "ranks": 2 + rng.IntN(3), "seed": rng.IntN(200)})
					var pr postResponse
					if err != nil || code != 200 || json.Unmarshal(b, &pr) != nil {
						ls.fail("POST /api/runs: %d %v %.200s", code, err, b)
						continue
					}
					first, link, err := watch(pr.ID, since)
					if err != nil {
						ls.fail("run %s: %v", pr.ID, err)
						continue
					}
					ls.mu.Lock()
					ls.runs++
					ls.firstEvent = append(ls.firstEvent, first)
					ls.links = append(ls.links, link)
					ls.mu.Unlock()
				case k < 8: // a check
					code, b, err := post("/api/check", map[string]any{"code": mesh})
					var cr struct {
						OK bool `json:"ok"`
					}
					if err != nil || code != 200 || json.Unmarshal(b, &cr) != nil || !cr.OK {
						ls.fail("POST /api/check: %d %v %.200s", code, err, b)
						continue
					}
					ls.mu.Lock()
					ls.checks++
					ls.mu.Unlock()
				default: // a share read
					ls.mu.Lock()
					link := ""
					if len(ls.links) > 0 {
						link = ls.links[rng.IntN(len(ls.links))]
					}
					ls.mu.Unlock()
					if link == "" {
						continue
					}
					id := link[len("/r/"):]
					if code, _, err := get(link); err != nil || code != 200 {
						ls.fail("GET %s: %d %v", link, code, err)
						continue
					}
					if code, _, err := get("/api/runs/" + id); err != nil || code != 200 {
						ls.fail("GET /api/runs/%s: %d %v", id, code, err)
						continue
					}
					if _, _, err := watch(id, time.Now()); err != nil {
						ls.fail("replay %s: %v", id, err)
						continue
					}
					ls.mu.Lock()
					ls.shares++
					ls.mu.Unlock()
				}
			}
		}(i)
	}
	wg.Wait()
	tr.CloseIdleConnections()
	hwm := procStatus(t, os.Getpid(), "VmHWM")

	sort.Slice(ls.firstEvent, func(i, j int) bool { return ls.firstEvent[i] < ls.firstEvent[j] })
	pct := func(p float64) time.Duration {
		if len(ls.firstEvent) == 0 {
			return 0
		}
		return ls.firstEvent[int(p*float64(len(ls.firstEvent)-1))]
	}
	// fasthttp parks idle workers for up to 10 s before they exit.
	settleStart := time.Now()
	settled := waitFor(30*time.Second, func() bool { return runtime.NumGoroutine() <= base })
	settle := time.Since(settleStart).Round(100 * time.Millisecond)
	t.Logf("%d clients × %v: %d runs, %d checks, %d share reads, %d errors, %d retried 503s; time to first event p50 %v p99 %v; peak RSS (test process) %.1f MiB; goroutines %d before, %d after (settled in %v)",
		clients, d, ls.runs, ls.checks, ls.shares, len(ls.errors), ls.retries, pct(0.5), pct(0.99), float64(hwm)/(1<<20), base, runtime.NumGoroutine(), settle)
	for _, e := range ls.errors {
		if e != "" {
			t.Error(e)
		}
	}
	if len(ls.errors) > 0 {
		t.Errorf("%d errors; server log:\n%.3000s", len(ls.errors), grepLines(ts.log.String(), "replay", "error", "panic"))
	}
	if ls.runs == 0 || ls.checks == 0 {
		t.Errorf("the load did no runs (%d) or no checks (%d)", ls.runs, ls.checks)
	}
	if !settled {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Errorf("goroutines %d after the load, baseline %d:\n%s", runtime.NumGoroutine(), base, buf[:n])
	}
}

// grepLines keeps the lines of s that contain one of words.
func grepLines(s string, words ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, w := range words {
			if strings.Contains(l, w) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
