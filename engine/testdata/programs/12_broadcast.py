#! entry: build_broadcast({P}, False).host_orch
#! entry: build_broadcast({P}, True).host_orch
#! ranks: 2 3 4
#! golden: out[r] == inp[SOURCE_RANK] for every rank r, SOURCE_RANK = 1 (FP32, exact copy)
#! golden: out[r] != inp[r] for every r != SOURCE_RANK (no input of another rank leaks through)

"""Broadcast: one rank's slice ends up on every rank.

The source here is rank 1, not rank 0, so a kernel that quietly assumes rank
0 gives itself away. Only the source stages its input in its window; every
other rank's input is ignored.

* hand-rolled (``use_builtin=False``): the source rank arrives as a scalar
  argument. The source stages, everybody passes a barrier, then every rank
  copies the source's window straight into its output with
  ``pld.tensor.get``. The source copies from itself, which is allowed.
* builtin (``use_builtin=True``): ``pld.tensor.broadcast(data, signal,
  root=SOURCE_RANK)``. ``root`` must be a plain Python integer known when
  the program is built, so it is the module constant, not the scalar.

Both windows are sized in bytes: 64 floats, and one INT32 per rank.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64
SOURCE_RANK = 1


def build_broadcast(nr: int, use_builtin: bool):
    """Return the broadcast program for ``nr`` ranks, hand-rolled or builtin."""

    @pl.program
    class Broadcast:
        @pl.function(type=pl.FunctionType.InCore)
        def hand_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            source: pl.Scalar[pl.INT32],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: source stages, barrier, everyone copies from the source."""
            ctx = pld.get_comm_ctx(box)
            me = pld.rank(ctx)

            if me == source:
                payload = pl.load(x, [0, 0], [1, SIZE])
                box = pl.store(payload, [0, 0], box)

            for peer in pl.range(nr):
                if peer != me:
                    pld.system.notify(sig, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nr):
                if src != me:
                    pld.system.wait(sig, [src, 0], 1, cmp=pld.WaitCmp.Ge)

            pld.tensor.get(y, source, box)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def builtin_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: source stages, then one builtin call."""
            ctx = pld.get_comm_ctx(box)
            me = pld.rank(ctx)

            if me == SOURCE_RANK:
                payload = pl.load(x, [0, 0], [1, SIZE])
                box = pl.store(payload, [0, 0], box)

            box = pld.tensor.broadcast(box, sig, root=SOURCE_RANK)

            copy = pl.load(box, [0, 0], [1, SIZE])
            return pl.store(copy, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_hand(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            source: pl.Scalar[pl.INT32],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.hand_step(x, y, box, sig, source)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_builtin(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.builtin_step(x, y, box, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            inp: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            out: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: a 256-byte data window and a 4*nr-byte signal window."""
            box_buf = pld.alloc_window_buffer(SIZE * pl.FP32.get_byte())
            sig_buf = pld.alloc_window_buffer(nr * pl.INT32.get_byte())
            for r in pl.range(pld.world_size()):
                box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                if use_builtin:
                    self.dev_builtin(inp[r], out[r], box, sig, device=r)
                else:
                    self.dev_hand(inp[r], out[r], box, sig, SOURCE_RANK, device=r)
            return out

    return Broadcast


def make_inputs(nr: int) -> torch.Tensor:
    """Rank r's slice is 1000 * r + j, so every rank's data is recognisable."""
    j = torch.arange(SIZE, dtype=torch.float32)
    return torch.stack([(1000.0 * r + j).reshape(1, SIZE) for r in range(nr)])


def golden(inp: torch.Tensor) -> torch.Tensor:
    """The source's slice on every rank."""
    return inp[SOURCE_RANK].unsqueeze(0).repeat(inp.shape[0], 1, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=f"broadcast from rank {SOURCE_RANK}")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="two or more comma-separated device ids")
    ap.add_argument("--mode", default="hand", choices=["hand", "builtin"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_broadcast(nr, opts.mode == "builtin")
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

    assert torch.equal(out, golden(inp)), f"{opts.mode}: some rank did not receive rank {SOURCE_RANK}'s slice"
    for r in range(nr):
        if r != SOURCE_RANK:
            assert not torch.equal(out[r], inp[r]), f"rank {r}'s own input leaked into its output"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
