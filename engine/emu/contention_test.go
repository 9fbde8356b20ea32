package emu_test

import (
	"context"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/trace"
)

// contendSrc: rank 0 pulls 64 KiB from rank 1 with get while rank 1 pushes
// 64 KiB with put into rank (1 + 1) % n. At two ranks both transfers carry
// data from chip 1 to chip 0 over the same link; at three the push goes to
// chip 2 over a link of its own.
const contendSrc = `
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
S = 16384


@pl.jit.incore
def contend(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    a: pld.DistributedTensor[[1, S], pl.FP32],
    b: pld.DistributedTensor[[1, S], pl.FP32],
):
    ctx = pld.get_comm_ctx(a)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    if me == 0:
        pld.tensor.get(y, 1, a)
    if me == 1:
        pld.tensor.put(b, (me + 1) % n, x)
    return y


@pl.jit
def contend_dev(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    a: pld.DistributedTensor[[1, S], pl.FP32],
    b: pld.DistributedTensor[[1, S], pl.FP32],
):
    return contend(x, y, a, b)


@pl.jit.host
def contend_host(x: pl.Tensor[[NR, 1, S], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]]):
    a_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    b_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        a = pld.window(a_buf, [1, S], dtype=pl.FP32)
        b = pld.window(b_buf, [1, S], dtype=pl.FP32)
        contend_dev(x[r], y[r], a, b, device=r)
    return y
`

// transfers runs contendSrc at p ranks and returns the get's and the put's
// durations in ns.
func transfers(t *testing.T, p int) (get, put int64) {
	t.Helper()
	prog := compile(t, "contend.py", contendSrc, "contend_host", p)
	var c trace.Collector
	res := emu.Run(context.Background(), prog, emu.Options{Inputs: fill(prog, "index", 0), OnEvent: c.Sink()})
	mustOK(t, "contend", res)
	get, put = -1, -1
	for _, e := range c.Events {
		switch e.Op {
		case "pld.tensor.get":
			get = e.EndNs - e.StartNs
		case "pld.tensor.put":
			put = e.EndNs - e.StartNs
		}
	}
	if get < 0 || put < 0 {
		t.Fatalf("P=%d: no get or put event", p)
	}
	return get, put
}

// TestContention: two streams on one link share its 28 GB/s; on two links
// each moves at its own 18.6 GB/s. 64 KiB at 18.6 GB/s is 3,523 ns, plus
// 20 ns issue and 500 ns latency; two of them through 28 GB/s take 4,681
// ns for the second.
func TestContention(t *testing.T) {
	const alone, shared = 20 + 3523 + 500, 20 + 4681 + 500
	get, put := transfers(t, 3)
	for what, d := range map[string]int64{"get": get, "put": put} {
		if d < alone-2 || d > alone+2 {
			t.Errorf("P=3 %s takes %d ns, want %d: different links run in parallel", what, d, alone)
		}
	}
	get, put = transfers(t, 2)
	first, second := min(get, put), max(get, put)
	if first < alone-2 || first > alone+2 {
		t.Errorf("P=2: the first transfer takes %d ns, want %d", first, alone)
	}
	if second < shared-10 || second > shared+2 {
		t.Errorf("P=2: the second transfer takes %d ns, want about %d: one link is shared", second, shared)
	}
}
