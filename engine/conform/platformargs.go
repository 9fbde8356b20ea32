package conform

import (
	"fmt"
	"sort"

	"pldworkbench/engine/platform"
)

// platformArg is a module helper of an upstream test that computes an
// argument of the program from the platform the test runs on. The suite
// runs the program on one of our platform profiles, so the helper is
// ported as a function of that profile: the fact it reads (a core count)
// stays in engine/platform's table, never copied here.
type platformArg struct {
	pypto string // the PyPTO platform the case is read for (the test's mark)
	value func(p platform.Platform) int
	what  string // what the helper computes, for the case's note
}

// platformArgs is keyed by the helper's name.
var platformArgs = map[string]platformArg{
	// test_l3_deferred_completion.py: one waiter per AIV core saturates
	// the chip (48 on the a2a3 card; 16 on the simulator, whose block count
	// is a simulator setting, not a property of the chip the emulator
	// models).
	"_a2a3_saturation_waiters": {pypto: "a2a3", value: func(p platform.Platform) int { return p.AIVCores },
		what: "the AIV core count"},
}

// resolvePlatformArg computes the local bound to call text `fn(...)` when
// fn is a helper of platformArgs; note says how.
func resolvePlatformArg(fn, local string) (val int, note string, ok bool) {
	a, ok := platformArgs[fn]
	if !ok {
		return 0, "", false
	}
	p, ok := platform.ByPyPTO(a.pypto)
	if !ok {
		return 0, "", false
	}
	v := a.value(p)
	return v, fmt.Sprintf("%s = %d: %s returns %s of %s (%s profile)", local, v, fn, a.what, a.pypto, p.Name), true
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
