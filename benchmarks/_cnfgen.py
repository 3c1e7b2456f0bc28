"""Small deterministic CNF generators for the solver-output benchmark.

Every generator returns ``(num_vars, clauses)`` with clauses as lists of
non-zero ints; the same arguments (and seed) always give the same formula.

* ``pigeonhole(n)``: php(n+1, n), n+1 pigeons in n holes; unsatisfiable,
  and hard for resolution (proofs grow exponentially with n).
* ``random_3sat(n, seed, ratio)``: ``round(ratio * n)`` clauses of three
  distinct variables with random signs; near ratio 4.26 about half are
  satisfiable.
* ``magma(k)``: a binary operation on {0..k-1} that is a quasigroup (its
  table a latin square), commutative (x*y = y*x) and idempotent (x*x = x).
  Such an operation exists exactly when k is odd: in a commutative latin
  square every symbol fills the off-diagonal cells in pairs, so it appears
  on the diagonal k mod 2 times, while idempotence puts each symbol on the
  diagonal once. Even k is unsatisfiable (a parity argument, hard for
  resolution); odd k is satisfiable.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

Clauses = list[list[int]]


def pigeonhole(n: int) -> tuple[int, Clauses]:
    """php(n+1, n): variable p(i, j) says pigeon i sits in hole j."""

    def p(i: int, j: int) -> int:
        return i * n + j + 1

    clauses: Clauses = [[p(i, j) for j in range(n)] for i in range(n + 1)]
    for j in range(n):
        for a, b in itertools.combinations(range(n + 1), 2):
            clauses.append([-p(a, j), -p(b, j)])
    return (n + 1) * n, clauses


def random_3sat(n: int, seed: int, ratio: float = 4.26) -> tuple[int, Clauses]:
    """Uniform random 3-SAT over n variables, seeded."""
    rng = random.Random(f"3sat-{n}-{seed}-{ratio}")
    clauses: Clauses = []
    for _ in range(round(ratio * n)):
        chosen = rng.sample(range(1, n + 1), 3)
        clauses.append([v if rng.random() < 0.5 else -v for v in chosen])
    return n, clauses


def magma(k: int) -> tuple[int, Clauses]:
    """Idempotent commutative quasigroup of order k: variable m(x, y, z) says x*y = z."""

    def m(x: int, y: int, z: int) -> int:
        return (x * k + y) * k + z + 1

    r = range(k)
    clauses: Clauses = []
    for x, y in itertools.product(r, r):
        clauses.append([m(x, y, z) for z in r])  # every cell has a value
        for z1, z2 in itertools.combinations(r, 2):
            clauses.append([-m(x, y, z1), -m(x, y, z2)])  # at most one
    for a, z in itertools.product(r, r):
        clauses.append([m(a, y, z) for y in r])  # z in every row
        clauses.append([m(x, a, z) for x in r])  # z in every column
        for b1, b2 in itertools.combinations(r, 2):
            clauses.append([-m(a, b1, z), -m(a, b2, z)])  # once a row
            clauses.append([-m(b1, a, z), -m(b2, a, z)])  # once a column
    for x, y in itertools.combinations(r, 2):
        for z in r:  # commutative
            clauses.append([-m(x, y, z), m(y, x, z)])
            clauses.append([-m(y, x, z), m(x, y, z)])
    for x in r:  # idempotent
        clauses.append([m(x, x, x)])
    return k * k * k, clauses


def write_dimacs(path: Path, num_vars: int, clauses: Clauses, comment: str = "") -> None:
    lines = [f"c {comment}"] if comment else []
    lines.append(f"p cnf {num_vars} {len(clauses)}")
    lines.extend(" ".join(map(str, c)) + " 0" for c in clauses)
    path.write_text("\n".join(lines) + "\n")


def family(name: str, *args: int) -> tuple[int, Clauses]:
    """``family("php", 6)``, ``family("3sat", 150, 2)``, ``family("magma", 6)``."""
    if name == "php":
        return pigeonhole(*args)
    if name == "3sat":
        return random_3sat(*args)
    if name == "magma":
        return magma(*args)
    raise ValueError(f"unknown family {name!r}")
