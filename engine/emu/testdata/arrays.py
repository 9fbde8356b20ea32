#! entry: array_host
#! ranks: 2
"""On-core arrays and the row-sum, reshape and create tile ops.

An array write makes a new array value (PyPTO's update_element is
functional), so a name bound before the write keeps the old value; an
INT8 array wraps what it is given; a row sum adds only the valid columns;
a reshape keeps the elements in row-major order; a created tile is zero.
bad_index reads past the end of an array.
"""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
N = 8
VALID = 3


@pl.jit.incore
def array_kernel(
    a: pl.Tensor[[N, N], pl.FP32],
    ints: pl.Out[pl.Tensor[[1, N], pl.INT32]],
    sums: pl.Out[pl.Tensor[[2, N], pl.FP32]],
    flat: pl.Out[pl.Tensor[[1, 16], pl.FP32]],
    zero: pl.Out[pl.Tensor[[1, N], pl.FP32]],
    bad_index: pl.Scalar[pl.INDEX],
):
    small = pl.array.create(4, pl.INT8)
    before = small
    small[0] = 300
    small[1] = small[0] + 1
    pl.write(ints, [0, 0], pl.cast(before[0], pl.INT32))
    pl.write(ints, [0, 1], pl.cast(small[0], pl.INT32))
    pl.write(ints, [0, 2], pl.cast(pl.array.get_element(small, 1), pl.INT32))
    counts = pl.array.create(N, pl.INT32)
    for i in pl.range(N):
        counts[i] = i * i
    for i in pl.range(3, N):
        pl.write(ints, [0, i], counts[i - 1])
    pl.write(ints, [0, 3], counts[bad_index])
    rows = pl.load(a, [0, 0], [N, N])
    scratch = pl.tile.create([N, N], dtype=pl.FP32)
    whole = pl.tile.reshape(pl.tile.row_sum(rows, scratch), [1, N])
    sums = pl.store(whole, [0, 0], sums)
    part = pl.load(a, [0, 0], [N, N], valid_shape=[N, VALID])
    some = pl.tile.reshape(pl.tile.row_sum(part, scratch), [1, N])
    sums = pl.store(some, [1, 0], sums)
    two = pl.load(a, [2, 0], [2, N])
    flat = pl.store(pl.tile.reshape(two, [1, 16]), [0, 0], flat)
    fresh = pl.tile.create([1, N], dtype=pl.FP32)
    zero = pl.store(fresh, [0, 0], zero)
    return ints


@pl.jit
def array_dev(
    a: pl.Tensor[[N, N], pl.FP32],
    ints: pl.Out[pl.Tensor[[1, N], pl.INT32]],
    sums: pl.Out[pl.Tensor[[2, N], pl.FP32]],
    flat: pl.Out[pl.Tensor[[1, 16], pl.FP32]],
    zero: pl.Out[pl.Tensor[[1, N], pl.FP32]],
    bad_index: pl.Scalar[pl.INDEX],
):
    return array_kernel(a, ints, sums, flat, zero, bad_index)


@pl.jit.host
def array_host(
    a: pl.Tensor[[NR, N, N], pl.FP32],
    ints: pl.Out[pl.Tensor[[NR, 1, N], pl.INT32]],
    sums: pl.Out[pl.Tensor[[NR, 2, N], pl.FP32]],
    flat: pl.Out[pl.Tensor[[NR, 1, 16], pl.FP32]],
    zero: pl.Out[pl.Tensor[[NR, 1, N], pl.FP32]],
    bad_index: pl.Scalar[pl.INDEX],
):
    for r in pl.range(pld.world_size()):
        array_dev(a[r], ints[r], sums[r], flat[r], zero[r], bad_index, device=r)
