#!/usr/bin/env python3
"""Reads a table exported by `pdbgen export --format raw` without the toolkit: the raw
values (one byte per entry, in index order) and the JSON sidecar beside them. Prints the
value of each state given, for pattern databases (index kperm-v1, see docs/FORMAT.md),
and the histogram of all values. Standard library only.

    python3 pdbread.py table.raw "1 4 2 3 13 6 7 8 5 10 11 0 9 14 15 12"

Output, one item a line: "value STATE: V", then "histogram D COUNT" for each value.
Public domain: copy it into your solver.
"""
import hashlib
import json
import sys
from collections import Counter


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


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: pdbread.py TABLE.raw [STATE ...]")
    with open(argv[1] + ".json") as f:
        side = json.load(f)
    with open(argv[1], "rb") as f:
        values = f.read()
    if len(values) != side["entries"] or hashlib.sha256(values).hexdigest() != side["sha256"]:
        sys.exit(f"pdbread: {argv[1]} does not match its sidecar")
    n = side["width"] * side["height"]
    for text in argv[2:]:
        state = [int(x) for x in text.replace(",", " ").replace("/", " ").split()]
        if len(state) != n or side["kind"] != "pdb":
            sys.exit(f"pdbread: {text} is not a state of {n} numbers for a pdb table")
        print(f"value {text}: {values[kperm_index(side, state)]}")
    for d, count in sorted(Counter(values).items()):
        print(f"histogram {d} {count}")


if __name__ == "__main__":
    main(sys.argv)
