# pl and pld data operations: kinds, dtypes, shapes, bounds, put/get rules.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

WIDTH = 32


@pl.jit.incore
def kernel(
    inp: pl.Tensor[[1, WIDTH], pl.FP32],
    out: pl.Out[pl.Tensor[[1, WIDTH], pl.FP32]],
    half: pl.Tensor[[1, WIDTH], pl.FP16],
    win: pld.DistributedTensor[[1, WIDTH], pl.FP32],
    counts: pl.Out[pl.Tensor[[4, 1], pl.INT32]],
):
    out = pl.store(inp, [0, 0], out)  ### "^E0205 pl.store tile is pl.Tensor \[1, 32\] FP32, want a tile$"
    h = pl.load(half, [0, 0], [1, WIDTH])
    back = pl.store(h, [0, 0], inp)  ### "^E0209 pl.store writes a FP16 tile into output_tensor of FP32$"
    t = pl.load(inp, [0, 16], [1, WIDTH])  ### "^E0211 pl.load reads region \[0:1, 16:48\] of tensor \[1, 32\], which is outside it$"
    t = pl.load(inp, [0, 16], [1, WIDTH], clamp=True)
    ctx = pld.get_comm_ctx(win)
    me = pld.rank(ctx)
    pld.tile.remote_store(h, win, 1, [0, 0])  ### "^E0209 pld.tile.remote_store tile dtype is FP16, but target holds FP32$"
    pl.write(counts, [0, 0], me + 1)  ### "^E0209 pl.write value is INDEX scalar, want INT32 \(the dtype of dst\)$"
    pl.write(counts, [me, 0], me)
    u = pl.load(inp, [0, 0], [1, me])  ### "^E0212 pl.load shapes dimension 1 is INT32 scalar; extents must be compile-time ints$"
    v = pl.load(inp, [0, 0], [1, 0])  ### "^E0210 pl.load shapes dimension 1 is 0, want > 0$"
    w = pl.add(t, h)
    w = pl.add(t, pl.load(inp, [0, 0], [1, 16]))  ### "^E0210 pl.add tiles \[1, 32\] and \[1, 16\] do not broadcast$"
    return out
---
import pypto.language as pl
import pypto.language.distributed as pld

WIDTH = 32


@pl.jit.incore
def kernel(
    inp: pl.Tensor[[1, WIDTH], pl.FP32],
    src: pld.DistributedTensor[[1, WIDTH], pl.FP32],
    dst: pld.DistributedTensor[[1, WIDTH], pl.FP32],
    small: pld.DistributedTensor[[1, 16], pl.FP32],
    ints: pld.DistributedTensor[[1, WIDTH], pl.INT32],
):
    pld.tensor.put(dst, 1, src, [0, 0], shape=[1, 8])  ### "^E0216 pld.tensor.put got dst_offsets and shape but not src_offsets$"
    pld.tensor.put(dst, 1, src, pipeline=True)  ### "^E0217 pld.tensor.put pipeline=True requires both chunk_rows > 0 and chunk_cols > 0, got 0 and 0$"
    pld.tensor.put(dst, 1, src, chunk_rows=-1)  ### "^E0217 pld.tensor.put chunk_rows is -1, want >= 0$"
    pld.tensor.put(dst, 1, small)  ### "^E0210 pld.tensor.put without a region copies the whole tensor, but dst \[1, 32\] and src \[1, 16\] differ$"
    pld.tensor.put(dst, 1, ints)  ### "^E0209 pld.tensor.put copies INT32 src into FP32 dst$"
    pld.tensor.get(inp, 1, dst)
    pld.tensor.get(src, 1, inp)  ### "^E0206 pld.tensor.get src is pl.Tensor \[1, 32\] FP32, want a pld.DistributedTensor$"
    pld.tensor.put(dst, 1, src, [0, 24], [0, 0], [1, 16])  ### "^E0211 pld.tensor.put writes region \[0:1, 24:40\] of dst \[1, 32\], which is outside it$"
    pld.tensor.put(dst, 1, src, [0, 0], [0, 0], [1, 16], atomic=pld.AtomicType.Add)
    pld.tensor.put(dst, 1, src, atomic=pld.ReduceOp.Sum)  ### "^E0207 atomic=pld.ReduceOp.Sum is not a pld.AtomicType: want None_ or Add$"
    return dst
---
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
    scale: pl.Scalar[pl.INT32],
    gain: pl.Scalar[pl.FP32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    f = pl.cast(scale, target_type=pl.FP32)
    g = pl.cast(me + 1, target_type=pl.FP32)  ### "^E0215 pl.cast from INDEX to FP32: casts between float and INDEX are not supported$"
    k = pl.cast(scale, pl.INT64, mode="floor")  ### "^E0215 pl.cast of a scalar takes only the default mode, got mode='floor'$"
    h = f + 1.0  ### "^E0214 \+ of FP32 values in InCore kernel \"kernel\"$"
    m = me + gain  ### "^E0213 operator \+ mixes INT32 and FP32$"
    q = me / 2  ### "^E0229 / on INDEX scalars$"
    if 0 < me < 3:  ### "^E0410 chained comparison < ... <$"
        pass
    if me:  ### "^E0413 if condition is INT32 scalar, want a comparison$"
        pass
    t = pl.load(out, [0, 0], [1, 8])
    t = pl.add(t, f)
    t = pl.mul(t, 2)
    t2 = t + t  ### "^E0205 operator \+ on a tile \[1, 8\] FP32 is not supported$"
    s = pl.add(me, 1)
    n = pl.cast(out, pl.INT32)  ### "^E0114 pl.cast on a whole tensor is not supported by the workbench$"
    out = pl.store(t, [0, 0], out)
    return out
