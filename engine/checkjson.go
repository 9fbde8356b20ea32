package engine

import (
	"encoding/json"

	"pldworkbench/engine/diag"
)

// CheckReport is the JSON form of a Check: what `workbench check --json`
// prints and what the server's POST /api/check answers, built by the one
// function CheckJSON so the two cannot drift.
type CheckReport struct {
	// OK is true when no diagnostic is an error (warnings allowed).
	OK          bool      `json:"ok"`
	Diagnostics diag.List `json:"diagnostics"`
}

// NewCheckReport builds the report of a check's result.
func NewCheckReport(res *Result) CheckReport {
	return CheckReport{OK: !res.Diags.HasErrors(), Diagnostics: res.Diags}
}

// CheckJSON encodes the report of res, indented by two spaces. Like every
// entry point it never panics: a bug comes back as an *InternalError.
func CheckJSON(res *Result) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, recovered(p)
		}
	}()
	return json.MarshalIndent(NewCheckReport(res), "", "  ")
}
