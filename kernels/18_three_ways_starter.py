#! starter: the third way, in host_builtin: its one-dimensional signal and the all-reduce called by the host
#! entry: build_three_ways({P}).hand_rolled
#! entry: build_three_ways({P}).incore_builtin
#! entry: build_three_ways({P}).host_builtin
#! ranks: 2 3 4 8

"""Step 18 starter - one all-reduce, three ways. Your copy to edit.

Three host entries must each leave every rank with the sum over ranks of
its 512-float slice. ``hand_rolled`` (the barrier and remote loads of
steps 04 and 08) and ``incore_builtin`` (the builtin inside the kernel,
step 11) are done. ``host_builtin`` publishes every slice into a window
and copies the window back out, but the all-reduce between the two - the
builtin called by the host itself, as in step 17 - is missing, so as
shipped its every rank gets back its own slice while the other two entries
pass. Fill in the gaps marked TODO(you), then run
``workbench step 18 --check FILE``. The lesson is
tutorials/18-three-ways.md.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 512


def build_three_ways(nr: int):
    """Return the program with the three all-reduce host orchestrators for ``nr`` ranks."""

    @pl.program
    class ThreeWays:
        @pl.function(type=pl.FunctionType.InCore)
        def by_hand(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: stage, notify/wait barrier, sum every rank's slice."""
            ctx = pld.get_comm_ctx(part)
            me = pld.rank(ctx)
            nranks = pld.nranks(ctx)

            mine = pl.load(x, [0, 0], [1, SIZE])
            part = pl.store(mine, [0, 0], part)
            for peer in pl.range(nranks):
                if peer != me:
                    pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nranks):
                if src != me:
                    pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

            acc = pl.load(part, [0, 0], [1, SIZE])
            for peer in pl.range(nranks):
                if peer != me:
                    theirs = pld.tile.remote_load(part, peer, [0, 0], [1, SIZE])
                    acc = pl.add(acc, theirs)
            y = pl.store(acc, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def by_builtin(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: stage, one builtin call, copy the sum out."""
            mine = pl.load(x, [0, 0], [1, SIZE])
            part = pl.store(mine, [0, 0], part)
            part = pld.tensor.allreduce(part, arrived, op=pld.ReduceOp.Sum, mode="mesh")
            total = pl.load(part, [0, 0], [1, SIZE])
            y = pl.store(total, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def publish(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            """AI cores: copy my slice into the window, nothing else."""
            mine = pl.load(x, [0, 0], [1, SIZE])
            part = pl.store(mine, [0, 0], part)
            return part

        @pl.function(type=pl.FunctionType.InCore)
        def consume(
            self,
            part: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: copy the window to my output."""
            total = pl.load(part, [0, 0], [1, SIZE])
            y = pl.store(total, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def by_hand_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.by_hand(x, y, part, arrived)

        @pl.function(type=pl.FunctionType.Orchestration)
        def by_builtin_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.by_builtin(x, y, part, arrived)

        @pl.function(type=pl.FunctionType.Orchestration)
        def publish_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            return self.publish(x, part)

        @pl.function(type=pl.FunctionType.Orchestration)
        def consume_dev(
            self,
            part: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.consume(part, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def hand_rolled(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: one dispatch of the hand-rolled kernel per rank."""
            part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            arrived_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
                arrived = pld.window(arrived_buf, [nr, 1], dtype=pl.INT32)
                self.by_hand_dev(x[r], y[r], part, arrived, device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def incore_builtin(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: one dispatch of the builtin-calling kernel per rank."""
            core_part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            core_arrived_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                part = pld.window(core_part_buf, [1, SIZE], dtype=pl.FP32)
                arrived = pld.window(core_arrived_buf, [nr, 1], dtype=pl.INT32)
                self.by_builtin_dev(x[r], y[r], part, arrived, device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_builtin(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: publish, the builtin called here, consume."""
            host_part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            # TODO(you): the builtin below needs a signal window: one cell
            #   per rank, in one dimension.
            # Placeholder: no signal yet (an allocation nobody uses is refused).
            # ---- end of TODO ----
            for r in pl.range(pld.world_size()):
                part = pld.window(host_part_buf, [1, SIZE], dtype=pl.FP32)
                self.publish_dev(x[r], part, device=r)
            part = pld.window(host_part_buf, [1, SIZE], dtype=pl.FP32)
            # TODO(you): `part` must end summed over the ranks, by one HOST
            #   builtin call on that signal.
            # Placeholder: no all-reduce; `part` keeps each rank's own slice.
            # ---- end of TODO ----
            for r in pl.range(pld.world_size()):
                self.consume_dev(part, y[r], device=r)
            return y

    return ThreeWays


def main() -> int:
    ap = argparse.ArgumentParser(description="step 18: the same all-reduce hand-rolled, as a kernel builtin and as a host builtin")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--way", default="hand_rolled", choices=["hand_rolled", "incore_builtin", "host_builtin"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_three_ways(nr)
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
    getattr(compiled, opts.way)(x, y)

    want = x.sum(dim=0, keepdim=True).expand_as(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"{opts.way} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
