package floats

import (
	"encoding/json"
	"math"
	"testing"
)

// TestFloatsJSON: finite elements are written exactly as encoding/json
// writes a float64, NaN and the infinities as strings, and the result
// reads back to the same values.
func TestFloatsJSON(t *testing.T) {
	finite := []float64{0, -0.5, 1, 3.25e-7, 1e21, -1.5e-9, 123456.789, math.MaxFloat64, math.SmallestNonzeroFloat64}
	got, err := json.Marshal(Floats(finite))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(finite)
	if string(got) != string(want) {
		t.Errorf("finite: got %s, want %s (encoding/json)", got, want)
	}

	all := Floats{1.5, math.NaN(), math.Inf(1), math.Inf(-1), -2e-7}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `[1.5,"NaN","Infinity","-Infinity",-2e-7]` {
		t.Errorf("got %s", b)
	}
	var back Floats
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 5 || back[0] != 1.5 || !math.IsNaN(back[1]) || !math.IsInf(back[2], 1) || !math.IsInf(back[3], -1) || back[4] != -2e-7 {
		t.Errorf("read back %v", back)
	}
	if err := json.Unmarshal([]byte(`["nope"]`), &back); err == nil {
		t.Error(`["nope"] read without an error`)
	}
}

// TestFloatJSON: a finite Float is written as encoding/json writes a
// float64, NaN and the infinities as null, and null reads back as NaN.
func TestFloatJSON(t *testing.T) {
	for _, v := range []float64{0, 2.5e-7, 1e21, -3} {
		got, _ := json.Marshal(Float(v))
		want, _ := json.Marshal(v)
		if string(got) != string(want) {
			t.Errorf("Float(%v) = %s, want %s", v, got, want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, _ := json.Marshal(Float(v)); string(got) != "null" {
			t.Errorf("Float(%v) = %s, want null", v, got)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte("null"), &f); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf("null read as %v, %v", f, err)
	}
}
