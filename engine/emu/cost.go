package emu

import (
	"sort"

	"pldworkbench/engine/platform"
)

// Cost model v2: what an operation costs on the simulated clock, and how
// transfers that overlap in time share the interconnect.
//
// Time is kept per stream in integer picoseconds (so the timeline is exact
// and identical on every machine); events report nanoseconds. A stream is
// one rank's kernel, or one block of a kernel launched as a grid (the
// core_num blocks of a HOST allreduce): it issues its operations one after
// another, and each takes its time in program order, because pld's put and
// get are synchronous and the compiler fences every publishing write
// (pld-spec §4.6, §5.6). A scalar statement or a call costs one AI-core
// cycle; a tile operation, DMA or signal access adds a fixed issue overhead;
// a local move adds bytes over HBM bandwidth, vector compute bytes over the
// vector bandwidth.
//
// A remote transfer of n bytes from chip src to chip dst (remote_load and
// get pull, remote_store and put push) costs
//
//	issue + max(n/stream, link(src→dst), egress(src), ingress(dst)) + latency
//
// after Hockney's α–β form, T = α + n·β (perf-anchors §2.3, §4, §7 workload
// 2). The stream term is what one AI core achieves on a peer link on its
// own. The other three are shared resources of the HCCS full mesh (one link
// per ordered pair of chips, plus each chip's aggregate per direction), each
// a first-come-first-served server of fixed capacity: a transfer books n /
// capacity of it, starting when the transfer starts or when the bookings
// before it are served, whichever is later, and cannot finish before its
// booking does. One stream alone never waits (28 GB/s of link against 18.6
// of stream); two streams on one link move 28 GB/s between them, the second
// finishing at 2n/28 where alone it would take n/18.6; transfers on
// different links run in parallel until the chip's aggregate (196 GB/s per
// direction, exactly seven 910B links) is full. Capacity is conserved over
// any busy period, which is what bandwidth tables measure; what the
// first-come rule gets wrong is only who of two overlapping transfers
// finishes first (a fluid fair share would finish both at 2n/28). The
// scheduler issues shared operations in order of simulated time under the
// fair schedule, so bookings arrive in time order; under the random and
// adversarial schedules they may not, and a transfer booked after a later
// one waits behind it: timing under those schedules is approximate.
//
// A notify costs the issue overhead and arrives one latency later (at once
// for a cell of the own rank); a wait ends one issue overhead after the
// notify that satisfied it arrived. Signals carry 4 bytes and book no
// bandwidth. Local moves and vector compute are not contended between the
// blocks of a grid, and the host starts a dispatch loop's ranks at no cost:
// the reference has no source for either.

// Profile is one platform's constants, in the units the sources use: a row
// of engine/platform, the one table of the platforms, where every number's
// source is cited. The emulator converts them to picoseconds per operation
// and per byte.
type Profile = platform.Platform

// ProfileOf returns the platform called name ("" is the default).
func ProfileOf(name string) (Profile, bool) { return platform.Lookup(name) }

// profile is a Profile in the emulator's units: picoseconds per operation
// and per byte.
type profile struct {
	name string
	// scalarPs is one scalar statement, callPs a call of a DSL function.
	scalarPs, callPs int64
	// issuePs is the fixed cost of a tile operation, DMA or signal access.
	issuePs int64
	// Per-byte prices of local moves and vector compute.
	hbmPsPerByte, vecPsPerByte float64
	// Per-byte prices of one stream on a link, of a link's capacity and of
	// a chip's aggregate capacity (per direction).
	streamPsPerByte, linkPsPerByte, chipPsPerByte float64
	// linkLatPs is the one-way latency of a remote transfer or notify.
	linkLatPs int64
	// dispatchPs is the host's cost to start a dispatch loop's ranks.
	dispatchPs int64
}

// psPerByte converts a bandwidth in GB/s (= bytes per ns) to ps per byte.
func psPerByte(gbps float64) float64 { return 1000 / gbps }

