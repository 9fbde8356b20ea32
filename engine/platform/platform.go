// Package platform is the one table of the hardware the workbench models:
// the Ascend 910B and 950, each with its AIV core count, its cost-model
// constants (clock, issue overhead, HBM and vector rates, link, chip and
// stream bandwidths, latency) and the names PyPTO gives it. The checker
// reads the core counts, the emulator the cost constants, the command line
// and the server the names and the default, the lessons' cost table is
// generated from it, and the page gets it from GET /api/platforms. A new
// platform is one row here.
//
// Every number cites ../shared/reference/perf-anchors.md by section, with
// the reference's confidence tag and its own source; no number was chosen
// to make an expected result come out. The package imports nothing, so
// every layer may use it.
package platform

import "strings"

// Platform is one modelled target. The cost fields are in the units the
// sources use; the emulator converts them to picoseconds per operation and
// per byte.
type Platform struct {
	// Name is what --platform and the API's "platform" take, e.g. "910B".
	Name string `json:"name"`
	// PyPTO are the names PyPTO's --platform gives the target: the cards
	// first, then the simulator (the one an export defaults to).
	PyPTO []string `json:"pypto"`
	// AIVCores bounds the core_num of a HOST collective (pld-spec §4.8.5).
	AIVCores int `json:"aiv_cores"`
	// ClockGHz is the AI-core clock; a scalar statement or a call of
	// another DSL function costs one cycle.
	ClockGHz float64 `json:"clock_ghz"`
	// IssueNs is the fixed cost of issuing a tile operation, a DMA or a
	// signal access.
	IssueNs float64 `json:"issue_ns"`
	// HBMGBs prices local moves between global memory and tiles (pl.load,
	// pl.store, RMA with peer == me).
	HBMGBs float64 `json:"hbm_gbs"`
	// VectorGBs prices element-wise vector compute, per result byte.
	VectorGBs float64 `json:"vector_gbs"`
	// StreamGBs is what one stream moves over a peer link when nothing
	// else uses the link: B_link in the sweep's link_eff.
	StreamGBs float64 `json:"stream_gbs"`
	// LinkGBs is the capacity of one HCCS link in one direction, shared by
	// every stream that uses it.
	LinkGBs float64 `json:"link_gbs"`
	// ChipGBs is one chip's aggregate HCCS bandwidth in one direction,
	// shared by all its links (egress and ingress are separate).
	ChipGBs float64 `json:"chip_gbs"`
	// LatencyNs is the one-way latency of a remote transfer or a notify.
	LatencyNs float64 `json:"latency_ns"`
	// DispatchNs is the host's cost to start the ranks of a dispatch.
	DispatchNs float64 `json:"dispatch_ns"`
}

// Simulator is the PyPTO simulator of the platform (an export runs where
// PyPTO is installed, and the simulators need no cards).
func (p Platform) Simulator() string { return p.PyPTO[len(p.PyPTO)-1] }

