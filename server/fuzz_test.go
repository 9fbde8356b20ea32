package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pldworkbench/kernels"
)

// fuzzRoutes are the POST routes FuzzHandlers feeds; the first byte of a
// fuzz input picks one.
var fuzzRoutes = []string{"/api/runs", "/api/check", "/api/ir", "/api/compare", "/api/export", "/api/steps/8/check", "/api/steps/1/check", "/api/ir/lines", "/api/schedules", "/api/sweep"}

// FuzzHandlers feeds arbitrary bodies to every POST route through
// app.Test: whatever the body, the answer is a 2xx or a 4xx with a JSON
// error, or the documented 503 (queue full, busy, shutting down) — never
// another 5xx. Seeded with the bodies the other tests send.
//
//	go test ./server -run '^$' -fuzz '^FuzzHandlers$' -fuzztime 30s
func FuzzHandlers(f *testing.F) {
	mesh, _ := kernels.Get("08_allreduce_mesh")
	code := string(mesh.Source)
	seeds := []any{
		map[string]any{"code": code, "ranks": 2},
		map[string]any{"code": code, "step": 8, "ranks": 4},
		map[string]any{"code": code, "step": 8, "variant": "bug"},
		map[string]any{"code": code, "entry": "mesh_allreduce", "after": "checked"},
		map[string]any{"code": code, "schedule": "random:7", "fill": "index", "seed": 3, "platform": "950"},
		map[string]any{"code": code, "args": map[string]any{"n": 1.5}},
		map[string]any{"a": map[string]any{"code": code}, "b": map[string]any{"kernel": "08_allreduce_mesh"}, "ranks": 2},
		map[string]any{"a": map[string]any{"code": code}, "b": map[string]any{"code": code, "kernel": "x"}},
		map[string]any{"code": "def f(:\n", "ranks": 1000},
		map[string]any{"code": "x = 1\n", "ranks": -1, "variant": "bogus", "kernel": 3},
	}
	for i, s := range seeds {
		b, _ := json.Marshal(s)
		for r := range fuzzRoutes {
			if r%3 == i%3 {
				f.Add(byte(r), b)
			}
		}
	}
	for _, raw := range []string{``, `{`, `{"code": `, `{"code": 3}`, `{"code": ""}`, `[]`, `null`, `"x"`, `{"code":"\u0000"}`, `{"a": 1}`} {
		f.Add(byte(0), []byte(raw))
		f.Add(byte(3), []byte(raw))
	}
	s, err := New(Options{DataDir: f.TempDir(), RunTimeout: time.Second, SlotWait: 5 * time.Second, UnwatchedGrace: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	f.Fuzz(func(t *testing.T, route byte, body []byte) {
		path := fuzzRoutes[int(route)%len(fuzzRoutes)]
		req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.App().Test(req, 60_000)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 500 && resp.StatusCode != 503 {
			t.Fatalf("POST %s %q: %d %s", path, body, resp.StatusCode, out)
		}
		if resp.StatusCode >= 400 {
			var e apiError
			if json.Unmarshal(out, &e) != nil || e.Msg == "" {
				t.Fatalf("POST %s %q: %d without a JSON error: %s", path, body, resp.StatusCode, out)
			}
		}
	})
}
