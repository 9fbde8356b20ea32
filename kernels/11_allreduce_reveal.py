#! entry: build_allreduce_reveal({P}, "mesh", "sum").allreduce
#! entry: build_allreduce_reveal({P}, "ring", "sum").allreduce
#! entry: build_allreduce_reveal({P}, "mesh", "max").allreduce
#! entry: build_allreduce_reveal({P}, "ring", "min").allreduce
#! ranks: 2 3 4 8
#! golden: mesh, sum: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! golden: ring, sum: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! golden: mesh, max: y[r] == element-wise max over k of x[k], for every rank r (FP32, exact)
#! golden: ring, min: y[r] == element-wise min over k of x[k], for every rank r (FP32, exact)

"""Step 11 - the reveal: steps 08 to 10 as one builtin call.

Three steps built an all-reduce by hand: the mesh (08), the two-phase
reduce-scatter + all-gather (09) and the ring (10). The builtin does the
whole job in one line:

    acc = pld.tensor.allreduce(acc, signal, op=pld.ReduceOp.Sum, mode="mesh")

Two arguments choose what the compiler writes for you:

* ``mode`` picks the schedule, and the schedule fixes the signal shape.
  ``"mesh"`` wants one cell per rank, ``[nr, 1]``; ``"ring"`` wants one row
  per round and one column per rank, ``[2 * (nr - 1), nr]``. A signal of
  the other shape is a compile error, not a silent hang.
* ``op`` picks the element-wise reduction: ``Sum``, ``Max``, ``Min`` or
  ``Prod``. Inside a kernel every one of them works in both modes.

Unlike the hand-written ring of step 10, the builtin ring does not need the
rank count to divide the slice: it cuts the 64 floats into segments at
``floor(i * 64 / nr)``, so 3 ranks get segments of 21, 21 and 22. This
factory therefore has no divisibility guard, and the tests run it at 3.

Put the lowered IR (``workbench ir``) beside steps 08 and 10 to see what
the call became: the same notify / wait / remote_load, with two extra
barrier generations and an epilogue that hands every credit back, so the
signal window is clean when the call returns.

Rebind the result, ``acc = pld.tensor.allreduce(acc, ...)``: the call
returns the reduced window.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64
REDUCTIONS = {"sum": pld.ReduceOp.Sum, "max": pld.ReduceOp.Max, "min": pld.ReduceOp.Min}


def build_allreduce_reveal(nr: int, mode: str, op: str):
    """Return the builtin all-reduce for ``nr`` ranks in ``mode`` reducing with ``op``."""
    if mode == "mesh":
        sig_rows, sig_cols = nr, 1
    elif mode == "ring":
        sig_rows, sig_cols = 2 * (nr - 1), nr
    else:
        raise ValueError(f"mode is 'mesh' or 'ring', got {mode!r}")
    reduction = REDUCTIONS[op]

    @pl.program
    class Reveal:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[sig_rows, sig_cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: stage my slice, one builtin call, copy the result out."""
            mine = pl.load(x, [0, 0], [1, SIZE])
            acc = pl.store(mine, [0, 0], acc)
            acc = pld.tensor.allreduce(acc, signal, op=reduction, mode=mode)
            reduced = pl.load(acc, [0, 0], [1, SIZE])
            y = pl.store(reduced, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def reduce_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[sig_rows, sig_cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.reduce_step(x, y, acc, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def allreduce(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: a data window and a signal window shaped for the mode."""
            acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            signal_buf = pld.alloc_window_buffer([sig_rows, sig_cols], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
                signal = pld.window(signal_buf, [sig_rows, sig_cols], dtype=pl.INT32)
                self.reduce_dev(x[r], y[r], acc, signal, device=r)
            return y

    return Reveal


def expected(x: torch.Tensor, op: str) -> torch.Tensor:
    """The reduction over ranks, on every rank."""
    if op == "sum":
        folded = x.sum(dim=0, keepdim=True)
    elif op == "max":
        folded = x.amax(dim=0, keepdim=True)
    else:
        folded = x.amin(dim=0, keepdim=True)
    return folded.expand_as(x).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 11: pld.tensor.allreduce, mesh or ring")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="mesh", choices=["mesh", "ring"])
    ap.add_argument("--op", default="sum", choices=sorted(REDUCTIONS))
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_allreduce_reveal(nr, opts.mode, opts.op)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = expected(x, opts.op)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"{opts.mode}/{opts.op} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
