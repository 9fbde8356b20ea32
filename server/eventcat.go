package server

import (
	"bytes"
	"encoding/json"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// withCategories gives every stored event line that has no "cat" (a run
// stored before trace events carried their category) the category of its
// op from the IR's operation table, so a replay, the events download and
// the Perfetto export of an old run colour its slices as a new run's. A
// line that has one is returned as it is; one that does not decode is too
// (its reader reports it).
func withCategories(lines [][]byte) [][]byte {
	for i, l := range lines {
		if bytes.Contains(l, catKey) {
			continue
		}
		var e trace.Event
		if json.Unmarshal(l, &e) != nil || e.Cat != "" {
			continue
		}
		e.Cat = string(ir.CategoryOf(e.Op))
		if b, err := json.Marshal(e); err == nil {
			lines[i] = b
		}
	}
	return lines
}

var catKey = []byte(`"cat":`)