// table holds the platforms, the default first.
var table = []Platform{
	{
		Name:  "910B",
		PyPTO: []string{"a2a3", "a2a3sim"},
		// 48 AIV cores per chip: the core_num bound of a HOST collective
		// on 910B (pld-spec §4.8.5).
		AIVCores: 48,
		// cube_freq=1850 (MHz) in CANN's Ascend910B1.ini [official config,
		// perf-anchors §3.1]; one scalar statement per cycle is an
		// assumption.
		ClockGHz: 1.85,
		// No source gives a per-instruction issue overhead [UNVERIFIED]:
		// 20 ns is an assumption kept from cost model v1, not fitted.
		IssueNs: 20,
		// HBM about 1.6 TB/s on 64 GB parts [community, perf-anchors §3.1,
		// several third-party tables].
		HBMGBs: 1600,
		// Element-wise ops measured at about 640 GB/s on 910B (torch.exp,
		// Sigmoid) [measured, perf-anchors §3.1, gameofdimension/limulidae].
		VectorGBs: 640,
		// 18.6 GB/s per peer link: 8-card AllGather busbw 130.4 GB/s over 7
		// links, torch_npu/HCCL [measured+derived, perf-anchors §0 and
		// §3.3, gameofdimension/limulidae README]. Used as one stream's
		// rate on a link; the issue asks a single stream to land there.
		StreamGBs: 18.6,
		// 56 GB/s per NPU pair, "described as bidirectional" [community,
		// perf-anchors §3.1, ArthurChiao GPU notes]: 28 GB/s per direction
		// (§3.3 and §8 read it so; the direction convention is open).
		LinkGBs: 28,
		// 392 GB/s = 7 links × 56 aggregate per NPU [community citing the
		// Atlas 800T A2 spec EDOC1100317202, perf-anchors §0, §3.1]; 196
		// per direction, the figure a third-party simulator config uses
		// for 910B2 (§3.1).
		ChipGBs: 196,
		// HCCS latency: no official figure; third-party models assume
		// 0.5 µs [UNVERIFIED, perf-anchors §0, §3.1].
		LatencyNs: 500,
		// No source for a host launch overhead: not modelled.
		DispatchNs: 0,
	},
	{
		Name:  "950",
		PyPTO: []string{"a5", "a5sim"},
		// 36 AIV cores per chip: the core_num bound of a HOST collective
		// on 950 (pld-spec §4.8.5).
		AIVCores: 36,
		// No 950 clock, issue overhead, HBM or vector figure in the
		// reference [UNVERIFIED]: 910B's, as assumptions.
		ClockGHz:  1.85,
		IssueNs:   20,
		HBMGBs:    1600,
		VectorGBs: 640,
		// "2 TB/s interconnect" (Huawei Connect 2025 marketing) [community,
		// perf-anchors §3.1], read like 910B's 392 GB/s as an aggregate of
		// both directions: 910B's link figures scaled by 2000/392 ≈ 5.1
		// [derived], 1000 GB/s per direction per chip. The topology is
		// assumed to be a full mesh like 910B's [UNVERIFIED].
		StreamGBs: 18.6 * 2000 / 392,
		LinkGBs:   28 * 2000 / 392,
		ChipGBs:   1000,
		// [UNVERIFIED] as for 910B.
		LatencyNs:  500,
		DispatchNs: 0,
	},
}

// Default is the name of the platform used when none is given.
func Default() string { return table[0].Name }

// All returns every platform, the default first. The PyPTO slices are
// shared: do not write into them.
func All() []Platform { return append([]Platform(nil), table...) }

// DefaultPyPTO is the PyPTO platform an export targets when none is given:
// the default platform's simulator, which runs without cards.
func DefaultPyPTO() string { return table[0].Simulator() }

// Lookup returns the platform called name; "" is the default.
func Lookup(name string) (Platform, bool) {
	if name == "" {
		return table[0], true
	}
	for _, p := range table {
		if p.Name == name {
			return p, true
		}
	}
	return Platform{}, false
}

// Names returns the platforms' names, the default first.
func Names() []string {
	out := make([]string, len(table))
	for i, p := range table {
		out[i] = p.Name
	}
	return out
}

// Choices says the names as a usage line or an error hint does: "910B or
// 950", "910B|950" with sep "|".
func Choices(sep string) string { return strings.Join(Names(), sep) }

// ByPyPTO returns the platform PyPTO calls name ("a2a3sim" is the 910B).
func ByPyPTO(name string) (Platform, bool) {
	for _, p := range table {
		for _, n := range p.PyPTO {
			if n == name {
				return p, true
			}
		}
	}
	return Platform{}, false
}

// PyPTONames returns every name PyPTO's --platform takes, in table order.
func PyPTONames() []string {
	var out []string
	for _, p := range table {
		out = append(out, p.PyPTO...)
	}
	return out
}
