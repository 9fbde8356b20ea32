package engine

import (
	"context"
	"fmt"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
)

// SeedOutcome is one rerun of a program under a random schedule.
type SeedOutcome struct {
	Seed     uint64     `json:"seed"`
	Schedule string     `json:"schedule"`
	Status   emu.Status `json:"status"`
	// Failed is true when the run did not end ok (race, deadlock, run-time
	// error, timeout) or its outputs differ from the fair schedule's.
	Failed bool   `json:"failed"`
	Why    string `json:"why,omitempty"`
}

// Schedules runs p once under the fair schedule and then under n random
// schedules (seeds 1..n) on the same inputs, and says which seeds fail: a
// run that does not end ok (a race report included) or whose outputs
// differ from the fair schedule's. The front end ran once, in Compile;
// each run is a piece of work with its own opts.Budget; ctx bounds them
// all. It never panics: an engine bug ends fair with runtime_error and
// fair.Internal set.
func (p *Program) Schedules(ctx context.Context, opts RunOptions, n int) (fair *RunResult, out []SeedOutcome) {
	defer func() {
		if r := recover(); r != nil {
			ie := recovered(r)
			fair, out = p.newResult(), nil
			fair.Status, fair.Error, fair.Internal = emu.StatusRuntimeError, ie.RunError(), ie
		}
	}()
	base := opts
	base.Schedule = "fair"
	fair = p.Run(ctx, base)
	if fair.Status == emu.StatusCompileError || fair.In == nil {
		return fair, nil
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		if ctx.Err() != nil {
			break
		}
		o := opts
		o.Schedule = emu.RandomSchedule(seed)
		o.Inputs = fair.In
		r := p.Run(ctx, o)
		so := SeedOutcome{Seed: seed, Schedule: o.Schedule, Status: r.Status}
		switch {
		case r.Status == emu.StatusRace && len(r.Races) > 0:
			so.Failed, so.Why = true, "race: "+r.Races[0].Message
		case r.Status != emu.StatusOK:
			so.Failed, so.Why = true, string(r.Status)
			if r.Error != nil {
				so.Why += ": " + r.Error.Message
			}
		default:
			if d := firstDifference(fair, r); d != "" {
				so.Failed, so.Why = true, d
			}
		}
		out = append(out, so)
	}
	return fair, out
}

// firstDifference names the first output element where b differs from a
// beyond the comparison tolerance, or returns "".
func firstDifference(a, b *RunResult) string {
	for _, name := range a.OutputOrder {
		x, y := a.Out[name], b.Out[name]
		if y == nil || len(x.Floats()) != len(y.Floats()) {
			return fmt.Sprintf("output %s missing or reshaped", name)
		}
		for i := range x.Floats() {
			if !floats.Close(y.Floats()[i], x.Floats()[i]) {
				return fmt.Sprintf("%s differs from the fair schedule at flat index %d: %g, fair gives %g", name, i, y.Floats()[i], x.Floats()[i])
			}
		}
	}
	return ""
}
