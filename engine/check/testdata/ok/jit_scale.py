# The jit form: a kernel scales its slice and adds its rank, a wrapper
# forwards, the host dispatches one call per rank.
#! entry: launch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    bias = pl.cast(rank, target_type=pl.FP32)
    tile = pl.mul(tile, 2.0)
    tile = pl.add(tile, bias)
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
