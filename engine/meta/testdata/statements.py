"""Statement semantics, checked name by name against CPython's results."""

# Loops: for over each iterable kind, break/continue, for-else, while-else.
over_range = [i * 10 for i in range(1, 4)]
over_str = []
for ch in "abc":
    over_str.append(ch.upper())
over_dict = []
for key in {"x": 1, "y": 2}:
    over_dict.append(key)
over_tuple = 0
for v in (5, 6, 7):
    over_tuple += v

found = None
for n in range(2, 30):
    if n % 7 == 0:
        found = n
        break
else:
    found = -1

no_break = []
for n in range(3):
    if n == 1:
        continue
    no_break.append(n)
else:
    no_break.append("else")

count = 0
while count < 5:
    count += 2
else:
    count = -count

nested = []
for i in range(3):
    for j in range(3):
        if j > i:
            break
        nested.append((i, j))

# Unpacking and augmented assignment.
a, b = 1, 2
a, b = b, a
(p, q), r = (3, 4), 5
head, *tail = [1, 2, 3, 4]
*init, last = "xyz"
for idx, (lo, hi) in enumerate([(0, 1), (2, 3)]):
    pass
x = y = 7
x += 1
grid = [[0] * 3 for _ in range(2)]
grid[1][2] += 5
text = "ab"
text *= 3
bits = 0b1010
bits |= 0b0101
bits <<= 2

# Lists are shared by reference; += extends in place.
shared = [1]
alias = shared
alias += [2]
alias.append(3)
copied = shared[:]
copied.append(99)
sliced = list(range(10))
sliced[2:5] = ["a"]
del sliced[0]
counts = {}
for word in "the cat the hat".split():
    counts[word] = counts.get(word, 0) + 1
del counts["cat"]

# Functions: defaults, keyword arguments, *args/**kwargs, closures.
def describe(name, size=64, *extra, sep=":", **opts):
    parts = [name, str(size)] + [str(e) for e in extra]
    for k in sorted(opts):
        parts.append(f"{k}={opts[k]}")
    return sep.join(parts)

d1 = describe("a")
d2 = describe("b", 8, 1, 2, sep="-", z=1, y=2)
d3 = describe(size=4, name="c")
d4 = describe(*["d", 16], **{"sep": "/", "mode": "ring"})

def make_counter(start):
    total = start
    def bump(by=1):
        nonlocal total
        total += by
        return total
    return bump

counter = make_counter(10)
counter()
counter(5)
c_value = counter(0)

def scaler(factor):
    return lambda v: v * factor

triple = scaler(3)
tripled = [triple(v) for v in range(4)]

default_list_calls = []
def remember(v, into=None):
    if into is None:
        into = []
    into.append(v)
    return into
default_list_calls.append(remember(1))
default_list_calls.append(remember(2))

LEVEL = 0
def raise_level():
    global LEVEL
    LEVEL += 1
    return LEVEL
raise_level()
raise_level()

def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
fibs = [fib(k) for k in range(10)]

def early(v):
    if v < 0:
        return "neg"
    elif v == 0:
        return "zero"
    return "pos"
signs = [early(v) for v in (-1, 0, 1)]

def no_return():
    pass
nothing = no_return()

# Comprehension variables do not leak; class bodies keep their own scope.
leak = "outer"
squares = [leak for leak in range(3)]
class Config:
    WIDTH = 4
    HEIGHT = WIDTH * 2
    def area(self):
        return 0
config_height = Config.HEIGHT

# try/except/else/finally and raise inside functions.
def safe_div(num, den):
    log = []
    try:
        out = num // den
    except ZeroDivisionError as e:
        log.append("zero")
        out = None
    else:
        log.append("ok")
    finally:
        log.append("done")
    return out, log

div_ok = safe_div(7, 2)
div_zero = safe_div(1, 0)

class RankError(ValueError):
    pass

def check_ranks(nr):
    if nr < 2:
        raise RankError(f"need two ranks, got {nr}")
    return nr

def guarded(nr):
    try:
        return check_ranks(nr)
    except ValueError as err:
        return "rejected: " + str(err)

guard_ok = guarded(4)
guard_bad = guarded(1)

def reraise():
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise
    except LookupError as e:
        return type(e) is KeyError, str(e)
reraised = reraise()

assert fib(10) == 55, "fib is broken"
flags = (isinstance(3, int), isinstance("s", (int, float)), bool([]), None is None)
summary = f"{len(fibs)} fibs, last={fibs[-1]:>4}, ratio={fibs[-1] / fibs[-2]:.3f}"
