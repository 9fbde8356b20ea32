#! entry: build_reduce_scatter({P}, False).host_orch
#! entry: build_reduce_scatter({P}, True).host_orch
#! ranks: 2 3 4
#! golden: out[r, 0, j] == sum over k of inp[k, 0, r*SIZE + j] for every rank r and column j (FP32, allclose rtol 1e-5 atol 1e-5)

"""Reduce-scatter: every rank contributes nr chunks and keeps one reduced chunk.

Each rank's input holds ``nr`` chunks of ``SIZE`` floats; chunk ``c`` is its
contribution to rank ``c``. Every rank stages all its chunks in the rows of an
``[nr, SIZE]`` window; rank ``r`` then needs row ``r`` of every window, summed.

* hand-rolled (``use_builtin=False``): after a barrier, write my own row ``me``
  to the output, then add every peer's row ``me`` into the output with an
  atomic-add store (``pl.store(..., atomic=pld.AtomicType.Add)``) instead of
  keeping a running sum in a tile. The plain store comes first, so the output
  holds my own contribution before anything is added to it.
* builtin (``use_builtin=True``): ``pld.tensor.reduce_scatter(stage, sig,
  op=pld.ReduceOp.Sum)`` leaves the reduced chunk in row ``me`` of the
  window. ``Sum`` is the only reduction it accepts.

The data window is sized in bytes: ``nr * SIZE * 4``.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_reduce_scatter(nr: int, use_builtin: bool):
    """Return the reduce-scatter program for ``nr`` ranks, hand-rolled or builtin."""

    @pl.program
    class ReduceScatter:
        @pl.function(type=pl.FunctionType.InCore)
        def hand_step(
            self,
            x: pl.Tensor[[1, nr * SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            stage: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: stage all chunks, barrier, sum row `me` into the output."""
            ctx = pld.get_comm_ctx(stage)
            me = pld.rank(ctx)

            for c in pl.range(nr):
                part = pl.load(x, [0, c * SIZE], [1, SIZE])
                stage = pl.store(part, [c, 0], stage)

            for peer in pl.range(nr):
                if peer != me:
                    pld.system.notify(sig, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nr):
                if src != me:
                    pld.system.wait(sig, [src, 0], 1, cmp=pld.WaitCmp.Ge)

            own = pl.load(stage, [me, 0], [1, SIZE])
            y = pl.store(own, [0, 0], y)
            for peer in pl.range(nr):
                if peer != me:
                    contrib = pld.tile.remote_load(stage, peer, [me, 0], [1, SIZE])
                    y = pl.store(contrib, [0, 0], y, atomic=pld.AtomicType.Add)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def builtin_step(
            self,
            x: pl.Tensor[[1, nr * SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            stage: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: stage all chunks, one builtin call, read row `me`."""
            ctx = pld.get_comm_ctx(stage)
            me = pld.rank(ctx)

            for c in pl.range(nr):
                part = pl.load(x, [0, c * SIZE], [1, SIZE])
                stage = pl.store(part, [c, 0], stage)

            stage = pld.tensor.reduce_scatter(stage, sig, op=pld.ReduceOp.Sum)

            reduced = pl.load(stage, [me, 0], [1, SIZE])
            return pl.store(reduced, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_hand(
            self,
            x: pl.Tensor[[1, nr * SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            stage: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.hand_step(x, y, stage, sig)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_builtin(
            self,
            x: pl.Tensor[[1, nr * SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            stage: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.builtin_step(x, y, stage, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            inp: pl.Tensor[[nr, 1, nr * SIZE], pl.FP32],
            out: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            stage_buf = pld.alloc_window_buffer(nr * SIZE * pl.FP32.get_byte())
            sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                stage = pld.window(stage_buf, [nr, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                if use_builtin:
                    self.dev_builtin(inp[r], out[r], stage, sig, device=r)
                else:
                    self.dev_hand(inp[r], out[r], stage, sig, device=r)
            return out

    return ReduceScatter


def make_inputs(nr: int) -> torch.Tensor:
    """inp[r, 0, i] = 10 * r + i / 8: distinct per rank and per position."""
    i = torch.arange(nr * SIZE, dtype=torch.float32) / 8.0
    return torch.stack([(10.0 * r + i).reshape(1, nr * SIZE) for r in range(nr)])


def golden(inp: torch.Tensor) -> torch.Tensor:
    """Rank r keeps chunk r of the sum over ranks."""
    nr = inp.shape[0]
    total = inp.sum(dim=0)
    return torch.stack([total[:, r * SIZE : (r + 1) * SIZE] for r in range(nr)])


def main() -> int:
    ap = argparse.ArgumentParser(description="reduce-scatter by atomic-add stores or the builtin")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="two or more comma-separated device ids")
    ap.add_argument("--mode", default="hand", choices=["hand", "builtin"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_reduce_scatter(nr, opts.mode == "builtin")
    inp = make_inputs(nr)
    out = torch.zeros((nr, 1, SIZE), dtype=torch.float32)

    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(inp, out)

    want = golden(inp)
    assert torch.allclose(out, want, rtol=1e-5, atol=1e-5), f"{opts.mode}: max error {(out - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
