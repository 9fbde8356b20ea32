# Deferred completion in a chip orchestration: each rank parks three
# waiter tasks on its mailbox signal with pld.system.defer_wait, gives each
# a reader task ordered after it by deps=, and only then posts its own
# letter to the next rank. The waiters hold no core while they wait, so the
# post runs; the readers run once the letter has arrived.
#! entry: Mailbox.host_orch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

READERS = 3
WIDTH = 8


@pl.program
class Mailbox:
    @pl.function(type=pl.FunctionType.Orchestration)
    def post_and_read(
        self,
        letter: pl.Tensor[[1, WIDTH], pl.FP32],
        copies: pl.Out[pl.Tensor[[READERS, WIDTH], pl.FP32]],
        inbox: pl.InOut[pld.DistributedTensor[[1, WIDTH], pl.FP32]],
        flag: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        next_rank: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[READERS, WIDTH], pl.FP32]:
        with pl.manual_scope():  ### "^W0308 the emulator runs these tasks one at a time"
            for k in pl.range(READERS):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="park") as parked:
                    pld.system.defer_wait(signal=flag, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="read", deps=[parked]):
                    got = pl.load(inbox, [0, 0], [1, WIDTH])
                    copies = pl.store(pl.add(got, got), [k, 0], copies)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="post"):
                mine = pl.load(letter, [0, 0], [1, WIDTH])
                pld.tile.remote_store(mine, target=inbox, peer=next_rank, offsets=[0, 0])
                pld.system.notify(target=flag, peer=next_rank, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        return copies

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        letters: pl.Tensor[[2, 1, WIDTH], pl.FP32],
        copies: pl.Out[pl.Tensor[[2, READERS, WIDTH], pl.FP32]],
    ) -> pl.Tensor[[2, READERS, WIDTH], pl.FP32]:
        inbox_buf = pld.alloc_window_buffer(WIDTH * pl.FP32.get_byte())
        flag_buf = pld.alloc_window_buffer(pl.INT32.get_byte())
        for r in pl.range(pld.world_size()):
            inbox = pld.window(inbox_buf, [1, WIDTH], dtype=pl.FP32)
            flag = pld.window(flag_buf, [1, 1], dtype=pl.INT32)
            self.post_and_read(letters[r], copies[r], inbox, flag, (r + 1) % pld.world_size(), device=r)
        return copies
