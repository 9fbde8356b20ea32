#! entry: build_ring_reveal({P}).allreduce
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: compile_error ^line 47: E0253 signal shape \[\d+, 1\] does not fit mode="ring"

"""Step 11's classic bug: ring mode with a mesh-shaped signal.

The learner has the mesh builtin working and switches it to the ring by
changing one argument, ``mode="ring"``. The signal window stays as it was,
``[nr, 1]``: one cell per rank, which is what the mesh wants. The ring
needs one row per round and one column per rank, ``[2 * (nr - 1), nr]``.

Nothing runs. The checker knows the shape each mode wants and stops the
program before any rank starts, with error E0253 on the call's signal
argument, at every rank count; on hardware the lowered ring would index
cells the window does not have. The fix is 11_allreduce_reveal.py's: shape
the signal for the mode, ``[2 * (nr - 1), nr]`` for the ring.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_ring_reveal(nr: int):
    """Return the builtin ring all-reduce for ``nr`` ranks, with the mesh's signal."""

    @pl.program
    class RingReveal:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: stage my slice, one builtin call, copy the result out."""
            mine = pl.load(x, [0, 0], [1, SIZE])
            acc = pl.store(mine, [0, 0], acc)
            acc = pld.tensor.allreduce(acc, signal, op=pld.ReduceOp.Sum, mode="ring")  # the bug: a mesh signal
            reduced = pl.load(acc, [0, 0], [1, SIZE])
            y = pl.store(reduced, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def reduce_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.reduce_step(x, y, acc, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def allreduce(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: a data window and a one-cell-per-rank signal window."""
            acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            signal_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [nr, 1], dtype=pl.INT32)
                self.reduce_dev(x[r], y[r], acc, signal, device=r)
            return y

    return RingReveal


def main() -> int:
    ap = argparse.ArgumentParser(description="step 11's bug: ring mode with a mesh-shaped signal")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(
        build_ring_reveal(nr),
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    compiled(x, y)
    ok = torch.allclose(y, x.sum(dim=0, keepdim=True).expand_as(x), rtol=1e-5, atol=1e-5)
    print("OK" if ok else "wrong sums")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
