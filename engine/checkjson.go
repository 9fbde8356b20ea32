package engine

import (
	"encoding/json"

	"pldworkbench/engine/diag"
)

// checkReport is the JSON form of a check: what `workbench check --json`
// prints and what the server's POST /api/check answers, built by the one
// method Result.JSON so the two cannot drift.
type checkReport struct {
	// OK is true when no diagnostic is an error (warnings allowed).
	OK          bool      `json:"ok"`
	Diagnostics diag.List `json:"diagnostics"`
}

// newCheckReport builds the report of a check's result.
func newCheckReport(res *Result) checkReport {
	return checkReport{OK: !res.Diags.HasErrors(), Diagnostics: res.Diags}
}

// JSON encodes the report of the check, indented by two spaces: what
// `workbench check --json` prints and POST /api/check answers,
// {"ok", "diagnostics"}. Like every entry point it never panics: a bug
// comes back as an *InternalError.
func (r *Result) JSON() (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, recovered(p)
		}
	}()
	return json.MarshalIndent(newCheckReport(r), "", "  ")
}
