package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestKernelBug asks where each bug shows: step 4's twice-used barrier
// races only under the adversarial schedule, step 20's window reuse under
// the fair one; the answer names the failure's status, never the header's
// regexp, and a kernel that is not a bug is a 404.
func TestKernelBug(t *testing.T) {
	ts := start(t, "")
	for _, tc := range []struct{ path, kind, schedule string }{
		{"/api/kernels/04_barrier_bug/bug?ranks=4", "race", "adversarial"},
		{"/api/kernels/20_window_reuse_bug/bug?ranks=4", "race", "fair"},
		{"/api/kernels/20_in_place_sum_bug/bug", "wrong_data", "fair"},
	} {
		code, body := ts.do(t, "GET", tc.path, nil)
		var b bugJSON
		if err := json.Unmarshal(body, &b); code != 200 || err != nil {
			t.Fatalf("GET %s: %d %s", tc.path, code, body)
		}
		if !b.Reproduced || b.Kind != tc.kind || b.Schedule != tc.schedule || b.Reason == "" {
			t.Errorf("GET %s = %+v, want reproduced %s under %s with a reason", tc.path, b, tc.kind, tc.schedule)
		}
		if strings.Contains(string(body), `\\d`) {
			t.Errorf("GET %s shows the header's regexp: %s", tc.path, body)
		}
	}
	for path, want := range map[string]int{
		"/api/kernels/08_allreduce_mesh/bug":          404,
		"/api/kernels/04_barrier_bug/bug?ranks=5":     400,
		"/api/kernels/04_barrier_bug/bug?ranks=seven": 400,
	} {
		if code, body := ts.do(t, "GET", path, nil); code != want || !strings.Contains(string(body), `"error"`) {
			t.Errorf("GET %s: %d %s, want %d with an error", path, code, body, want)
		}
	}
}

// TestNotFoundPages: a page address no route takes is the HTML page with
// status 404 (the page says what is missing); under /api/ it stays JSON.
// The lessons' README, which steps 1 and 17 link to, is a page.
func TestNotFoundPages(t *testing.T) {
	ts := start(t, "")
	code, body := ts.do(t, "GET", "/no/such/page", nil)
	if code != 404 || !strings.Contains(string(body), "<!doctype html>") {
		t.Errorf("GET /no/such/page: %d %.80s, want 404 and the HTML page", code, body)
	}
	code, body = ts.do(t, "GET", "/api/nope", nil)
	if code != 404 || !strings.Contains(string(body), `"error"`) {
		t.Errorf("GET /api/nope: %d %.80s, want a 404 JSON error", code, body)
	}
	if code, body = ts.do(t, "GET", "/lessons/README", nil); code != 200 || !strings.Contains(string(body), "<!doctype html>") {
		t.Errorf("GET /lessons/README: %d %.80s, want the page", code, body)
	}
	code, body = ts.do(t, "GET", "/api/lessons/readme", nil)
	var r struct{ HTML string }
	if err := json.Unmarshal(body, &r); code != 200 || err != nil || !strings.Contains(r.HTML, "<h") {
		t.Errorf("GET /api/lessons/readme: %d %.120s, want {html} with the README rendered", code, body)
	}
	// Step 0, the operation reference and the glossary are pages too.
	for name, want := range map[string]string{"intro": "The race detector", "reference": "pld.tensor.put", "glossary": "happens-before"} {
		if code, body = ts.do(t, "GET", "/lessons/"+name, nil); code != 200 || !strings.Contains(string(body), "<!doctype html>") {
			t.Errorf("GET /lessons/%s: %d %.80s, want the page", name, code, body)
		}
		code, body = ts.do(t, "GET", "/api/lessons/doc/"+name, nil)
		r.HTML = ""
		if err := json.Unmarshal(body, &r); code != 200 || err != nil || !strings.Contains(r.HTML, want) {
			t.Errorf("GET /api/lessons/doc/%s: %d %.120s, want {html} with %q", name, code, body, want)
		}
	}
	if code, _ = ts.do(t, "GET", "/api/lessons/doc/secrets", nil); code != 404 {
		t.Errorf("GET /api/lessons/doc/secrets: %d, want 404", code)
	}
	if code, _ = ts.do(t, "GET", "/lessons/secrets", nil); code != 404 {
		t.Errorf("GET /lessons/secrets: %d, want 404", code)
	}
}
