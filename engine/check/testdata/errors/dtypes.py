# Element types a distributed program cannot hold: FP8 (PyPTO's distributed
# runtime maps none to a device type), sub-byte elements (remote ops move
# whole bytes) and BOOL in a distributed tensor. Refused where they are
# named, once per dtype, instead of failing at run time.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, 32], pl.FP8E4M3FN],  ### "^E0228 pl.Tensor of FP8E4M3FN: PyPTO's distributed runtime has no device type for FP8 elements$"
    y: pl.Out[pl.Tensor[[1, 32], pl.FP8E4M3FN]],
    z: pl.Tensor[[1, 64], pl.INT4],  ### "^E0228 pl.Tensor of INT4: INT4 elements are 4 bits, and remote ops move whole bytes$"
    flags: pld.DistributedTensor[[4, 1], pl.BOOL],  ### "^E0228 pld.DistributedTensor of BOOL: PyPTO's distributed runtime has no device type for BOOL in a distributed tensor$"
    n: pl.Scalar[pl.HF8],  ### "^E0228 pl.Scalar of HF8: PyPTO's distributed runtime has no device type for FP8 elements$"
):
    return y
---
# A plain BOOL tensor is fine; a dtype= argument naming FP8 is refused.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, 32], pl.FP32],
    mask: pl.Tensor[[1, 32], pl.BOOL],
    out: pl.Out[pl.Tensor[[1, 32], pl.FP32]],
):
    t = pl.load(x, [0, 0], [1, 32])
    c = pl.cast(t, target_type=pl.FP8E5M2)  ### "^E0228 target_type=FP8E5M2: PyPTO's distributed runtime has no device type for FP8 elements$"
    out = pl.store(t, [0, 0], out)
    return out
