# pl.array at the host of a @pl.jit program: PyPTO's host codegen builds
# one and reads its elements, but cannot pass the array itself to a
# dispatch.
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
    pass
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Array[2, pl.INT32],
):
    pass
    return scale_add(src, dst, rank[0])


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    a = pl.array.create(2, pl.INT32)
    a[0] = 5
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], a, device=r)  ### "^E0236 host orchestrator \"launch\" passes pl.Array rank to orchestration function \"forward\": a host dispatch carries tensors and scalars, not arrays$"
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2  # the host builds an array and dispatches its elements: PyPTO compiles it
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    pass
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    a = pl.array.create(2, pl.INT32)
    a[0] = 5
    a[1] = 7
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], a[r], device=r)
