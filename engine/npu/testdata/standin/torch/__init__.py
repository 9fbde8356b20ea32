# A STAND-IN for torch, written for PLD Workbench's tests; it is not torch.
"""Just enough of torch for an exported script's driver to run without torch:
dtypes, torch.tensor, reshape, flatten, tolist and shape. A tensor is a flat
Python list shared by its views, so a write through one view (the stand-in
pypto writing outputs) is seen through the others, as with torch's views.
"""

import struct

__version__ = "0.0.0+standin"


class dtype:
    def __init__(self, name, floating):
        self.name = name
        self.is_floating_point = floating

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", True)
float16 = dtype("float16", True)
bfloat16 = dtype("bfloat16", True)
int8 = dtype("int8", False)
int16 = dtype("int16", False)
int32 = dtype("int32", False)
int64 = dtype("int64", False)
uint8 = dtype("uint8", False)
bool = dtype("bool", False)  # noqa: A001 - torch's own name


def _convert(v, dt):
    if dt is float32:
        return struct.unpack("<f", struct.pack("<f", float(v)))[0]
    if dt is float16:
        return struct.unpack("<e", struct.pack("<e", float(v)))[0]
    if dt is bool:
        return v != 0
    if dt.is_floating_point:
        return float(v)
    return int(v)


class Tensor:
    def __init__(self, store, shape, dt):
        self._store, self.shape, self.dtype = store, tuple(shape), dt

    def reshape(self, shape):
        n = 1
        for d in shape:
            n *= d
        if n != len(self._store):
            raise RuntimeError(f"shape {tuple(shape)} is invalid for input of size {len(self._store)}")
        return Tensor(self._store, shape, self.dtype)

    def flatten(self):
        return Tensor(self._store, (len(self._store),), self.dtype)

    def tolist(self):
        if len(self.shape) != 1:
            raise NotImplementedError("the stand-in's tolist is for flat tensors")
        return list(self._store)

    def numel(self):
        return len(self._store)


def tensor(values, dtype=float32):
    return Tensor([_convert(v, dtype) for v in values], (len(values),), dtype)
