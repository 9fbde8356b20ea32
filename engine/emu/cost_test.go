package emu

import (
	"testing"
)

// The cost model's arithmetic, checked on the network directly: one
// transfer, two on one link, two on different links, many into one chip.

func testSim(t *testing.T, platform string, p int) *sim {
	t.Helper()
	prof, ok := profileFor(platform)
	if !ok {
		t.Fatalf("no profile %q", platform)
	}
	return &sim{P: p, prof: prof}
}

// wantPs is the ideal duration in ps of moving n bytes at gbps after an
// issue overhead of issueNs and before a latency of latNs.
func wantPs(issueNs, latNs float64, n int, gbps float64) int64 {
	return int64(issueNs*1000) + int64(float64(n)*1000/gbps) + int64(latNs*1000)
}

func within(got, want int64) bool { return got >= want-2 && got <= want+2 }

func TestTransferAlone(t *testing.T) {
	s := testSim(t, "910B", 2)
	const n = 1 << 20
	start := int64(7_000)
	got := s.transfer(1, 0, n, start) - start
	// 20 ns issue + 1 MiB at 18.6 GB/s (56,375 ns) + 500 ns latency.
	if want := wantPs(20, 500, n, 18.6); !within(got, want) {
		t.Errorf("one 1 MiB transfer takes %d ps, want %d", got, want)
	}
	// A zero-byte transfer is issue plus latency.
	if got, want := s.transfer(0, 1, 0, 0), int64(520_000); got != want {
		t.Errorf("empty transfer ends at %d ps, want %d", got, want)
	}
}

func TestTransferSameLinkShares(t *testing.T) {
	s := testSim(t, "910B", 2)
	const n = 1 << 20
	first := s.transfer(1, 0, n, 0)
	second := s.transfer(1, 0, n, 0)
	// The first is limited by its stream (18.6 < 28 GB/s); the second
	// waits for the link's first n/28 and takes another n/28.
	if want := wantPs(20, 500, n, 18.6); !within(first, want) {
		t.Errorf("first transfer ends at %d ps, want %d", first, want)
	}
	if want := wantPs(20, 500, 2*n, 28); !within(second, want) {
		t.Errorf("second transfer ends at %d ps, want %d (two streams share 28 GB/s)", second, want)
	}
	// Together they moved 2n at the link's capacity, not at twice a stream.
	rate := float64(2*n) / float64(second-20_000-500_000) * 1000
	if rate < 27.9 || rate > 28.1 {
		t.Errorf("two streams on one link move %.2f GB/s, want 28", rate)
	}
	// The opposite direction is another link: a third transfer 0 -> 1 at
	// the same time does not wait.
	if got, want := s.transfer(0, 1, n, 0), wantPs(20, 500, n, 18.6); !within(got, want) {
		t.Errorf("reverse transfer ends at %d ps, want %d", got, want)
	}
}

func TestTransferDifferentLinksParallel(t *testing.T) {
	s := testSim(t, "910B", 3)
	const n = 1 << 20
	a := s.transfer(1, 0, n, 0)
	b := s.transfer(2, 0, n, 0)
	c := s.transfer(1, 2, n, 0)
	want := wantPs(20, 500, n, 18.6)
	for i, got := range []int64{a, b, c} {
		if !within(got, want) {
			t.Errorf("transfer %d ends at %d ps, want %d: distinct links must not slow each other", i, got, want)
		}
	}
}

// TestTransferChipAggregate: 15 peers pushing into one 910B chip at once
// need 15 links' worth of ingress, more than its 196 GB/s: the last one
// ends when the aggregate has carried all 15n.
func TestTransferChipAggregate(t *testing.T) {
	s := testSim(t, "910B", 16)
	const n = 1 << 20
	var last int64
	for src := 1; src < 16; src++ {
		last = max(last, s.transfer(src, 0, n, 0))
	}
	// Each booking truncates to whole ps: allow one ps per booking.
	if want := wantPs(20, 500, 15*n, 196); last < want-15 || last > want+2 {
		t.Errorf("15 pushes into chip 0 end at %d ps, want %d (196 GB/s ingress)", last, want)
	}
	// Seven peers (an 8-card server) fit the aggregate exactly: nobody waits.
	s = testSim(t, "910B", 8)
	for src := 1; src < 8; src++ {
		if got, want := s.transfer(src, 0, n, 0), wantPs(20, 500, n, 18.6); !within(got, want) {
			t.Errorf("push %d of 7 ends at %d ps, want %d", src, got, want)
		}
	}
}

// TestTransferLaterStartNoWait: a transfer that starts after the earlier
// bookings are served does not wait for them.
func TestTransferLaterStartNoWait(t *testing.T) {
	s := testSim(t, "910B", 2)
	const n = 1 << 20
	s.transfer(1, 0, n, 0)
	start := int64(n * 1000 / 28)
	if got, want := s.transfer(1, 0, n, start)-start, wantPs(20, 500, n, 18.6); !within(got, want) {
		t.Errorf("a transfer after the link drained takes %d ps, want %d", got, want)
	}
}
