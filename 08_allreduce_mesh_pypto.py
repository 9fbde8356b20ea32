# Exported by PLD Workbench from 08_allreduce_mesh.py: entry mesh_allreduce at 4 ranks, inputs index, platform a2a3.
#
# Run it with PyPTO installed (python3 with pypto and torch importable):
#
#     python3 THIS_FILE                     # on devices 0,1,2,3 of a2a3
#     python3 THIS_FILE --device 4,5,6,7    # other device ids: exactly 4 of them
#     python3 THIS_FILE --platform a2a3sim  # PyPTO's simulator instead of cards
#     python3 THIS_FILE --compile-only      # compile, print the build directory, stop
#     python3 THIS_FILE --swimlane          # also collect per-rank swimlane records (DFX)
#
# It writes THIS_FILE's name with .manifest.json (or --manifest PATH): the outputs,
# the golden's verdict and the DFX files under <output_dir>/dfx_outputs/rank{r}/d{k}/.
# Exit status: 0 the outputs match the golden (or there is none), 1 they do not, 2 usage.
# Golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5).
# With --swimlane on a card, PyPTO runs the program twice (a dependency pass, then
# a timing pass) without restoring pl.InOut tensors in between.
# The program below is 08_allreduce_mesh.py exactly as written; it starts at line 26 of this file.
import sys as _pld_sys

_pld_as_script = __name__ == "__main__"
if _pld_as_script:
    __name__ = "pld_exported_program"
    _pld_sys.modules[__name__] = _pld_sys.modules["__main__"]

# ---- the program, exactly as written ----
#! entry: mesh_allreduce
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""Step 08 - all-reduce, version 1: the mesh.

All-reduce: every rank brings a slice, every rank leaves with the
element-wise sum of all of them, ``y[r] = x[0] + x[1] + ... + x[P-1]``.

The mesh is the most direct way to get there. Every rank reads every other
rank's slice, in four phases:

1. stage: copy my slice into my copy of the ``part`` window;
2. barrier: the hand-rolled one from step 04, so that no rank starts
   reading before every rank has staged;
3. accumulate: start from my own slice and add each peer's, fetched with
   ``pld.tile.remote_load``;
4. write the sum to my output.

Leave out the barrier and a fast rank reads a window its peer has not
filled yet: zeros, and a wrong sum that may show up only now and then, or
only at larger P.

Each rank moves ``(P - 1) * SIZE`` floats: simple, and fine for small
slices, but the traffic grows with P. Steps 09 and 10 cut it down.

Every rank adds the same numbers in a different order (its own slice
first), so the ranks' results can differ in the last bits: compare with a
tolerance, not for equality.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
SIZE = 64


