# HOST builtin collectives: the host reduces a window with the mesh
# allreduce on 8 cores (a lane each) and with the ring, then every rank copies
# the result out.
#! entry: host_sum
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

LEN = 256


@pl.jit.incore
def unload(
    acc: pld.DistributedTensor[[1, LEN], pl.FP32],
    y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
):
    t = pl.load(acc, [0, 0], [1, LEN])
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def forward(
    acc: pld.DistributedTensor[[1, LEN], pl.FP32],
    y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
):
    return unload(acc, y)


@pl.jit.host
def host_sum(y: pl.Out[pl.Tensor[[4, 1, LEN], pl.FP32]]):
    acc_mem = pld.alloc_window_buffer([1, LEN], dtype=pl.FP32)
    ring_mem = pld.alloc_window_buffer([7, 4], dtype=pl.INT32)
    lanes_mem = pld.alloc_window_buffer([4, 8], dtype=pl.INT32)
    acc = pld.window(acc_mem, [1, LEN], dtype=pl.FP32)
    ring = pld.window(ring_mem, [7, 4], dtype=pl.INT32)
    lanes = pld.window(lanes_mem, [4, 8], dtype=pl.INT32)
    acc = pld.tensor.allreduce(acc, lanes, core_num=8)
    acc = pld.window(acc_mem, [1, LEN], dtype=pl.FP32)
    acc = pld.tensor.allreduce(acc, ring, mode="ring")
    acc = pld.window(acc_mem, [1, LEN], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        forward(acc, y[r], device=r)
---
#! entry: host_mix
#! ranks: 4
# Every HOST builtin but the barrier once (a barrier needs its signal to reach
# a dispatch; see host_data.py in engine/lower), each operand its own window and each call its own
# signal.
import pypto.language as pl
import pypto.language.distributed as pld

LEN = 64
ROOT = 2


@pl.jit.incore
def read_row(
    rows: pld.DistributedTensor[[4, LEN], pl.FP32],
    y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
    which: pl.Scalar[pl.INDEX],
):
    t = pl.load(rows, [which, 0], [1, LEN])
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def forward(
    rows: pld.DistributedTensor[[4, LEN], pl.FP32],
    y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
    which: pl.Scalar[pl.INDEX],
):
    return read_row(rows, y, which)


@pl.jit.host
def host_mix(y: pl.Out[pl.Tensor[[4, 1, LEN], pl.FP32]]):
    one_mem = pld.alloc_window_buffer([1, LEN], dtype=pl.FP32)
    rows_mem = pld.alloc_window_buffer([4, LEN], dtype=pl.FP32)
    mail_mem = pld.alloc_window_buffer([4, LEN], dtype=pl.FP32)
    s2_mem = pld.alloc_window_buffer([4], dtype=pl.INT32)
    s3_mem = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    s4_mem = pld.alloc_window_buffer([4], dtype=pl.INT32)
    s5_mem = pld.alloc_window_buffer([4], dtype=pl.INT32)
    one = pld.window(one_mem, [1, LEN], dtype=pl.FP32)
    rows = pld.window(rows_mem, [4, LEN], dtype=pl.FP32)
    mail = pld.window(mail_mem, [4, LEN], dtype=pl.FP32)
    s2 = pld.window(s2_mem, [4], dtype=pl.INT32)
    s3 = pld.window(s3_mem, [4, 1], dtype=pl.INT32)
    s4 = pld.window(s4_mem, [4], dtype=pl.INT32)
    s5 = pld.window(s5_mem, [4], dtype=pl.INT32)
    one = pld.tensor.broadcast(one, s2, root=ROOT)
    one = pld.window(one_mem, [1, LEN], dtype=pl.FP32)
    rows = pld.tensor.allgather(one, rows, s3)
    rows = pld.window(rows_mem, [4, LEN], dtype=pl.FP32)
    rows = pld.tensor.reduce_scatter(rows, s4)
    rows = pld.window(rows_mem, [4, LEN], dtype=pl.FP32)
    mail = pld.tensor.all_to_all(rows, mail, s5)
    for r in pl.range(pld.world_size()):
        forward(mail, y[r], r, device=r)
