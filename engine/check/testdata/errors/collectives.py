# Collectives: the signal-shape contract, and the rules of the InCore and
# HOST forms.
#! entry: build(4).driver
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

WIDTH = 64


def build(nr: int):
    @pl.program
    class RingSum:
        @pl.function(type=pl.FunctionType.InCore)
        def step(
            self,
            data: pl.InOut[pld.DistributedTensor[[1, WIDTH], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pld.DistributedTensor[[1, WIDTH], pl.FP32]:
            bad1 = pld.tensor.allreduce(data, sig, op=pld.ReduceOp.Sum, mode="ring")  ### "^E0253 signal shape \[4, 1\] does not fit mode=\"ring\": want \[6, 4\]$"
            return data

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(
            self,
            data: pl.InOut[pld.DistributedTensor[[1, WIDTH], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pld.DistributedTensor[[1, WIDTH], pl.FP32]:
            return self.step(data, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def driver(self):
            data_buf = pld.alloc_window_buffer([1, WIDTH], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(nr):
                data = pld.window(data_buf, [1, WIDTH], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                self.chip(data, sig, device=r)

    return RingSum
---
#! func: kernel
import pypto.language as pl
import pypto.language.distributed as pld

ROOT = 0


@pl.jit.incore
def kernel(
    data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]],
    ints: pl.InOut[pld.DistributedTensor[[1, 64], pl.INT32]],
    rows: pl.InOut[pld.DistributedTensor[[4, 64], pl.FP32]],
    src: pl.Tensor[[1, 64], pl.FP32],
    block: pl.Tensor[[4, 64], pl.FP32],
    mesh: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]],
    ring: pl.InOut[pld.DistributedTensor[[6, 4], pl.INT32]],
    fsig: pl.InOut[pld.DistributedTensor[[4, 1], pl.FP32]],
    who: pl.Scalar[pl.INT32],
):
    data = pld.tensor.allreduce(data, ring, mode="ring")
    data = pld.tensor.allreduce(data, mesh)
    bad2 = pld.tensor.allreduce(data, ring)  ### "^E0253 signal shape \[6, 4\] does not fit mode=\"mesh\": want \[>=4, 1\]$"
    bad3 = pld.tensor.allreduce(data)  ### "^E0250 pld.tensor.allreduce in InCore kernel \"kernel\" needs an explicit signal$"
    bad4 = pld.tensor.allreduce(data, None)  ### "^E0250"
    bad5 = pld.tensor.allreduce(data, fsig)  ### "^E0251 pld.tensor.allreduce signal is FP32, want INT32$"
    bad6 = pld.tensor.allreduce(data, mesh, mode="tree")  ### "^E0252 mode=\"tree\" is not a collective mode: want \"mesh\" or \"ring\"$"
    bad7 = pld.tensor.allreduce(ints, mesh)  ### "^E0254 pld.tensor.allreduce target is INT32, want FP32 or FP16$"
    bad8 = pld.tensor.allreduce(data, mesh, core_num=2)  ### "^E0259 core_num=2 in InCore kernel \"kernel\"; InCore collectives run on one core$"
    bad9 = pld.tensor.allreduce(data, mesh, core_num=0)  ### "^E0259 core_num=0, want a positive int$"
    bad10 = pld.tensor.reduce_scatter(rows, mesh, op=pld.ReduceOp.Max)  ### "^E0255 pld.tensor.reduce_scatter supports op=Sum only, got Max$"
    rows = pld.tensor.reduce_scatter(rows, mesh)
    data = pld.tensor.broadcast(data, mesh, root=ROOT)
    bad11 = pld.tensor.broadcast(data, mesh, root=who)  ### "^E0212 root=who is a run-time INT32 scalar; it must be a compile-time Python int$"
    bad12 = pld.tensor.broadcast(data, mesh, root=4)  ### "^E0256 root=4 is not a rank of this 4-rank program \(0..3\)$"
    bad13 = pld.tensor.broadcast(data, mesh)  ### "^E0204 pld.tensor.broadcast needs root=$"
    rows = pld.tensor.allgather(src, rows, mesh)
    bad14 = pld.tensor.allgather(data, rows, mesh)  ### "^E0257 InCore pld.tensor.allgather reads local_data from a plain pl.Tensor, got pld.DistributedTensor \[1, 64\] FP32$"
    bad15 = pld.tensor.allgather(block, rows, mesh)  ### "^E0261 pld.tensor.allgather local_data \[4, 64\] must be \[1, SIZE\] \(want \[1, SIZE\]\)$"
    bad16 = pld.tensor.allgather(src, data, mesh)  ### "^E0261 pld.tensor.allgather target \[1, 64\] needs one row per rank: want \[4, SIZE\]$"
    rows = pld.tensor.all_to_all(block, rows, mesh)
    bad17 = pld.tensor.all_to_all(src, rows, mesh)  ### "^E0261 pld.tensor.all_to_all input \[1, 64\] must be \[nr, SIZE\] \(want \[4, SIZE\]\)$"
    mesh = pld.tensor.barrier(mesh)
    bad18 = pld.tensor.barrier(ring)  ### "^E0253 pld.tensor.barrier signal shape \[6, 4\] does not fit 4 ranks: want \[>=4, 1\]$"
    return data
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return data


@pl.jit
def wrapper(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return kernel(data)


@pl.jit.host
def driver(x: pl.Tensor[[4, 1, 64], pl.FP32]):
    data_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)
    rows_buf = pld.alloc_window_buffer([4, 64], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([4], dtype=pl.INT32)
    ring_buf = pld.alloc_window_buffer([7, 4], dtype=pl.INT32)
    data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
    rows = pld.window(rows_buf, [4, 64], dtype=pl.FP32)
    sig = pld.window(sig_buf, [4], dtype=pl.INT32)
    ring = pld.window(ring_buf, [7, 4], dtype=pl.INT32)
    bad28 = pld.tensor.allreduce(data)  ### "^E0250 HOST pld.tensor.allreduce needs an explicit signal: PyPTO e2d0f78ae cannot compile the form whose signal it synthesizes"
    data = pld.tensor.allreduce(data, sig)
    data = pld.tensor.allreduce(data, ring, mode="ring")
    bad19 = pld.tensor.allreduce(data, ring, mode="ring", op=pld.ReduceOp.Max)  ### "^E0255 HOST ring allreduce supports op=Sum only, got Max$"
    bad20 = pld.tensor.allreduce(data, mode="ring")  ### "^E0250 HOST pld.tensor.allreduce with mode=\"ring\" needs an explicit signal$"
    bad21 = pld.tensor.allreduce(data, sig, core_num=64)  ### "^E0259 core_num=64 exceeds the 48 AIV cores of platform 910B$"
    bad22 = pld.tensor.allreduce(data, data)  ### "^E0258 HOST pld.tensor.allreduce target and signal are views of the same window buffer data_buf$"
    bad23 = pld.tensor.allgather(rows, rows, sig)  ### "^E0258 pld.tensor.allgather local_data and target are the same tensor rows$"
    bad24 = pld.tensor.allgather(x, rows, sig)  ### "^E0257 HOST pld.tensor.allgather reads its local_data from a window, got pl.Tensor \[4, 1, 64\] FP32$"
    rows = pld.tensor.allgather(data, rows, sig)
    bad25 = pld.tensor.all_to_all(rows, rows, ring)  ### "^E0258"
    for r in pl.range(4):
        data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
        data = pld.tensor.allreduce(data, sig)
        bad26 = pld.tensor.allreduce(data)  ### "^E0260 HOST pld.tensor.allreduce without a signal inside a loop: the compiler allocates its signal once, not once per iteration$"
        wrapper(data, device=r)
---
#! entry: driver
#! ranks: 32
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return data


@pl.jit
def wrapper(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return kernel(data)


@pl.jit.host
def driver():
    data_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)
    data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
    bad27 = pld.tensor.allreduce(data)  ### "^E0262 HOST pld.tensor.allreduce runs on at most 16 ranks, got 32$"
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
        wrapper(data, device=r)
---
#! entry: driver
#! ranks: 4
#! platform: 950
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return data


@pl.jit
def wrapper(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return kernel(data)


@pl.jit.host
def driver():
    data_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([4, 40], dtype=pl.INT32)
    data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
    sig = pld.window(sig_buf, [4, 40], dtype=pl.INT32)
    ok = pld.tensor.allreduce(data, sig, core_num=36)
    bad = pld.tensor.allreduce(data, sig, core_num=40)  ### "^E0259 core_num=40 exceeds the 36 AIV cores of platform 950$"
    flag = pld.tensor.allreduce(data, sig, core_num=True)  ### "^E0205 pld.tensor.allreduce core_num is the bool True, want a compile-time Python int$"
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
        wrapper(data, device=r)
---
#! entry: driver
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return data


@pl.jit
def wrapper(data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
    return kernel(data)


@pl.jit.incore
def peek(flags: pld.DistributedTensor[[4], pl.INT32]):
    return flags


@pl.jit
def peek_dev(flags: pld.DistributedTensor[[4], pl.INT32]):
    return peek(flags)


@pl.jit.incore
def hand_barrier(flags: pl.InOut[pld.DistributedTensor[[4], pl.INT32]]):
    pld.system.notify(target=flags, peer=0, offsets=[0], value=1, op=pld.NotifyOp.AtomicAdd)
    return flags


@pl.jit.incore
def inout_unwritten(flags: pl.InOut[pld.DistributedTensor[[4], pl.INT32]]):
    return flags


@pl.jit
def inout_unwritten_dev(flags: pl.InOut[pld.DistributedTensor[[4], pl.INT32]]):
    return inout_unwritten(flags)


@pl.jit
def hand_barrier_dev(flags: pl.InOut[pld.DistributedTensor[[4], pl.INT32]]):
    return hand_barrier(flags)


# HOST builtins one after another on one signal are fine (each clears it);
# reading the signal in a kernel is fine, and so is handing it to one
# declared pl.InOut that never writes it; a kernel that may write it is
# W0302, once per buffer, at whichever use comes second.
@pl.jit.host
def driver():
    data_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([4], dtype=pl.INT32)
    hand_buf = pld.alloc_window_buffer([4], dtype=pl.INT32)
    data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
    sig = pld.window(sig_buf, [4], dtype=pl.INT32)
    hand = pld.window(hand_buf, [4], dtype=pl.INT32)
    sig = pld.tensor.barrier(sig)
    sig = pld.window(sig_buf, [4], dtype=pl.INT32)
    data = pld.tensor.allreduce(data, sig)
    for i in pl.range(3):
        sig = pld.window(sig_buf, [4], dtype=pl.INT32)
        sig = pld.tensor.barrier(sig)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, 64], dtype=pl.FP32)
        sig = pld.window(sig_buf, [4], dtype=pl.INT32)
        wrapper(data, device=r)
        peek_dev(sig, device=r)
        inout_unwritten_dev(sig, device=r)
        sig = pld.window(sig_buf, [4], dtype=pl.INT32)
        hand_barrier_dev(sig, device=r)  ### "^W0302 orchestration function \"hand_barrier_dev\" may write window sig_buf, the signal of the HOST collective at line 243$"
    for r in pl.range(pld.world_size()):
        hand = pld.window(hand_buf, [4], dtype=pl.INT32)
        hand_barrier_dev(hand, device=r)
    hand = pld.window(hand_buf, [4], dtype=pl.INT32)
    hand = pld.tensor.barrier(hand)  ### "^W0302 HOST pld.tensor.barrier uses signal window hand_buf, which the dispatch at line 259 also hands a kernel to write$"
