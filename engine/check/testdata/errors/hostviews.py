# PyPTO's MaterializeCommDomainScopes finds a HOST collective's window
# through the pld.window view that made its operand.
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.host
def driver():
    sig_buf = pld.alloc_window_buffer([4], dtype=pl.INT32)
    sig = pld.window(sig_buf, [4], dtype=pl.INT32)
    sig = pld.tensor.barrier(sig)
    sig = pld.tensor.barrier(sig)  ### "^E0234 pld.tensor.barrier operand sig was bound at line \d+ by something other than pld.window"
    sig = pld.window(sig_buf, [4], dtype=pl.INT32)
    sig = pld.tensor.barrier(sig)
    for i in pl.range(2):
        sig = pld.tensor.barrier(sig)  ### "^E0234 pld.tensor.barrier operand sig was bound at line \d+"
