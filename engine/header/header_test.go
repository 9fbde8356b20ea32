package header

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	src := "#!/usr/bin/env python3\n#! entry: build({P}).host\n\n    #!ranks:2 4 \nx = 1  #! not: a header\n#! golden: y == x: copied\n"
	got := Parse([]byte(src))
	want := []Line{
		{Line: 2, Key: "entry", Value: "build({P}).host"},
		{Line: 4, Key: "ranks", Value: "2 4"},
		{Line: 6, Key: "golden", Value: "y == x: copied"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Parse = %+v\nwant %+v", got, want)
	}
	if Parse(nil) != nil {
		t.Error("Parse(nil) is not empty")
	}
}
