package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/kernels"
	"pldworkbench/tutorials/check"
)

// stepCheckTimeout bounds a whole step check. Each verdict is bounded by
// check.Run's own timeout per run; this only keeps a program that times
// out at every rank count from holding a run slot for minutes. A verdict
// the deadline cuts short says so (status timeout).
const stepCheckTimeout = 90 * time.Second

// postStepCheck answers POST /api/steps/{n}/check: the step's full check
// of the posted code, at every rank count of the judging kernel, each
// under the fair and the adversarial schedule. It takes one run slot for
// the whole check, like a comparison.
func (s *Server) postStepCheck(c *fiber.Ctx) error {
	n, err := strconv.Atoi(c.Params("n"))
	st, ok := check.StepOf(n)
	if err != nil || !ok {
		return errorf(fiber.StatusNotFound, "steps are 1 to 20", "no step %q", c.Params("n"))
	}
	var req stepCheckRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := checkCode("code", req.Code); err != nil {
		return err
	}
	v, k, err := checkTarget(st, req.Variant, req.Kernel)
	if err != nil {
		return err
	}
	start := time.Now()
	var kr check.KernelResult
	if err := s.withSlot(fmt.Sprintf("step check %d", n), func() {
		ctx, cancel := context.WithTimeout(s.base, stepCheckTimeout)
		defer cancel()
		kr = stepVerdicts(ctx, s.budget(), st, v, k, []byte(req.Code))
	}); err != nil {
		return err
	}
	if errors.Is(s.base.Err(), context.Canceled) {
		return errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "check cancelled")
	}
	for i := range kr.Verdicts {
		// A run the overall deadline cut short is a timeout, not a
		// cancellation by the learner.
		if kr.Verdicts[i].Status == string(emu.StatusCanceled) {
			kr.Verdicts[i].Status = string(emu.StatusTimeout)
			kr.Verdicts[i].Reason = fmt.Sprintf("the whole check ran out of its %v", stepCheckTimeout)
			kr.OK = false
		}
	}
	out := stepCheckResponse{OK: kr.OK && kr.Err == "", Variant: string(v), Kernel: kr.Kernel, Bug: kr.Bug,
		Ranks: []int{}, Verdicts: kr.Verdicts, Error: kr.Err}
	if out.Verdicts == nil {
		out.Verdicts = []check.Verdict{}
	}
	for _, vd := range kr.Verdicts {
		if !slices.Contains(out.Ranks, vd.Ranks) {
			out.Ranks = append(out.Ranks, vd.Ranks)
		}
	}
	s.logf("step check %d %s %s ok=%v %d verdicts %dms", n, v, kr.Kernel, out.OK, len(out.Verdicts), time.Since(start).Milliseconds())
	return c.JSON(out)
}

// checkTarget resolves a step check's variant (default: solution, or
// builtin for a step without one) and the step kernel of that variant it
// stands in for (default: the variant's first; a bug variant may name
// which of several).
func checkTarget(st check.Step, variant, kernel string) (check.Variant, kernels.Kernel, error) {
	v := check.Variant(variant)
	if v == "" {
		v = check.Solution
		if len(st.Solution) == 0 {
			v = check.Builtin
		}
	}
	var have []string
	for _, x := range st.Variants() {
		have = append(have, string(x))
	}
	names := st.Kernels(v)
	if len(names) == 0 {
		return "", kernels.Kernel{}, errorf(fiber.StatusBadRequest, fmt.Sprintf("step %d has: %s", st.Number, strings.Join(have, ", ")),
			"step %d has no variant %q", st.Number, variant)
	}
	name := names[0]
	if kernel = strings.TrimSuffix(strings.TrimSpace(kernel), ".py"); kernel != "" {
		if !slices.Contains(names, kernel) {
			return "", kernels.Kernel{}, errorf(fiber.StatusBadRequest, fmt.Sprintf("step %d's %s kernels: %s", st.Number, v, strings.Join(names, ", ")),
				"kernel %q is not a %s kernel of step %d", kernel, v, st.Number)
		}
		name = kernel
	}
	k, ok := kernels.Get(name)
	if !ok {
		return "", kernels.Kernel{}, fmt.Errorf("step %d: kernel %s is not embedded", st.Number, name)
	}
	return v, k, nil
}

// stepVerdicts judges src standing in for kernel k of variant v of step
// st. A solution standing in for the step's reference kernel goes through
// check.CheckFile, exactly as `workbench step N --check FILE` does. The
// other cases use check.Run, the same per-verdict check, with the rule
// check.CheckKernel applies to that variant: a builtin must pass its own
// golden; a bug must fail, at every rank count, the way its `#! bug:`
// header documents (so an edited bug that no longer fails is reported as
// not failing as documented); a starter is run in the place of the step's
// reference kernel and must check clean and run to completion.
func stepVerdicts(ctx context.Context, b limits.Budget, st check.Step, v check.Variant, k kernels.Kernel, src []byte) check.KernelResult {
	ref, hasRef := st.Reference()
	if v == check.Solution && hasRef && ref.Name == k.Name {
		kr := check.CheckFile(ctx, b, st, k.File, src, nil)
		kr.Kernel = ref.Name
		return kr
	}
	golden := k
	if v == check.Starter {
		if !hasRef {
			return check.KernelResult{Kernel: k.Name, Variant: v, Err: fmt.Sprintf("step %d has no solution or builtin to judge a starter against", st.Number)}
		}
		golden = ref
	}
	kr := check.KernelResult{Kernel: golden.Name, Variant: v, Bug: k.Bug}
	var bug check.Bug
	if v == check.BugKind {
		var err error
		if bug, err = check.ParseBug(k.Bug); err != nil {
			kr.Err = fmt.Sprintf("%s: %v", k.File, err)
			return kr
		}
	}
	for _, p := range golden.Ranks {
		for _, e := range golden.Entries {
			kr.Verdicts = append(kr.Verdicts, check.Run(ctx, b, golden.Name, e, k.File, src, p))
		}
	}
	kr.OK = len(kr.Verdicts) > 0
	for _, vd := range kr.Verdicts {
		switch v {
		case check.BugKind:
			kr.OK = kr.OK && bug.Matches(vd)
		case check.Starter:
			kr.OK = kr.OK && (vd.Status == string(emu.StatusOK) || vd.Status == check.WrongData)
		default:
			kr.OK = kr.OK && vd.Pass
		}
	}
	return kr
}
