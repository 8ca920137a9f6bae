#!/usr/bin/env python3
"""Reads a table exported by `pdbgen export --format raw` without the toolkit: the raw
values (one byte per entry, in index order) and the JSON sidecar beside them. Prints the
value of each state given, for pattern databases (index kperm-v1, or zperm-v1 for the
zero-aware tables; see docs/FORMAT.md), and the histogram of all values. Standard
library only.

    python3 pdbread.py table.raw "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12"

Output, one item a line: "value STATE: V", then "histogram D COUNT" for each value.
Bad input (a missing or damaged file, a state that is not one) is reported in one line,
with exit status 1. Public domain: copy it into your solver.
"""
import hashlib
import json
import os
import stat
import sys
from collections import Counter
from itertools import combinations
from math import comb, factorial


def kperm_index(side, state):
    """The rank of the cells of the pattern tiles (then the blank) among all sequences."""
    n = side["width"] * side["height"]
    cell = {tile: c for c, tile in enumerate(state)}
    cells = [cell[t] for t in side["tiles"]] + ([cell[0]] if side["blank_in_index"] else [])
    index = 0
    for i, c in enumerate(cells):
        d = c - sum(1 for j in range(i) if cells[j] < c)
        index = index * (n - i) + d
    return index


def regions(width, height, occupied):
    """Numbers the regions of free cells (cells of no pattern tile, joined by edges) in the
    order of their smallest cells. Returns {cell: region} and the number of regions."""
    region, count = {}, 0
    for c in range(width * height):
        if c in occupied or c in region:
            continue
        region[c], stack = count, [c]
        while stack:
            x = stack.pop()
            row, col = divmod(x, width)
            for r, k in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                y = r * width + k
                if 0 <= r < height and 0 <= k < width and y not in occupied and y not in region:
                    region[y] = count
                    stack.append(y)
        count += 1
    return region, count


def zperm_first(side):
    """first[m]: the regions of all maps (sets of occupied cells) ranked below m. The rank of
    cells c0 < c1 < ... is the sum of comb(c_j, j+1). (5x5 with 6 tiles: 177,100 maps,
    some seconds in Python.)"""
    width, height, k = side["width"], side["height"], len(side["tiles"])
    counts = [0] * comb(width * height, k)
    for cells in combinations(range(width * height), k):
        m = sum(comb(c, j + 1) for j, c in enumerate(cells))
        counts[m] = regions(width, height, set(cells))[1]
    first = [0]
    for c in counts:
        first.append(first[-1] + c)
    return first


def zperm_index(side, state, first):
    """(first[map] + the blank's region) * k! + the rank of the tiles' order on the map."""
    cell = {tile: c for c, tile in enumerate(state)}
    cells = [cell[t] for t in side["tiles"]]
    k = len(cells)
    occupied = sorted(cells)
    m = sum(comb(c, j + 1) for j, c in enumerate(occupied))
    region = regions(side["width"], side["height"], set(cells))[0][cell[0]]
    places = [occupied.index(c) for c in cells]
    order = 0
    for i, p in enumerate(places):
        order = order * (k - i) + p - sum(1 for j in range(i) if places[j] < p)
    return (first[m] + region) * factorial(k) + order


# The sidecar is read as JSON with three limits the exporter never meets (the C reader
# keeps the same): ASCII only, nesting at most MAX_DEPTH deep, and each key this reader
# takes once at the top level. At most MAX_SIDECAR bytes.
MAX_SIDECAR = 1 << 20
MAX_DEPTH = 64
KEYS = ("kind", "index", "sha256", "width", "height", "entries", "blank_in_index", "zero_aware", "tiles")


class Pairs(list):
    """An object's pairs, in order (the sidecar's keys are checked for duplicates)."""


def regular(path):
    """Whether path names a regular file: a FIFO or a device could block a read."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def depth(text):
    """The deepest nesting of arrays and objects in JSON text, strings skipped."""
    deepest = level = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def sidecar(path):
    """The sidecar's top-level fields, as a dict; ValueError for one this reader refuses."""
    bad = ValueError(f"{path} does not describe a pattern database this reader knows")
    if not regular(path):
        raise ValueError(f"{path} is not a regular file")
    with open(path, "rb") as f:
        raw = f.read(MAX_SIDECAR + 1)
    if len(raw) > MAX_SIDECAR or any(b >= 0x80 for b in raw) or depth(raw.decode("ascii")) > MAX_DEPTH:
        raise bad
    top = json.loads(raw.decode("ascii"), object_pairs_hook=Pairs, parse_constant=refuse_constant)
    if not isinstance(top, Pairs):
        raise bad
    keys = [k for k, _ in top if k in KEYS]
    if len(keys) != len(set(keys)):
        raise ValueError(f"{path} gives a field twice")
    return {k: v for k, v in top if k in KEYS}


