package server

import (
	"strings"
	"testing"
)

// TestAssets: the page, its bundle and the licences of the third-party
// code inside the bundle are all served from the embedded build.
func TestAssets(t *testing.T) {
	ts := start(t, "")
	for _, tt := range []struct{ path, want string }{
		{"/", "/assets/app.js"},
		{"/assets/app.js", "THIRD_PARTY_LICENSES.txt"},
		{"/assets/app.css", "{"},
		{"/assets/THIRD_PARTY_LICENSES.txt", "@codemirror/view"},
	} {
		code, b := ts.do(t, "GET", tt.path, nil)
		if code != 200 || !strings.Contains(string(b), tt.want) {
			t.Errorf("GET %s: %d, body lacks %q", tt.path, code, tt.want)
		}
	}
}
