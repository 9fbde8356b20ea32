#! entry: double_everywhere
#! ranks: 2

"""The host dispatches the per-device wrapper with device=r, never the kernel.

device= belongs on calls to an orchestration function; the InCore kernel
below is called straight from the host loop.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def double(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    t = pl.load(x, [0, 0], [1, SIZE])
    y = pl.store(pl.add(t, t), [0, 0], y)
    return y


@pl.jit.host
def double_everywhere(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        double(x[r], y[r], device=r)  ### "dispatches InCore kernel \"double\" directly"
