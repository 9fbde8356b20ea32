//go:build !unix

package emu_test

import "time"

// cpuTime is not measured here; the cpuslowdown metric is then left out.
func cpuTime() time.Duration { return 0 }
