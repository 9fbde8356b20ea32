package npu

// GoldenPrelude is the Python the exported goldens are written over: a
// tensor is (flat row-major values, shape), and these helpers are the
// shapes of the course's checks (tutorials/check/golden.go holds the same
// facts in Go, and a test there runs both on the same inputs).
const GoldenPrelude = `# The golden, in plain Python over flat row-major lists: a tensor is
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
`
