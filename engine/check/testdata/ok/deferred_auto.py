# A deferred waiter outside a manual scope: the orchestration submits the
# waiter, its reader (deps=) and the ring post in order; the emulator runs
# the waiter and the reader at its return.
#! entry: Ring.host_orch
#! ranks: 3
import pypto.language as pl
import pypto.language.distributed as pld

WIDTH = 8


@pl.program
class Ring:
    @pl.function(type=pl.FunctionType.Orchestration)
    def step(
        self,
        mine: pl.Tensor[[1, WIDTH], pl.INT32],
        heard: pl.Out[pl.Tensor[[1, WIDTH], pl.INT32]],
        slot: pl.InOut[pld.DistributedTensor[[1, WIDTH], pl.INT32]],
        ready: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        right: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, WIDTH], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="listen") as heard_tid:  ### "^W0308 "
            pld.system.defer_wait(ready, [0, 0], 1, cmp=pld.WaitCmp.Ge)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="note", deps=[heard_tid]):
            got = pl.load(slot, [0, 0], [1, WIDTH])
            heard = pl.store(got, [0, 0], heard)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tell"):
            word = pl.load(mine, [0, 0], [1, WIDTH])
            pld.tile.remote_store(word, target=slot, peer=right, offsets=[0, 0])
            pld.system.notify(ready, peer=right, offsets=[0, 0], value=1, op=pld.NotifyOp.Set)
        return heard

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        mine: pl.Tensor[[3, 1, WIDTH], pl.INT32],
        heard: pl.Out[pl.Tensor[[3, 1, WIDTH], pl.INT32]],
    ):
        slot_buf = pld.alloc_window_buffer(WIDTH * pl.INT32.get_byte())
        ready_buf = pld.alloc_window_buffer(pl.INT32.get_byte())
        for r in pl.range(pld.world_size()):
            slot = pld.window(slot_buf, [1, WIDTH], dtype=pl.INT32)
            ready = pld.window(ready_buf, [1, 1], dtype=pl.INT32)
            self.step(mine[r], heard[r], slot, ready, (r + 1) % pld.world_size(), device=r)
