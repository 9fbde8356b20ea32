# A pl.Array parameter of a @pl.jit host orchestrator: PyPTO compiles it
# (its specializer renders the annotation and takes any value for it; the
# verdict test hands it a list of its extent), and the host reads its
# elements, here the device of each dispatch. The emulator cannot pass a
# host an array (its inputs are tensors and scalars), so a run of it stops
# with E0510 saying so.
#! entry: host
#! ranks: 2
#! pypto: compiles
import pypto.language as pl
import pypto.language.distributed as pld

W = 16


@pl.jit.incore
def k(x: pl.Tensor[[1, W], pl.FP32], y: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    t = pl.load(x, [0, 0], [1, W])
    return pl.store(t, [0, 0], y)


@pl.jit
def chip(x: pl.Tensor[[1, W], pl.FP32], y: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return k(x, y)


@pl.jit.host
def host(
    x: pl.Tensor[[2, 1, W], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 1, W], pl.FP32]],
    order: pl.Array[2, pl.INT32],
):
    for r in pl.range(pld.world_size()):
        d = order[r]
        chip(x[r], y[r], device=d)