def read(path):
    """The sidecar and the values, checked against each other."""
    side = sidecar(path + ".json")
    whole = lambda x: isinstance(x, int) and not isinstance(x, bool)
    width, height, tiles = side.get("width"), side.get("height"), side.get("tiles")
    if not (whole(width) and whole(height) and width > 0 and height > 0 and width * height <= 25
            and isinstance(tiles, list) and tiles and all(whole(t) for t in tiles) and whole(side.get("entries"))
            and side["entries"] > 0 and isinstance(side.get("sha256"), str) and isinstance(side.get("kind"), str)
            and isinstance(side.get("index"), str) and isinstance(side.get("blank_in_index"), bool)
            and isinstance(side.get("zero_aware"), bool)):
        raise ValueError(f"{path}.json does not describe a pattern database this reader knows")
    n = width * height
    if side["kind"] != "pdb" or any(not 0 < t < n for t in tiles) or len(set(tiles)) != len(tiles):
        raise ValueError(f"{path}.json does not describe a pattern database this reader knows")
    zero = side["index"] == "zperm-v1"
    if side["index"] not in ("kperm-v1", "zperm-v1") or zero != side["zero_aware"] or (zero and side["blank_in_index"]):
        raise ValueError(f"{path}.json: index {side['index']!r} is not one this reader knows")
    k = len(tiles)
    if zero:
        # The size of the index bounded before its regions are counted (minutes for many
        # tiles): each map has one region of free cells at least, as many as free cells at most.
        lo = comb(n, k) * factorial(k)
        if not lo <= side["entries"] <= lo * max(n - k, 1):
            raise ValueError(f"{path}.json says {side['entries']} entries; its index has {lo} to {lo * max(n - k, 1)}")
    else:
        want = factorial(n) // factorial(n - k - side["blank_in_index"]) if k + side["blank_in_index"] <= n else 0
        if side["entries"] != want:
            raise ValueError(f"{path}.json says {side['entries']} entries; its index has {want}")
    if not regular(path):
        raise ValueError(f"{path} is not a regular file")
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size != side["entries"]:
            raise ValueError(f"{path} does not hold the {side['entries']} entries its sidecar says")
        values = f.read()
    if len(values) != side["entries"] or hashlib.sha256(values).hexdigest() != side["sha256"]:
        raise ValueError(f"{path} does not match its sidecar")
    return side, values


def parse_state(text, n):
    """The numbers of a state: each of 0 to n-1 once."""
    try:
        state = [int(x) for x in text.replace(",", " ").replace("/", " ").split()]
    except ValueError:
        state = []
    if sorted(state) != list(range(n)):
        raise ValueError(f"{text!r} is not a state: it needs each number from 0 to {n - 1} once")
    return state


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: pdbread.py TABLE.raw [STATE ...]")
    try:
        side, values = read(argv[1])
        n = side["width"] * side["height"]
        first = zperm_first(side) if side["index"] == "zperm-v1" else None
        if first is not None and first[-1] * factorial(len(side["tiles"])) != side["entries"]:
            raise ValueError(f"{argv[1]}.json: {side['entries']} entries, where the index has {first[-1] * factorial(len(side['tiles']))}")
        for text in argv[2:]:
            state = parse_state(text, n)
            index = zperm_index(side, state, first) if first is not None else kperm_index(side, state)
            if index >= len(values):
                raise ValueError(f"{text!r}: index {index} beyond the {len(values)} entries")
            print(f"value {text}: {values[index]}")
    except (OSError, ValueError, KeyError, TypeError, RecursionError, MemoryError) as e:
        if isinstance(e, KeyError):
            e = f"the sidecar has no {e}"
        elif isinstance(e, (RecursionError, MemoryError)):
            e = f"{argv[1]}.json is nested or large beyond what this reader takes"
        sys.exit(f"pdbread: {e}")
    for d, count in sorted(Counter(values).items()):
        print(f"histogram {d} {count}")


if __name__ == "__main__":
    main(sys.argv)
