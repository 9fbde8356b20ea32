#! entry: build_all_to_all({P}, False).host_orch
#! entry: build_all_to_all({P}, True).host_orch
#! ranks: 2 3 4
#! golden: out[r, s, j] == inp[s, r, j] for every rank r, source s and column j (FP32, exact copy)

"""All-to-all: every rank sends a different chunk to every rank.

Rank ``r``'s input has one row per destination: row ``d`` is meant for rank
``d``. After the exchange, row ``s`` of rank ``r``'s output is what rank
``s`` meant for ``r``, so the whole exchange is a transpose of the first two
dimensions.

* hand-rolled (``use_builtin=False``): push row ``d`` of my input into row
  ``me`` of rank ``d``'s inbox with ``pld.tensor.put`` in its sub-region form
  (destination offsets, source offsets, shape, all positional). Rank ``me``
  starts with destination ``me`` and walks round the ring, so the ranks do
  not all write to rank 0 first. Then a barrier in which each rank *sets* its
  cell in every peer to 1; ``Set`` suffices because every cell has exactly one
  writer. Then read the inbox.
* builtin (``use_builtin=True``): ``pld.tensor.all_to_all(x, inbox, sig)``.
  The input and the inbox must be different tensors: writing into the buffer
  you are still sending from would overwrite rows not yet sent.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_all_to_all(nr: int, use_builtin: bool):
    """Return the all-to-all program for ``nr`` ranks, hand-rolled or builtin."""

    @pl.program
    class AllToAll:
        @pl.function(type=pl.FunctionType.InCore)
        def hand_step(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            """AI core: put a row to every rank, Set barrier, read the inbox."""
            ctx = pld.get_comm_ctx(inbox)
            me = pld.rank(ctx)

            for k in pl.range(nr):
                dest = (me + k) % nr
                pld.tensor.put(inbox, dest, x, [me, 0], [dest, 0], [1, SIZE])

            for peer in pl.range(nr):
                if peer != me:
                    pld.system.notify(sig, peer, [me, 0], 1, op=pld.NotifyOp.Set)
            for src in pl.range(nr):
                if src != me:
                    pld.system.wait(sig, [src, 0], 1, cmp=pld.WaitCmp.Ge)

            for src in pl.range(nr):
                row = pl.load(inbox, [src, 0], [1, SIZE])
                y = pl.store(row, [src, 0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def builtin_step(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            """AI core: one builtin call, then read the inbox."""
            inbox = pld.tensor.all_to_all(x, inbox, sig)
            for src in pl.range(nr):
                row = pl.load(inbox, [src, 0], [1, SIZE])
                y = pl.store(row, [src, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_hand(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            return self.hand_step(x, y, inbox, sig)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_builtin(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            return self.builtin_step(x, y, inbox, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            inp: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            out: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, nr, SIZE], pl.FP32]:
            inbox_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                inbox = pld.window(inbox_buf, [nr, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                if use_builtin:
                    self.dev_builtin(inp[r], out[r], inbox, sig, device=r)
                else:
                    self.dev_hand(inp[r], out[r], inbox, sig, device=r)
            return out

    return AllToAll


def make_inputs(nr: int) -> torch.Tensor:
    """inp[r, d, j] = 100 * r + 10 * d + j / 64: sender, receiver and column all show."""
    sender = torch.arange(nr, dtype=torch.float32).reshape(nr, 1, 1)
    receiver = torch.arange(nr, dtype=torch.float32).reshape(1, nr, 1)
    col = torch.arange(SIZE, dtype=torch.float32).reshape(1, 1, SIZE) / 64.0
    return 100.0 * sender + 10.0 * receiver + col


def golden(inp: torch.Tensor) -> torch.Tensor:
    """out[r, s] = inp[s, r]."""
    return inp.transpose(0, 1).contiguous()


def main() -> int:
    ap = argparse.ArgumentParser(description="all-to-all by sub-region put or the builtin")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="two or more comma-separated device ids")
    ap.add_argument("--mode", default="hand", choices=["hand", "builtin"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_all_to_all(nr, opts.mode == "builtin")
    inp = make_inputs(nr)
    out = torch.zeros_like(inp)

    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(inp, out)

    assert torch.equal(out, golden(inp)), f"{opts.mode}: some chunk reached the wrong rank or row"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
