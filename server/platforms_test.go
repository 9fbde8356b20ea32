package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pldworkbench/engine/platform"
)

// TestPlatforms: GET /api/platforms is engine/platform's table, and every
// name in it is a platform a run accepts (an unknown one is refused with
// the names).
func TestPlatforms(t *testing.T) {
	ts := start(t, "")
	code, b := call(t, ts.Server, "GET", "/api/platforms", "")
	if code != 200 {
		t.Fatalf("GET /api/platforms: %d %s", code, b)
	}
	var got platformsResponse
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Default != platform.Default() || !reflect.DeepEqual(got.Platforms, platform.All()) {
		t.Errorf("GET /api/platforms = %s, want the table", b)
	}
	for _, p := range got.Platforms {
		name := p.Name
		if err := validPlatform(&name); err != nil {
			t.Errorf("platform %s from /api/platforms is refused: %v", p.Name, err)
		}
	}
	bad := "A100"
	if err := validPlatform(&bad); err == nil || !strings.Contains(err.Error(), platform.Choices(" or ")) {
		t.Errorf("platform A100: %v, want a refusal naming %s", err, platform.Choices(" or "))
	}
	def := ""
	if err := validPlatform(&def); err != nil || def != platform.Default() {
		t.Errorf(`platform "" became %q (%v), want the default %s`, def, err, platform.Default())
	}
}
