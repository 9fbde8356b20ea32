# Upstream HEAD's slice subscripts in a kernel: a slice assignment stages
# the input into the window, a slice read takes its bottom half back.
#! entry: host_orch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

N = 16
W = 64
HALF = N // 2


@pl.jit.incore
def halves(
    inp: pl.Tensor[[N, W], pl.FP32],
    out: pl.Out[pl.Tensor[[HALF, W], pl.FP32]],
    win: pld.DistributedTensor[[N, W], pl.FP32],
):
    win[0:N, 0:W] = inp[0:N, 0:W]
    out[0:HALF, 0:W] = win[HALF:N, 0:W]
    return out


@pl.jit
def per_rank(
    inp: pl.Tensor[[N, W], pl.FP32],
    out: pl.Out[pl.Tensor[[HALF, W], pl.FP32]],
    win: pld.DistributedTensor[[N, W], pl.FP32],
):
    return halves(inp, out, win)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[2, N, W], pl.FP32],
    y: pl.Out[pl.Tensor[[2, HALF, W], pl.FP32]],
):
    buf = pld.alloc_window_buffer([N, W], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        win = pld.window(buf, [N, W], dtype=pl.FP32)
        per_rank(x[r], y[r], win, device=r)
