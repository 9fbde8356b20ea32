#! entry: build_reveal_allreduce({P}, "mesh").allreduce_host
#! entry: build_reveal_allreduce({P}, "ring").allreduce_host
#! entry: build_reveal_allreduce({P}, "mesh", True).allreduce_host
#! entry: build_reveal_allreduce({P}, "ring", use_max=True).allreduce_host
#! ranks: 2 3 4 8
#! golden: use_max False: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! golden: use_max True: y[r] == element-wise max over k of x[k], for every rank r (FP32, exact)

"""The all-reduce builtin: one call instead of the hand-written protocols.

``pld.tensor.allreduce(target, signal, op=..., mode=...)`` called inside an
AI-core kernel expands into notify/wait/remote_load code much like the
previous three programs. The mode picks the schedule and the schedule fixes
the signal's shape:

* ``mode="mesh"``: one row per rank, ``[nr, 1]``;
* ``mode="ring"``: one row per round and one column per rank,
  ``[2 * (nr - 1), nr]``.

The factory takes the mode as a string, derives the signal shape from it, and
refuses any other mode. The ring builtin cuts the slice into uneven segments
when the rank count does not divide it, so there is no divisibility guard
here. Inside a kernel every ``ReduceOp`` is allowed in both modes; with
``use_max=True`` the host dispatches the kernel that reduces with ``Max``.

Call it as ``data = pld.tensor.allreduce(data, ...)``: the call returns the
reduced window.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_reveal_allreduce(nr: int, mode: str, use_max: bool = False):
    """Return the builtin all-reduce program for ``nr`` ranks and ``mode``.

    ``use_max`` swaps the sum for an element-wise maximum.
    """
    total_rounds = 2 * (nr - 1)
    if mode == "ring":
        rows, cols = total_rounds, nr
    elif mode == "mesh":
        rows, cols = nr, 1
    else:
        raise ValueError(f"mode must be 'mesh' or 'ring', got {mode!r}")

    @pl.program
    class BuiltinAllreduce:
        @pl.function(type=pl.FunctionType.InCore)
        def sum_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: stage, one builtin sum, write out."""
            mine = pl.load(x, [0, 0], [1, SIZE])
            acc = pl.store(mine, [0, 0], acc)
            acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum, mode=mode)
            done = pl.load(acc, [0, 0], [1, SIZE])
            return pl.store(done, [0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def max_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: stage, one builtin element-wise maximum, write out."""
            mine = pl.load(x, [0, 0], [1, SIZE])
            acc = pl.store(mine, [0, 0], acc)
            acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Max, mode=mode)
            done = pl.load(acc, [0, 0], [1, SIZE])
            return pl.store(done, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_sum(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.sum_step(x, y, acc, sig)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_max(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.max_step(x, y, acc, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def allreduce_host(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: one data window and one signal window shaped for the mode."""
            acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([rows, cols], dtype=pl.INT32)
            for r in pl.range(nr):
                acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [rows, cols], dtype=pl.INT32)
                if use_max:
                    self.dev_max(x[r], y[r], acc, sig, device=r)
                else:
                    self.dev_sum(x[r], y[r], acc, sig, device=r)
            return y

    return BuiltinAllreduce


def golden(x: torch.Tensor, op: str) -> torch.Tensor:
    """The sum or the element-wise maximum over ranks, on every rank."""
    if op == "max":
        folded = x.max(dim=0, keepdim=True).values
    else:
        folded = x.sum(dim=0, keepdim=True)
    return folded.repeat(x.shape[0], 1, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description="pld.tensor.allreduce in mesh or ring mode")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="two or more comma-separated device ids")
    ap.add_argument("--mode", default="mesh", choices=["mesh", "ring"])
    ap.add_argument("--op", default="sum", choices=["sum", "max"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_reveal_allreduce(nr, opts.mode, use_max=opts.op == "max")
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros_like(x)

    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = golden(x, opts.op)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"{opts.mode}/{opts.op}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
