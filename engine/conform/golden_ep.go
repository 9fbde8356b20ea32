package conform

import (
	"fmt"
	"math"
	"math/rand/v2"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
)

// The golden of upstream's test_l3_ep_dispatch_combine, ported from its
// input makers (_generate_routing_indices, _pack_weights_padded,
// _pack_idx_padded, the x_norms and weights literals) and its expected-
// value logic (_compute_golden_recv, _compute_golden_routed). The test's
// constants are its own: T = 128 tokens, TOPK = 6, D = 4096, L = 16 local
// experts, R = 192 receive slots.
const (
	epT, epTopK, epD, epL, epR = 128, 6, 4096, 16, 192
	epRoutes                   = epT * epTopK
	epPad                      = 8 // W_PAD and IDX_PAD
)

// epInputs fills indices, x_norms, w_padded and idx_padded as the test
// does. The routing indices are TOPK distinct experts per token with no
// expert over R receivers, as _generate_routing_indices makes them, drawn
// from a seeded generator of Go's (seeded with the test's 20260510):
// torch.randperm's own stream is not reproduced, so the routes differ
// from the test's while keeping its constraints.
func epInputs(_ conformCaseSpec, in []*emu.Tensor, P int) {
	if len(in) < 4 {
		return
	}
	idx := epRoutingIndices(P)
	ind := in[0].Floats()
	for i := range ind {
		if i < len(idx) {
			ind[i] = float64(idx[i])
		}
	}
	x := in[1]
	for r := 0; r < P; r++ {
		for t := 0; t < epT; t++ {
			for d := 0; d < epD; d++ {
				x.Set(float64(r*100+t*10+d), r, t, d)
			}
		}
	}
	w, ip := in[2], in[3]
	for _, z := range [][]float64{w.Floats(), ip.Floats()} {
		for i := range z {
			z[i] = 0 // torch.zeros: only column 0 carries the payload
		}
	}
	for r := 0; r < P; r++ {
		for t := 0; t < epT; t++ {
			for k := 0; k < epTopK; k++ {
				route := t*epTopK + k
				w.Set(epWeight(r, t, k), r, route, 0)
				ip.Set(float64(route), r, route, 0)
			}
		}
	}
}

// epWeight is weights[r, t, k] = (r + 1) * 0.01 + t * 0.1 + k * 0.001,
// made in Python floats and stored as FP32.
func epWeight(r, t, k int) float64 {
	return float64(float32(float64(r+1)*0.01 + float64(t)*0.1 + float64(k)*0.001))
}

// epRoutingIndices is indices[P][T][TOPK], flat.
func epRoutingIndices(P int) []int {
	seed := uint64(20260510)
	experts := P * epL
	for {
		rng := rand.New(rand.NewPCG(seed, seed))
		out := make([]int, 0, P*epT*epTopK)
		per := make([]int, experts)
		for r := 0; r < P; r++ {
			for t := 0; t < epT; t++ {
				perm := rng.Perm(experts)[:epTopK]
				for _, e := range perm {
					out = append(out, e)
					per[e]++
				}
			}
		}
		worst := 0
		for _, n := range per {
			worst = max(worst, n)
		}
		if worst <= epR {
			return out
		}
		seed++
	}
}

// epWant is _compute_golden_recv and _compute_golden_routed, in the
// host's output order: recv_x_outs, recv_w_outs, recv_idx_outs,
// recv_count_outs, recv_ys, routed_ys. The test checks the first
// count[r, e] slots of each expert (the rest are NaN: unchecked) and not
// recv_ys at all (nil).
func epWant(_ conformCaseSpec, in []*emu.Tensor, P int) ([][]float64, error) {
	if len(in) < 4 || len(in[0].Shape) != 3 || in[0].Shape[0] != P || in[1].Shape[2] != epD {
		return nil, fmt.Errorf("want indices [%d, %d, %d] and x_norms [%d, %d, %d]", P, epT, epTopK, P, epT, epD)
	}
	ind, x := in[0], in[1]
	nan := math.NaN()
	full := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = nan
		}
		return s
	}
	recvX, recvW, recvIdx := full(P*epL*epR*epD), full(P*epL*epR), full(P*epL*epR)
	count := make([]float64, P*epL)
	// send_counts[src][dst][e]
	send := make([]int, P*P*epL)
	for src := 0; src < P; src++ {
		for t := 0; t < epT; t++ {
			for k := 0; k < epTopK; k++ {
				eid := int(ind.At(src, t, k))
				send[(src*P+eid/epL)*epL+eid%epL]++
			}
		}
	}
	for dst := 0; dst < P; dst++ {
		offset := make([]int, P*epL)
		running := make([]int, epL)
		for src := 0; src < P; src++ {
			for e := 0; e < epL; e++ {
				offset[src*epL+e] = running[e]
				running[e] += send[(src*P+dst)*epL+e]
			}
		}
		for src := 0; src < P; src++ {
			cursor := make([]int, epL)
			for t := 0; t < epT; t++ {
				for k := 0; k < epTopK; k++ {
					eid := int(ind.At(src, t, k))
					if eid/epL != dst {
						continue
					}
					e := eid % epL
					slot := offset[src*epL+e] + cursor[e]
					cursor[e]++
					row := (dst*epL+e)*epR + slot
					for d := 0; d < epD; d++ {
						recvX[row*epD+d] = x.At(src, t, d)
					}
					recvW[row] = epWeight(src, t, k)
					recvIdx[row] = float64(t*epTopK + k)
				}
			}
		}
		for e := 0; e < epL; e++ {
			count[dst*epL+e] = float64(running[e])
		}
	}
	routed := make([]float64, P*epT*epD)
	for r := 0; r < P; r++ {
		for t := 0; t < epT; t++ {
			for d := 0; d < epD; d++ {
				var acc float32
				for k := 0; k < epTopK; k++ {
					weighted := float32(epWeight(r, t, k)) * float32(x.At(r, t, d))
					acc += float32(floats.RoundTo(x.DType, float64(weighted)))
				}
				routed[(r*epT+t)*epD+d] = float64(acc)
			}
		}
	}
	return [][]float64{recvX, recvW, recvIdx, count, nil, routed}, nil
}

// epTols are the test's own comparisons, output by output: torch.equal
// for recv_x, recv_idx and the counts, allclose(atol=1e-6) for recv_w, and
// rtol = atol = 2**-6 (two BF16 ULPs) for routed_y.
func epTols(conformCaseSpec) []float64 {
	return []float64{0, 1e-6, 0, 0, 0, 1.0 / 64}
}
