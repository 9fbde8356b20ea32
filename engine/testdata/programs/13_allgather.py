#! entry: build_allgather({P}, False).host_orch
#! entry: build_allgather({P}, True).host_orch
#! ranks: 2 3 4
#! golden: out[r, 0, k*SIZE + j] == inp[k, 0, j] for every rank r, source k and column j (FP32, exact copy)

"""All-gather: every rank ends with every rank's slice, in rank order.

The window is ``[nr, SIZE]``: row k is where rank k's slice belongs, on every
rank.

* hand-rolled (``use_builtin=False``) pushes: each rank writes its slice
  into row ``me`` of every rank's window, its own included, with
  ``pld.tile.remote_store``. One barrier later every row of its own window
  is filled, and the rank copies the rows to its output with local loads.
* builtin (``use_builtin=True``): ``pld.tensor.allgather(x, gather, sig)``.
  Inside a kernel the source must be the plain input tensor, not a window,
  and not the target itself.

Order is the contract: rank k's slice goes to columns ``[k*SIZE, (k+1)*SIZE)``
of the output, whoever arrived first.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_allgather(nr: int, use_builtin: bool):
    """Return the all-gather program for ``nr`` ranks, hand-rolled or builtin."""

    @pl.program
    class AllGather:
        @pl.function(type=pl.FunctionType.InCore)
        def hand_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, nr * SIZE], pl.FP32]:
            """AI core: push my row everywhere, barrier, read my window."""
            ctx = pld.get_comm_ctx(gather)
            me = pld.rank(ctx)

            mine = pl.load(x, [0, 0], [1, SIZE])
            for dest in pl.range(nr):
                pld.tile.remote_store(mine, gather, peer=dest, offsets=[me, 0])

            for peer in pl.range(nr):
                if peer != me:
                    pld.system.notify(sig, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nr):
                if src != me:
                    pld.system.wait(sig, [src, 0], 1, cmp=pld.WaitCmp.Ge)

            for k in pl.range(nr):
                row = pl.load(gather, [k, 0], [1, SIZE])
                y = pl.store(row, [0, k * SIZE], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def builtin_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, nr * SIZE], pl.FP32]:
            """AI core: one builtin call, then read my window row by row."""
            gather = pld.tensor.allgather(x, gather, sig)
            for k in pl.range(nr):
                row = pl.load(gather, [k, 0], [1, SIZE])
                y = pl.store(row, [0, k * SIZE], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_hand(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, nr * SIZE], pl.FP32]:
            return self.hand_step(x, y, gather, sig)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_builtin(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, nr * SIZE], pl.FP32]:
            return self.builtin_step(x, y, gather, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            inp: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            out: pl.Out[pl.Tensor[[nr, 1, nr * SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, nr * SIZE], pl.FP32]:
            gather_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                gather = pld.window(gather_buf, [nr, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                if use_builtin:
                    self.dev_builtin(inp[r], out[r], gather, sig, device=r)
                else:
                    self.dev_hand(inp[r], out[r], gather, sig, device=r)
            return out

    return AllGather


def make_inputs(nr: int) -> torch.Tensor:
    """Rank r's slice is r + j / 100, so each source is recognisable."""
    j = torch.arange(SIZE, dtype=torch.float32) / 100.0
    return torch.stack([(r + j).reshape(1, SIZE) for r in range(nr)])


def golden(inp: torch.Tensor) -> torch.Tensor:
    """Every rank: the slices of ranks 0..nr-1 side by side."""
    row = torch.cat([inp[k] for k in range(inp.shape[0])], dim=1)
    return row.unsqueeze(0).repeat(inp.shape[0], 1, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description="all-gather by remote_store or the builtin")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="two or more comma-separated device ids")
    ap.add_argument("--mode", default="hand", choices=["hand", "builtin"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_allgather(nr, opts.mode == "builtin")
    inp = make_inputs(nr)
    out = torch.zeros((nr, 1, nr * SIZE), dtype=torch.float32)

    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(inp, out)

    assert torch.equal(out, golden(inp)), f"{opts.mode}: gathered rows are wrong or out of order"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
