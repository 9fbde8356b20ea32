package server

import (
	"bytes"
	"strings"

	"database/sql"
	"encoding/json"
	"github.com/gorilla/websocket"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"pldworkbench/engine/limits"
)

// TestKill9: `kill -9` the real `workbench serve` while clients write runs,
// again and again on one data directory. After each kill the store passes
// PRAGMA integrity_check, and every share link a client was shown (a done
// message carrying it) a loss window before a kill still opens: the page,
// the record and a full replay. The window is what the store-delay row of
// engine/limits says a kill may lose: the done goes out before the
// commit, which waits at most limits.StoreDelay, and limits.StoreYield
// while runs queue, and then takes its own time (a generous second on a
// busy machine). Every other server runs with --store-delay 0, which
// commits each run before its done: there every link shown before the
// kill opens. PLD_LOAD=full kills 20 times, CI 5.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs workbench serve")
	}
	kills := 5
	if os.Getenv("PLD_LOAD") == "full" {
		kills = 20
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	type shownLink struct {
		link string
		at   time.Time
	}
	var round []shownLink // this round's links, with when their done came
	var recent []string   // the last round's links inside the window
	var shown []string    // links shown a loss window before a kill
	window := limits.StoreDelay + limits.StoreYield + time.Second
	lost := 0 // links shown inside a window that did not survive its kill
	seed := 0
	for k := 0; k < kills; k++ {
		strict := k%2 == 1 // --store-delay 0: a link shown is a run stored
		var c *child
		if strict {
			c = startChild(t, dir, "--store-delay", "0")
		} else {
			c = startChild(t, dir)
		}
		// Every link shown so far still opens.
		for _, link := range recent {
			if resp, err := http.Get(c.url + "/api/runs/" + link[len("/r/"):]); err != nil || resp.StatusCode != 200 {
				lost++
			} else {
				resp.Body.Close()
				shown = append(shown, link)
			}
		}
		recent = nil
		for _, link := range shown {
			id := link[len("/r/"):]
			resp, err := http.Get(c.url + link)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("kill %d: %s does not open: %v %v", k, link, err, resp)
			}
			resp.Body.Close()
			resp, err = http.Get(c.url + "/api/runs/" + id)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("kill %d: GET /api/runs/%s: %v %v", k, id, err, resp)
			}
			resp.Body.Close()
		}
		if len(shown) > 0 {
			link := shown[rng.IntN(len(shown))]
			replay := readAll(t, dialTo(t, c.url, link[len("/r/"):]))
			if d := doneOf(t, replay); d.Share != link || len(ofType(replay, "event")) == 0 {
				t.Fatalf("kill %d: replay of %s: done %s", k, link, replay[len(replay)-1].raw)
			}
		}
		// Writers: post fresh runs and watch them to done until the kill.
		var mu sync.Mutex
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					mu.Lock()
					seed++
					s := seed
					mu.Unlock()
					link, ok := killWatch(c.url, map[string]any{"code": loopCode(t, 50+s%200), "ranks": 2 + s%3, "seed": s})
					if ok {
						mu.Lock()
						round = append(round, shownLink{link, time.Now()})
						mu.Unlock()
					}
				}
			}()
		}
		time.Sleep(window + time.Duration(300+rng.IntN(700))*time.Millisecond)
		killed := time.Now()
		c.kill()
		close(stop)
		wg.Wait()
		for _, l := range round {
			if strict || l.at.Before(killed.Add(-window)) {
				shown = append(shown, l.link)
			} else {
				recent = append(recent, l.link) // may be lost: kept only if it opens
			}
		}
		round = nil
		// The file as the killed process left it (WAL and all).
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "runs.db"))
		if err != nil {
			t.Fatal(err)
		}
		var res string
		if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
			t.Fatalf("kill %d: integrity_check %q %v", k, res, err)
		}
		db.Close()
	}
	t.Logf("%d kills; %d links shown before a kill still open; %d shown within %v of a kill were lost", kills, len(shown), lost, window)
	if len(shown) == 0 {
		t.Error("no link was shown: the test wrote nothing")
	}
}

// killWatch posts a run and reads its socket; it returns the share link
// of its done, ok false when the server went away first.
func killWatch(base string, body map[string]any) (string, bool) {
	j, _ := json.Marshal(body)
	resp, err := http.Post(base+"/api/runs", "application/json", bytesReader(j))
	if err != nil {
		return "", false
	}
	var pr postResponse
	err = json.NewDecoder(resp.Body).Decode(&pr)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		return "", false
	}
	c, _, err := wsDial(base, pr.ID)
	if err != nil {
		return "", false
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		_, b, err := c.ReadMessage()
		if err != nil {
			return "", false
		}
		var ms []msg
		if b[0] == '[' {
			err = json.Unmarshal(b, &ms)
		} else {
			ms = make([]msg, 1)
			err = json.Unmarshal(b, &ms[0])
		}
		if err != nil {
			return "", false
		}
		for _, m := range ms {
			if m.Type == "done" {
				return m.Share, m.Share != ""
			}
		}
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func wsDial(base, id string) (*websocket.Conn, *http.Response, error) {
	return websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws/runs/"+id, nil)
}
