# At 16 ranks a 64-element row splits into 4-element chunks: 16-byte tiles
# run on the emulator but real hardware needs 32-byte tile rows, so the
# checker warns.
#! func: chunks
#! ranks: 16
import pypto.language as pl
import pypto.language.distributed as pld

N = 16
SIZE = 64
CHUNK = SIZE // N


@pl.jit.incore
def chunks(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
):
    ctx = pld.get_comm_ctx(data)
    me = pld.rank(ctx)
    mine = pl.load(x, [0, me * CHUNK], [1, CHUNK])  ### "^W0301 tile \[1, 4\] FP32 has 16-byte rows; hardware tiles need a multiple of 32 bytes$"
    data = pl.store(mine, [0, me * CHUNK], data)
    return data
---
#! func: accumulate
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def accumulate(
    part: pl.Tensor[[2, 8], pl.FP32],
    total: pl.InOut[pld.DistributedTensor[[2, 8], pl.FP32]],
):
    t = pl.load(part, [0, 0], [2, 8])
    total = pl.store(t, [0, 0], total, atomic=pl.AtomicType.Add)
    return total
