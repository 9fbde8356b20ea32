package emu

import "sort"

// Cost model v1. Each rank has a simulated clock in picoseconds (integers,
// so the timeline is exact and identical on every machine); events report
// nanoseconds. A statement costs one scalar cycle; a local tile operation
// adds an issue overhead plus its bytes over the local bandwidth; a remote
// operation a link latency plus its bytes over one peer link's bandwidth. A
// notify arrives one link latency after it is issued (or one issue overhead
// for a local cell), and a wait it releases ends no earlier than that.
// There is no contention yet: links and memory are never busy.
//
// Sources are ../shared/reference/perf-anchors.md (§0 key numbers, §3
// Ascend facts) with their confidence tags. Where the reference has no
// number, the constant is marked as an assumption to calibrate.

// profile is one platform's constants.
type profile struct {
	name string
	// scalarPs is one scalar statement: one cycle of the AI core.
	scalarPs int64
	// callPs is a call of another DSL function.
	callPs int64
	// issuePs is the fixed cost of issuing a tile operation, a DMA or a
	// signal access.
	issuePs int64
	// hbmPsPerByte prices moves between global memory and the tile
	// buffer (pl.load, pl.store, RMA with peer == me).
	hbmPsPerByte float64
	// vecPsPerByte prices element-wise vector compute, per result byte.
	vecPsPerByte float64
	// linkPsPerByte prices one peer link (remote_load, remote_store, put,
	// get).
	linkPsPerByte float64
	// linkLatPs is the one-way latency of a remote access or notify.
	linkLatPs int64
	// dispatchPs is the host's cost to start a dispatch loop's ranks.
	dispatchPs int64
}

// psPerByte converts a bandwidth in GB/s (= bytes per ns) to ps per byte.
func psPerByte(gbps float64) float64 { return 1000 / gbps }

// profiles are the cost-model platforms.
var profiles = map[string]*profile{
	"910B": {
		name: "910B",
		// 1 cycle at 1.85 GHz: cube_freq=1850 in CANN's Ascend910B1.ini
		// [official config, perf-anchors §3.1]; one scalar statement per
		// cycle is an assumption.
		scalarPs: 540,
		callPs:   540,
		// No source gives an issue overhead; 20 ns is an assumption to
		// calibrate against real traces.
		issuePs: 20_000,
		// HBM about 1.6 TB/s on 64 GB parts [community, perf-anchors §3.1].
		hbmPsPerByte: psPerByte(1600),
		// Element-wise ops measured at about 640 GB/s on 910B
		// (torch.exp, Sigmoid) [measured, perf-anchors §3.1].
		vecPsPerByte: psPerByte(640),
		// 18.6 GB/s per peer link, measured 8-card AllGather busbw
		// (limulidae) [measured+derived, perf-anchors §0 and §3.3].
		linkPsPerByte: psPerByte(18.6),
		// HCCS latency: no official figure; third-party models assume
		// 0.5 µs [UNVERIFIED, perf-anchors §0].
		linkLatPs: 500_000,
		// Host launch overhead is not modelled yet.
		dispatchPs: 0,
	},
	"950": {
		name: "950",
		// No clock for the 950 in the reference: 910B's, an assumption.
		scalarPs: 540,
		callPs:   540,
		issuePs:  20_000,
		// No 950 HBM figure in the reference: 910B's 1.6 TB/s, an
		// assumption.
		hbmPsPerByte: psPerByte(1600),
		vecPsPerByte: psPerByte(640),
		// "2 TB/s interconnect" (marketing) against 910B's 392 GB/s
		// aggregate [community, perf-anchors §3.1]: 910B's measured
		// 18.6 GB/s per link scaled by 2000/392 ≈ 5.1 [derived].
		linkPsPerByte: psPerByte(18.6 * 2000 / 392),
		// [UNVERIFIED] as for 910B.
		linkLatPs:  500_000,
		dispatchPs: 0,
	},
}

func profileFor(name string) (*profile, bool) {
	if name == "" {
		name = "910B"
	}
	p, ok := profiles[name]
	return p, ok
}

func profileNames() []string {
	var out []string
	for k := range profiles {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (p *profile) bytesPs(perByte float64, n int) int64 { return int64(float64(n) * perByte) }

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

// rma advances m's clock for a synchronous transfer of n bytes with peer:
// a local move when peer is m's own rank.
func (m *machine) rma(peer, n int) int64 {
	if peer == m.rank {
		m.s.stats.LocalBytes += int64(n)
		return m.localMove(n)
	}
	m.s.stats.RemoteBytes += int64(n)
	start := m.clock
	m.clock += m.s.prof.linkLatPs + m.s.prof.bytesPs(m.s.prof.linkPsPerByte, n)
	return start
}
