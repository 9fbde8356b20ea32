#! entry: tile_host
#! ranks: 2
"""Tile compute on the device.

Every rank works on its own slice: element-wise operations between tiles
(one of them broadcast along rows) and with scalars, a load whose valid
region is narrower than the tile, an accumulating store, casts to FP16,
BF16 and INT32 with several rounding modes, and element reads and writes by
flat index.
"""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
N = 32
VALID = 10


@pl.jit.incore
def tile_kernel(
    a: pl.Tensor[[4, N], pl.FP32],
    b: pl.Tensor[[1, N], pl.FP32],
    out: pl.Out[pl.Tensor[[9, N], pl.FP32]],
    half: pl.Out[pl.Tensor[[4, N], pl.FP16]],
    brain: pl.Out[pl.Tensor[[4, N], pl.BF16]],
    whole: pl.Out[pl.Tensor[[4, N], pl.INT32]],
):
    ta = pl.load(a, [0, 0], [4, N])
    tb = pl.load(b, [0, 0], [1, N])
    out = pl.store(pl.add(ta, tb), [0, 0], out)
    top = pl.load(a, [0, 0], [1, N])
    out = pl.store(pl.maximum(top, tb), [4, 0], out)
    second = pl.load(a, [1, 0], [1, N])
    out = pl.store(pl.minimum(second, 0.5), [5, 0], out)
    third = pl.load(a, [2, 0], [1, N])
    out = pl.store(pl.mul(pl.sub(third, tb), 3.0), [6, 0], out)
    part = pl.load(a, [3, 0], [1, N], valid_shape=[1, VALID])
    out = pl.store(part, [7, 0], out)
    out = pl.store(part, [7, 0], out, atomic=pl.AtomicType.Add)
    tail = pl.load(a, [3, N - 4], [1, 8], clamp=True)
    out = pl.store(tail, [8, 0], out)
    half = pl.store(pl.cast(ta, target_type=pl.FP16), [0, 0], half)
    brain = pl.store(pl.cast(ta, target_type=pl.BF16), [0, 0], brain)
    rounded = pl.cast(ta, target_type=pl.INT32)
    whole = pl.store(rounded, [0, 0], whole)
    even = pl.cast(ta, target_type=pl.INT32, mode="rint")
    whole = pl.store(even, [1, 0], whole, [1, N])
    down = pl.cast(ta, target_type=pl.INT32, mode="floor")
    whole = pl.store(down, [2, 0], whole, [1, N])
    doubled = pl.add(rounded, rounded)
    corner = pl.read(doubled, [3, N - 1])
    pl.write(whole, [3, 0], corner)
    flat = pl.read(whole, 2 * N + 1)
    pl.write(whole, [3, 1], flat)
    return out


@pl.jit
def tile_dev(
    a: pl.Tensor[[4, N], pl.FP32],
    b: pl.Tensor[[1, N], pl.FP32],
    out: pl.Out[pl.Tensor[[9, N], pl.FP32]],
    half: pl.Out[pl.Tensor[[4, N], pl.FP16]],
    brain: pl.Out[pl.Tensor[[4, N], pl.BF16]],
    whole: pl.Out[pl.Tensor[[4, N], pl.INT32]],
):
    return tile_kernel(a, b, out, half, brain, whole)


@pl.jit.host
def tile_host(
    a: pl.Tensor[[NR, 4, N], pl.FP32],
    b: pl.Tensor[[NR, 1, N], pl.FP32],
    out: pl.Out[pl.Tensor[[NR, 9, N], pl.FP32]],
    half: pl.Out[pl.Tensor[[NR, 4, N], pl.FP16]],
    brain: pl.Out[pl.Tensor[[NR, 4, N], pl.BF16]],
    whole: pl.Out[pl.Tensor[[NR, 4, N], pl.INT32]],
):
    for r in pl.range(pld.world_size()):
        tile_dev(a[r], b[r], out[r], half[r], brain[r], whole[r], device=r)
