# break and continue beside loop-carried values, where PyPTO compiles them:
# a break in a plain loop nested in a carried one, and a continue in a
# carried loop (a break whose own loop carries values is E0418,
# errors/loops.py). The first loop adds 1 to the chunks at columns 0 and
# 16 (the break stops it at 32), twice; the second adds 100 to every chunk
# but the one at 16: y = x + 100 at columns 0-15 and 32-63, x + 1 at 16-31.
#! entry: launch
#! ranks: 2
#! pypto: compiles
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
CHUNK = 16


@pl.jit.incore
def kern(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    for i, (acc,) in pl.range(0, 2, init_values=(y,)):
        for col in pl.range(0, SIZE, CHUNK):
            if col > 16:
                break
            t = pl.load(x, [0, col], [1, CHUNK])
            t = pl.add(t, 1.0)
            acc = pl.store(t, [0, col], acc)
        first = pl.yield_(acc)
    for col, (acc2,) in pl.range(0, SIZE, CHUNK, init_values=(first,)):
        if col == 16:
            continue
        t = pl.load(x, [0, col], [1, CHUNK])
        t = pl.add(t, 100.0)
        acc2 = pl.store(t, [0, col], acc2)
        done = pl.yield_(acc2)
    return done


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return kern(x, y)


@pl.jit.host
def launch(
    x: pl.Tensor[[2, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], device=r)
