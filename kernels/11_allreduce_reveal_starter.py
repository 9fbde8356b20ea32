#! starter: the one builtin call in reduce_step: pld.tensor.allreduce on acc with the signal window, the reduction and the mode
#! entry: build_allreduce_reveal({P}, "mesh", "sum").allreduce
#! entry: build_allreduce_reveal({P}, "ring", "sum").allreduce
#! entry: build_allreduce_reveal({P}, "mesh", "max").allreduce
#! entry: build_allreduce_reveal({P}, "ring", "min").allreduce
#! ranks: 2 3 4 8

"""Step 11 starter - the all-reduce builtin. Your copy to edit.

Steps 08 to 10 built an all-reduce by hand; here the whole protocol is one
call. Each entry must leave every rank with the element-wise reduction of
all the ranks' slices: a sum in mesh and in ring mode, a max (mesh) and a
min (ring). The factory ``build_allreduce_reveal(nr, mode, op)`` already
shapes the signal window for the mode and picks ``reduction`` from ``op``;
the kernel stages its slice in ``acc`` and copies ``acc`` out afterwards.
As shipped nothing happens in between, so ``y == x``. Fill in the gap
marked TODO(you), then run ``workbench step 11 --check FILE``. The lesson
is tutorials/11-allreduce-reveal.md.
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
            # TODO(you): `acc` must end reduced across every rank, by the
            #   reduction and the mode this program was built with, in one
            #   builtin call (the reference card lists it). Builtins give
            #   the updated window back.
            # Placeholder: no call, so `acc` still holds this rank's slice.
            # ---- end of TODO ----
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
