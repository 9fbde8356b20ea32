#!/usr/bin/env python3
# Harness-style Python the parser must read even though the engine never
# runs it: every statement form, odd literals and layout rules.
import os.path as osp
import collections.abc
from os import path as p2, sep
from collections import (
    OrderedDict,
    defaultdict as dd,
)
from . import sibling
from ..pkg.mod import *

COUNT: int = 3
LIMIT: int
TABLE = {"a": 1, "b": 2, **{"c": 3}}
UNIQUE = {1, 2, 3}
EMPTY = ((), [], {})
NUMBERS = [0, 7, 0x1F, 0o17, 0b1010, 1_000_000, 0xdead_beef, 00, 3.25, .5, 10., 1e-5, 2E+3, 1_000.000_1]
TEXTS = ['single', "double", '''triple
single''', """triple "double" quotes""", r'raw \d+', b'bytes\x00', Rb"\raw", u"unicode"]
ESCAPES = "tab\tnewline\nquote\"backslash\\octal\101hex\x41unicode\u00e9wide\U0001F600"
JOINED = "adjacent " 'strings ' "join"
LONG = 1 + \
    2 + \
    3
state = None


def counter(start=0, step=1, *rest, stop, verbose=False, **extra):
    global state
    n = start
    while True:
        if stop is not None and n >= stop:
            break
        elif n % 2 == 0:
            n += step
            continue
        n += step; state = n
    else:
        pass
    return n


def shapes(grid):
    first, *middle, last = grid
    (a, b), c = (1, 2), 3
    [d, e] = [4, 5]
    grid[0][1] = grid[1][0] = 0
    grid[0] *= 2
    grid[1] **= 2
    grid[2] //= 3
    grid[3] >>= 1
    del grid[0], middle
    chained = 0 <= a < b <= c != d == d
    power = -2 ** 2 == -4 and 2 ** -1 == 0.5 and 2 ** 3 ** 2 == 512
    mask = ~a & 0xFF | b ^ c << 2 >> 1
    mixed = a + b * c - d / e // 2 % 3
    flags = not a or b and not c
    picked = a if b > c else c if d else e
    ident = a is not None and b is None and c not in grid and d in grid
    return first, last, chained, power, mask, mixed, flags, picked, ident


def formats(value, width=8, places=3):
    items = {"k": value}
    lines = [
        f"{value!r:>{width}}",
        f"{value:.{places}f} and {{braces}} and {value!s}",
        f"{items['k']} / {items.get('k') if False else 0}" if False else f"{items['k']}",
        F"{'yes' if value else 'no'}",
        rf"\d{value}",
        f"""multi-line {
            value + 1
        } field""",
        f"{value=}",
        "plain " f"then {value:x}" " tail",
    ]
    return "\n".join(lines)


class Registry(collections.abc.Mapping, metaclass=type):
    """A small mapping with a nested helper class."""

    kinds: dict = {}

    class Entry:
        def __init__(self, name, *, weight=1.0):
            self.name = name
            self.weight = weight

        def __repr__(self):
            return f"Entry({self.name!r}, weight={self.weight})"

    def __init__(self, **entries):
        self._items = dict(entries)

    def __getitem__(self, key):
        try:
            return self._items[key]
        except KeyError as exc:
            raise LookupError(f"no entry {key!r}") from exc
        finally:
            pass

    def __iter__(self):
        return iter(sorted(self._items, key=lambda k: (len(k), k)))

    def __len__(self):
        return len(self._items)


def files(paths):
    out = []
    for path in paths:
        if not osp.exists(path):
            continue
        with open(path) as fh, open(path + ".bak", "w") as backup:
            backup.write(fh.read())
        out.append(path)
    else:
        out.sort()
    try:
        os_name = osp.sep
    except (OSError, ValueError):
        os_name = None
    except Exception:
        raise
    else:
        assert os_name, "no separator"
    gen = sum(len(q) for q in out)
    table = {k: [v for v in range(k) if v % 2] for k in range(4)}
    squares = {i * i for i in range(5)}
    return out, gen, table, squares, os_name, [*out, *paths], print(*out, sep="\n")