@pl.jit.incore
def mesh_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
):
    """AI cores: stage, barrier, add up every rank's slice, write out."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    # 1. Stage.
    mine = pl.load(x, [0, 0], [1, SIZE])
    part = pl.store(mine, [0, 0], part)

    # 2. Barrier: announce "staged" to everyone, then wait for everyone.
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    # 3. Accumulate, own slice first.
    total = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            theirs = pld.tile.remote_load(part, peer, [0, 0], [1, SIZE])
            total = pl.add(total, theirs)

    # 4. Write out.
    y = pl.store(total, [0, 0], y)
    return y


@pl.jit
def mesh_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
):
    return mesh_kernel(x, y, part, arrived)


@pl.jit.host
def mesh_allreduce(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a 256-byte data window and a one-cell-per-rank signal window."""
    part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer(pld.world_size() * pl.INT32.get_byte())
    for r in pl.range(pld.world_size()):
        part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [NR, 1], dtype=pl.INT32)
        mesh_dev(x[r], y[r], part, arrived, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """The sum over ranks, on every rank."""
    return x.sum(dim=0, keepdim=True).expand_as(x).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 08: mesh all-reduce")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = mesh_allreduce.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

# ---- the driver, written by PLD Workbench ----

_PLD_ENTRY = "mesh_allreduce"
_PLD_RANKS = 4
_PLD_FILL = "index"
_PLD_DATA_FILE = None
_PLD_DATA_SHA256 = None
_PLD_EXACT = False
_PLD_NO_GOLDEN = None

# (name, direction, torch dtype, shape, is scalar, scalar value), in the
# host orchestrator's signature order.
def _pld_params(torch):
    return [
    ("x", "in", torch.float32, (4, 1, 64), False, 0),
    ("y", "out", torch.float32, (4, 1, 64), False, 0),
    ]


def _pld_fill_values(dtype, n, fill, torch):
    if fill == "index":
        vals = list(range(n))
    elif fill == "ones":
        vals = [1] * n
    else:
        vals = [0] * n
    if dtype == torch.bool:
        return [v != 0 for v in vals]
    if dtype.is_floating_point:
        return [float(v) for v in vals]
    return vals


def _pld_read_data(path, torch):
    import hashlib
    import struct

    with open(path, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != _PLD_DATA_SHA256:
        raise SystemExit(f"{path}: its sha256 is not the one this script was exported with")
    return list(struct.unpack("<%dd" % (len(raw) // 8), raw))


def _pld_make_args(here, torch):
    args, tensors = [], {}
    data, at = None, 0
    if _PLD_DATA_FILE is not None:
        import os

        data = _pld_read_data(os.path.join(here, _PLD_DATA_FILE), torch)
    for name, direction, dtype, shape, scalar, value in _pld_params(torch):
        if scalar:
            args.append(value)
            continue
        n = _pld_numel(shape)
        if direction == "out":
            vals = _pld_fill_values(dtype, n, "zeros", torch)
        elif data is not None:
            vals, at = data[at : at + n], at + n
            if dtype == torch.bool:
                vals = [v != 0 for v in vals]
            elif not dtype.is_floating_point:
                vals = [int(v) for v in vals]
        else:
            vals = _pld_fill_values(dtype, n, _PLD_FILL, torch)
        t = torch.tensor(vals, dtype=dtype).reshape(shape)
        args.append(t)
        tensors[name] = t
    return args, tensors


# The golden, in plain Python over flat row-major lists: a tensor is
# (values, shape). It is the workbench's own check of this step, exported.
def _pld_numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _pld_row(t, r):
    vals, shape = t
    n = len(vals) // shape[0]
    return vals[r * n : (r + 1) * n]


def _pld_map_rows(t, f):
    out = []
    for r in range(t[1][0]):
        out.extend(f(r, _pld_row(t, r)))
    return (out, t[1])


def _pld_from_rank(t, src):
    return _pld_map_rows(t, lambda r, _row: _pld_row(t, src(r)))


def _pld_f32(v):
    import struct

    return struct.unpack("<f", struct.pack("<f", v))[0]


def _pld_sum_rows(t, g=lambda v: v):
    total = [0.0] * (len(t[0]) // t[1][0])
    for k in range(t[1][0]):
        for i, v in enumerate(_pld_row(t, k)):
            total[i] += g(v)
    return total


def _pld_allreduce_sum(p, inp):
    total = _pld_sum_rows(inp["x"])
    return {"y": _pld_map_rows(inp["x"], lambda r, row: total)}


def _pld_allreduce_with(f):
    def golden(p, inp):
        x = inp["x"]
        folded = list(_pld_row(x, 0))
        for k in range(1, p):
            folded = [f(a, b) for a, b in zip(folded, _pld_row(x, k))]
        return {"y": _pld_map_rows(x, lambda r, row: folded)}

    return golden


def _pld_zeros(*shape):
    return ([0] * _pld_numel(shape), tuple(shape))


def _pld_at(t, *idx):
    vals, shape = t
    flat = 0
    for i, d in zip(idx, shape):
        flat = flat * d + i
    return vals[flat]


def _pld_gather(x):
    p, n = x[1][0], x[1][2]
    return ([_pld_at(x, s, 0, j) for r in range(p) for s in range(p) for j in range(n)], (p, p, n))


def _pld_reduce_scatter(x):
    p, n = x[1][0], x[1][2]
    return ([sum(_pld_at(x, k, r, j) for k in range(p)) for r in range(p) for j in range(n)], (p, 1, n))


def _pld_transpose01(x):
    p, n = x[1][0], x[1][2]
    return ([_pld_at(x, s, r, j) for r in range(p) for s in range(p) for j in range(n)], (p, p, n))

golden = _pld_allreduce_sum


def _pld_close(got, want, exact):
    import math

    if exact:
        return got == want or (isinstance(got, float) and math.isnan(got) and math.isnan(want))
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return abs(got - want) <= 1e-5 + 1e-5 * abs(want)


def _pld_json_value(v):
    import math

    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def _pld_main():
    import argparse
    import json
    import os

    import torch
    from pypto import ir
    from pypto.ir.distributed_compiled_program import DistributedConfig
    from pypto.runtime import RunConfig

    ap = argparse.ArgumentParser(description="PLD Workbench export: " + _PLD_ENTRY)
    ap.add_argument("-p", "--platform", default="a2a3", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, exactly %d" % _PLD_RANKS)
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--swimlane", action="store_true", help="collect per-rank swimlane records")
    ap.add_argument("--output-dir", default=None, help="PyPTO's build directory (default: PyPTO's choice)")
    ap.add_argument("--manifest", default=None)
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",") if tok.strip()]
    if len(ids) != _PLD_RANKS:
        print(f"the program was checked and exported at {_PLD_RANKS} ranks: give exactly {_PLD_RANKS} device ids, got {ids}", file=_pld_sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    manifest_path = opts.manifest or os.path.splitext(os.path.abspath(__file__))[0] + ".manifest.json"
    manifest = {"workbench_export": 1, "entry": _PLD_ENTRY, "ranks": _PLD_RANKS, "platform": opts.platform,
                "device_ids": ids, "fill": _PLD_FILL, "status": "started", "outputs": {}, "mismatches": [], "dfx": {}}

    def write_manifest():
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, allow_nan=False)

    args, tensors = _pld_make_args(here, torch)
    dist = DistributedConfig(device_ids=ids, num_sub_workers=0)
    compile_config = RunConfig(platform=opts.platform, distributed_config=dist)
    if opts.output_dir:
        compile_config = RunConfig(platform=opts.platform, distributed_config=dist, save_kernels=True, save_kernels_dir=opts.output_dir)
    compiled = mesh_allreduce.compile(*args, config=compile_config)
    manifest["output_dir"] = str(compiled.output_dir)
    if opts.compile_only:
        manifest["status"] = "compiled"
        write_manifest()
        print(f"compiled for {_PLD_RANKS} ranks into {compiled.output_dir}")
        return 0

    if opts.swimlane:
        run_config = RunConfig(platform=opts.platform, enable_chip_swimlane=True, enable_dep_gen=True)
    else:
        run_config = RunConfig(platform=opts.platform)
    compiled(*args, config=run_config)

    outs = {}
    for name, direction, dtype, shape, scalar, value in _pld_params(torch):
        if scalar:
            continue
        t = tensors[name]
        flat = t.flatten().tolist()
        if direction != "in":
            outs[name] = (flat, tuple(shape))
            manifest["outputs"][name] = {"dtype": str(dtype).replace("torch.", ""), "shape": list(shape),
                                         "data": [_pld_json_value(v) for v in flat]}
    inp = {name: (tensors[name].flatten().tolist(), tuple(t.shape)) for name, t in tensors.items()}
    want = golden(_PLD_RANKS, inp)
    status = 0
    if want is None:
        manifest["status"] = "no_golden"
        manifest["no_golden"] = _PLD_NO_GOLDEN
    else:
        for name, (wvals, wshape) in sorted(want.items()):
            gvals = outs[name][0]
            bad = [i for i, (g, w) in enumerate(zip(gvals, wvals)) if not _pld_close(float(g), float(w), _PLD_EXACT)]
            if len(gvals) != len(wvals):
                bad = bad or [min(len(gvals), len(wvals))]
            if bad:
                i = bad[0]
                got = gvals[i] if i < len(gvals) else None
                manifest["mismatches"].append({"output": name, "wrong": len(bad), "of": len(wvals), "first": i,
                                               "got": _pld_json_value(got), "want": _pld_json_value(wvals[i]) if i < len(wvals) else None})
                print(f"{name}: {len(bad)} of {len(wvals)} elements wrong; element {i}: got {got}, want {wvals[i] if i < len(wvals) else None}", file=_pld_sys.stderr)
                status = 1
        manifest["status"] = "ok" if status == 0 else "mismatch"
    dfx = os.path.join(str(compiled.output_dir), "dfx_outputs")
    if os.path.isdir(dfx):
        for root, _dirs, files in sorted(os.walk(dfx)):
            rel = os.path.relpath(root, dfx)
            for fname in sorted(files):
                manifest["dfx"].setdefault(rel, []).append(os.path.join(root, fname))
    write_manifest()
    print("OK" if status == 0 else "MISMATCH", manifest_path)
    return status


if _pld_as_script:
    raise SystemExit(_pld_main())
