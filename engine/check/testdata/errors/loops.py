# while, break and continue: where PyPTO refuses them, and the @pl.jit
# renamer's treatment of a while body (it walks it as straight-line code).
# (A break outside any loop is the parser's E0012.)
#! entry: launch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    for i in pl.unroll(4):
        if i == 2:
            break  ### "^E0415 break is not supported in a pl.unroll loop: its iterations all run; break leaves only a pl.range or while loop$"
        tile = pl.add(tile, 1.0)
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    pass
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    for i in pl.parallel(3):  ### "^W0303 pl.parallel runs"
        if i == 1:
            continue  ### "^E0415 continue is not supported in a pl.parallel loop"
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    pass
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    while 1:  ### "^E0413 while condition is the int 1, want a comparison or a BOOL$"
        pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    pass
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    k = 0
    while k < rank:  ### "^W0312 PyPTO's @pl.jit renamer does not treat a while body as a loop: it renames the rebinding of k,"
        k = k + 1
    m = k + 1  ### "^E0416 k is read after the while loop of line \d+ that rebinds it"
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    i = 0
    while i < 3:  ### "^W0312 .* rebinding of i, tile, so in PyPTO"
        tile = pl.add(tile, 1.0)
        i = i + 1
    tile = pl.mul(tile, 2.0)  ### "^E0416 tile is read after the while loop"
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    pass
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    j = 0
    while j < 3:  ### "^W0312 .* rebinding of j,"
        j = j + 1
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    for i in pl.range(4):
        if i == rank:
            break  ### "^E0417 PyPTO cannot yet compile a break out of a kernel's outermost loop"
        tile = pl.add(tile, 1.0)
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    pass
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    k = 0
    while k < 3:  ### "^W0313 PyPTO drops the else suite of a while loop: it is never run, here or there$" "^W0312"
        k = k + 1
    else:
        k = 5
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    # PyPTO's SSA while form carries its names, in @pl.jit too: no W0312.
    for (i, t) in pl.while_(init_values=(0, tile)):
        pl.cond(i < rank)
        t2 = pl.add(t, 1.0)
        i2 = i + 1
        i_out, tile = pl.yield_(i2, t2)
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2
H = 4
W = 16


@pl.jit.incore
def scale_add(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    tile = pl.load(src, [0, 0], [H, W])
    for (i, t) in pl.while_(init_values=(0, tile)):
        t2 = pl.add(t, 1.0)  ### "^E0411 the first statement of a pl.while_\(\) body must be pl.cond\(condition\)$"
        pl.cond(i < 3)
        i_out, tile = pl.yield_(i + 1, t2)
    dst = pl.store(tile, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[H, W], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    pass
    return scale_add(src, dst, rank)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, H, W], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, H, W], pl.FP32]],
):
    pass
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], r, device=r)
---
# A break in a kernel loop that carries values (init_values), outermost or
# nested: PyPTO's ConvertToSSA leaves the if around it yielding fewer values
# than the loop carries (a break in a plain loop inside a carried one
# compiles: ok/carried_break.py).
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
CHUNK = 16


@pl.jit.incore
def kern(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    for col, (acc,) in pl.range(0, SIZE, CHUNK, init_values=(y,)):
        if col > 16:
            break  ### "^E0418 PyPTO cannot yet compile a break in a kernel loop that carries values \(init_values\)"
        t = pl.load(x, [0, col], [1, CHUNK])
        acc = pl.store(t, [0, col], acc)
        done = pl.yield_(acc)
    return done


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return kern(x, y)


@pl.jit.host
def launch(
    x: pl.Tensor[[2, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], device=r)
---
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
CHUNK = 16


@pl.jit.incore
def kern(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    for i, (acc,) in pl.range(0, 2, init_values=(y,)):
        for col, (acc2,) in pl.range(0, SIZE, CHUNK, init_values=(acc,)):
            if col > 16:
                break  ### "^E0418 PyPTO cannot yet compile a break in a kernel loop that carries values \(init_values\)"
            t = pl.load(x, [0, col], [1, CHUNK])
            acc2 = pl.store(t, [0, col], acc2)
            inner = pl.yield_(acc2)
        done = pl.yield_(inner)
    return done


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return kern(x, y)


@pl.jit.host
def launch(
    x: pl.Tensor[[2, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], device=r)