func compile(p Profile) *profile {
	cycle := int64(1000/p.ClockGHz + 0.5)
	return &profile{
		name: p.Name, scalarPs: cycle, callPs: cycle,
		issuePs:      int64(p.IssueNs * 1000),
		hbmPsPerByte: psPerByte(p.HBMGBs), vecPsPerByte: psPerByte(p.VectorGBs),
		streamPsPerByte: psPerByte(p.StreamGBs), linkPsPerByte: psPerByte(p.LinkGBs), chipPsPerByte: psPerByte(p.ChipGBs),
		linkLatPs:  int64(p.LatencyNs * 1000),
		dispatchPs: int64(p.DispatchNs * 1000),
	}
}

func profileFor(name string) (*profile, bool) {
	p, ok := ProfileOf(name)
	if !ok {
		return nil, false
	}
	return compile(p), true
}

func profileNames() []string {
	out := platform.Names()
	sort.Strings(out)
	return out
}

func (p *profile) bytesPs(perByte float64, n int) int64 { return int64(float64(n) * perByte) }

// network is the interconnect's state during a run: for every shared
// resource, the time (ps) until which the transfers booked so far keep it
// busy at full capacity.
type network struct {
	p               int
	link            []int64 // by src*p + dst
	egress, ingress []int64 // by chip
}

// fabric returns the run's network, sized on first use.
func (s *sim) fabric() *network {
	if s.net == nil {
		s.net = &network{p: s.P, link: make([]int64, s.P*s.P), egress: make([]int64, s.P), ingress: make([]int64, s.P)}
	}
	return s.net
}

// book reserves n bytes of a resource priced perByte for a transfer that
// starts at t, and returns when the resource has carried them.
func book(free *int64, t int64, n int, perByte float64) int64 {
	*free = max(*free, t) + int64(float64(n)*perByte)
	return *free
}

// transfer books a synchronous transfer of n bytes from chip src to chip
// dst by a stream that issues it at t, and returns when the data has
// landed.
func (s *sim) transfer(src, dst, n int, t int64) int64 {
	p, net := s.prof, s.fabric()
	t += p.issuePs
	done := t + p.bytesPs(p.streamPsPerByte, n)
	done = max(done, book(&net.link[src*net.p+dst], t, n, p.linkPsPerByte))
	done = max(done, book(&net.egress[src], t, n, p.chipPsPerByte))
	done = max(done, book(&net.ingress[dst], t, n, p.chipPsPerByte))
	return done + p.linkLatPs
}

// localMove advances m's clock for a local move of n bytes and returns its
// start.
func (m *machine) localMove(n int) int64 {
	start := m.clock
	m.clock += m.s.prof.issuePs + m.s.prof.bytesPs(m.s.prof.hbmPsPerByte, n)
	return start
}

// compute advances m's clock for vector compute producing n bytes.
func (m *machine) compute(n int) int64 {
	start := m.clock
	m.clock += m.s.prof.issuePs + m.s.prof.bytesPs(m.s.prof.vecPsPerByte, n)
	return start
}

// pull advances m's clock for a synchronous transfer of n bytes from
// peer's window to m's rank (remote_load, get) and returns its start: a
// local move when peer is m's own rank.
func (m *machine) pull(peer, n int) int64 { return m.rmaFrom(peer, m.rank, peer, n) }

// push is pull in the other direction: from m's rank into peer's window
// (remote_store, put).
func (m *machine) push(peer, n int) int64 { return m.rmaFrom(m.rank, peer, peer, n) }

func (m *machine) rmaFrom(src, dst, peer, n int) int64 {
	if peer == m.rank {
		m.s.stats.LocalBytes += int64(n)
		return m.localMove(n)
	}
	m.s.stats.RemoteBytes += int64(n)
	start := m.clock
	m.clock = m.s.transfer(src, dst, n, start)
	return start
}
