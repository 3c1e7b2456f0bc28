"""Small deterministic CNF generators for the solver benchmarks and held-out requests.

Every generator returns ``(num_vars, clauses)`` with clauses as lists of
non-zero ints (``planted_3sat`` a model too); the same arguments (and seed)
always give the same formula.

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
* ``random_ksat(n, m, k, rng)``: m clauses of k distinct variables, random signs.
* ``tseitin(n, d, rng)``: the Tseitin parity formula of a random connected
  d-regular graph on n vertices with an odd total charge (unsatisfiable); a
  variable per edge, numbered as the vertices meet them.
* ``colouring(n, m, k, rng)``: k-colouring of a random graph with n vertices
  and m edges (every vertex a colour, at most one, ends of an edge differ).
* ``mutilated_chessboard(n)``: domino tiling of the n x n board without two
  opposite corners (unsatisfiable): a variable per domino place, every square
  covered exactly once.
* ``scramble(num_vars, clauses, rng)``: the same formula with variables renamed,
  signs flipped, clauses and their literals shuffled.
* ``planted_3sat(n, m, seed)``: m random 3-clauses over n variables, each
  true under a random model returned with them: satisfiable at any size.
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


def random_ksat(n: int, m: int, k: int, rng: random.Random) -> tuple[int, Clauses]:
    clauses: Clauses = []
    for _ in range(m):
        clauses.append([v if rng.random() < 0.5 else -v for v in rng.sample(range(1, n + 1), k)])
    return n, clauses


def exactly_one(lits: list[int]) -> Clauses:
    return [lits] + [[-a, -b] for a, b in itertools.combinations(lits, 2)]


def regular_graph(n: int, d: int, rng: random.Random) -> list[list[int]]:
    """Sorted neighbour lists of a connected simple d-regular graph (pairing
    model, drawn again until simple and connected); n * d must be even."""
    while True:
        stubs = [v for v in range(n) for _ in range(d)]
        rng.shuffle(stubs)
        edges = {tuple(sorted(stubs[i : i + 2])) for i in range(0, len(stubs), 2)}
        if len(edges) < n * d // 2 or any(a == b for a, b in edges):
            continue
        adj: list[list[int]] = [[] for _ in range(n)]
        for a, b in edges:
            adj[a].append(b)
            adj[b].append(a)
        seen, todo = {0}, [0]
        while todo:
            for w in adj[todo.pop()]:
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        if len(seen) == n:
            return [sorted(a) for a in adj]


def tseitin(n: int, d: int, rng: random.Random) -> tuple[int, Clauses]:
    """Vertex v says: the XOR of its edges is its charge; the charges sum to 1."""
    adj = regular_graph(n, d, rng)
    charge = [rng.randrange(2) for _ in range(n)]
    charge[rng.randrange(n)] ^= 1 - sum(charge) % 2
    edge: dict[tuple[int, int], int] = {}
    clauses: Clauses = []
    for v in range(n):
        lits = [edge.setdefault((min(v, w), max(v, w)), len(edge) + 1) for w in adj[v]]
        for mask in range(1 << d):  # forbid each assignment of the wrong parity
            if bin(mask).count("1") % 2 != charge[v]:
                clauses.append([-x if mask >> i & 1 else x for i, x in enumerate(lits)])
    return len(edge), clauses


def colouring(n: int, m: int, k: int, rng: random.Random) -> tuple[int, Clauses]:
    """Variable v*k + c + 1 says vertex v has colour c."""
    edges = sorted(rng.sample(list(itertools.combinations(range(n), 2)), m))
    clauses: Clauses = [[v * k + c + 1 for c in range(k)] for v in range(n)]
    for v in range(n):
        clauses.extend(exactly_one([v * k + c + 1 for c in range(k)])[1:])
    for a, b in edges:
        clauses.extend([-(a * k + c + 1), -(b * k + c + 1)] for c in range(k))
    return n * k, clauses


def mutilated_chessboard(n: int) -> tuple[int, Clauses]:
    squares = [(r, c) for r in range(n) for c in range(n)][1:-1]
    places: dict[tuple[int, int], list[int]] = {s: [] for s in squares}
    count = 0
    for r, c in squares:
        for other in ((r, c + 1), (r + 1, c)):
            if other in places:
                count += 1
                places[(r, c)].append(count)
                places[other].append(count)
    return count, [c for s in squares for c in exactly_one(places[s])]


def scramble(num_vars: int, clauses: Clauses, rng: random.Random) -> Clauses:
    names = list(range(1, num_vars + 1))
    rng.shuffle(names)
    sign = [0] + [rng.choice((1, -1)) for _ in range(num_vars)]
    out = [[names[abs(x) - 1] * sign[abs(x)] * (1 if x > 0 else -1) for x in c] for c in clauses]
    for c in out:
        rng.shuffle(c)
    rng.shuffle(out)
    return out


def planted_3sat(n: int, m: int, seed: int) -> tuple[int, Clauses, list[int]]:
    """m clauses of three distinct variables over n, each made true by a random
    model: ``(num_vars, clauses, model)``, the model as literals 1..n signed."""
    rng = random.Random(f"planted-{n}-{m}-{seed}")
    model = [v if rng.random() < 0.5 else -v for v in range(n + 1)]
    clauses: Clauses = []
    for _ in range(m):
        a, b, c = rng.randint(1, n), rng.randint(1, n), rng.randint(1, n)
        while b == a:
            b = rng.randint(1, n)
        while c in (a, b):
            c = rng.randint(1, n)
        clause = [v if rng.random() < 0.5 else -v for v in (a, b, c)]
        if not any(model[abs(lit)] == lit for lit in clause):
            clause[0] = -clause[0]  # now true under the model
        clauses.append(clause)
    return n, clauses, model[1:]


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
