"""Seeded generators of unsat requests, mostly with valid DRUP proofs.

Requests are dicts in the contract's JSON form::

    {"cnf": {"num_vars": n, "clauses": [[...], ...]}, "claim": "unsat",
     "proof": [{"add": [...]}, {"delete": [...]}, ...]}

* ``random_request(rng)`` draws a small CNF (random k-SAT, pigeonhole, an
  implication chain) and proves it with a tiny CDCL solver that logs every
  learned clause and every deletion (DRUP).  The solver deletes learned and
  original clauses at restarts, including reasons of level-0 literals, and then
  recomputes its level-0 state from scratch, as the checker does (SPEC §4.2),
  so its proofs stay valid.  Satisfiable CNFs give proofs without the empty
  clause.
* ``resolution_request(rng)`` adds random resolvents (RUP by construction) and
  random deletions, without searching for the empty clause.
* ``mutate(request, rng)`` breaks a request in one of the ways proofs go wrong.
* ``to_flat(request)`` gives the kernels' flat arrays.

Everything is a function of the ``random.Random`` passed in.
"""

import random
from array import array
from typing import Any

from sat_claim_check._core.codes import (
    STEP_ADD,
    STEP_ADD_OUT_OF_RANGE,
    STEP_DELETE,
    STEP_DELETE_NO_MATCH,
)

# -- CNFs ------------------------------------------------------------------------


def random_ksat(rng, num_vars, num_clauses, k):
    clauses = []
    for _ in range(num_clauses):
        width = min(k, num_vars)
        chosen = rng.sample(range(1, num_vars + 1), width)
        clauses.append([v if rng.random() < 0.5 else -v for v in chosen])
    return clauses


def pigeonhole(pigeons, holes):
    """Pigeon p in hole h is variable p*holes + h + 1."""

    def var(p, h):
        return p * holes + h + 1

    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    for h in range(holes):
        for p in range(pigeons):
            for q in range(p + 1, pigeons):
                clauses.append([-var(p, h), -var(q, h)])
    return pigeons * holes, clauses


def chain(length, closed=True):
    """x1 and x1 -> x2 -> ... -> xn (and not xn when closed): long propagation."""
    clauses = [[1]] + [[-i, i + 1] for i in range(1, length)]
    if closed:
        clauses.append([-length])
    return length, clauses


def random_cnf(rng):
    """A small CNF, usually unsatisfiable, with occasional oddities."""
    pick = rng.random()
    if pick < 0.55:
        n = rng.randint(3, 16)
        k = rng.choice((2, 3, 3, 3, 4))
        ratio = {2: 1.6, 3: 5.5, 4: 11.0}[k] * rng.uniform(0.7, 1.5)
        clauses = random_ksat(rng, n, max(1, int(n * ratio)), k)
    elif pick < 0.75:
        holes = rng.randint(1, 4)
        n, clauses = pigeonhole(holes + 1, holes)
    elif pick < 0.85:
        n, clauses = chain(rng.randint(2, 12), closed=rng.random() < 0.8)
        rng.shuffle(clauses)
    else:
        n = rng.randint(1, 8)
        clauses = random_ksat(rng, n, rng.randint(1, 4 * n), rng.randint(1, 3))
    # Oddities the checker must take as given: duplicates, repeats, tautologies.
    if rng.random() < 0.2 and clauses:
        clauses.append(list(rng.choice(clauses)))
    if rng.random() < 0.15 and clauses:
        c = rng.choice(clauses)
        c.append(rng.choice(c))
    if rng.random() < 0.1:
        v = rng.randint(1, n)
        clauses.append([v, -v] + ([rng.randint(1, n)] if rng.random() < 0.5 else []))
    if rng.random() < 0.1:
        clauses.append([rng.choice((1, -1)) * rng.randint(1, n)])
    if rng.random() < 0.03:
        clauses.insert(rng.randint(0, len(clauses)), [])
    rng.shuffle(clauses)
    return n, clauses


# -- a tiny CDCL solver that writes DRUP -------------------------------------------


class _Solver:
    """CDCL with 1UIP learning, restarts and clause deletion; logs DRUP steps."""

    def __init__(self, num_vars, clauses, rng):
        self.n = num_vars
        self.rng = rng
        self.db = {}  # id -> distinct literals
        self.learned = set()
        self.occ = {}  # literal -> ids of clauses containing it
        self.proof = []
        self.next_id = 0
        self.empty = False
        for c in clauses:
            self._add_clause(c)

    def _add_clause(self, lits):
        cid = self.next_id
        self.next_id += 1
        distinct = list(dict.fromkeys(lits))
        if not distinct:
            self.empty = True
        self.db[cid] = distinct
        for lit in distinct:
            self.occ.setdefault(lit, set()).add(cid)
        return cid

    def _delete_clause(self, cid):
        lits = self.db.pop(cid)
        self.learned.discard(cid)
        for lit in lits:
            self.occ[lit].discard(cid)
        shown = list(lits)
        self.rng.shuffle(shown)  # a delete matches the literal set
        if shown and self.rng.random() < 0.1:
            shown.append(shown[0])
        self.proof.append({"delete": shown})

    # assignment
    def _value(self, lit):
        v = self.val[abs(lit)]
        return v if lit > 0 else (None if v is None else not v)

    def _assign(self, lit, reason):
        self.val[abs(lit)] = lit > 0
        self.level[abs(lit)] = len(self.lim)
        self.reason[abs(lit)] = reason
        self.trail.append(lit)

    def _backtrack(self, level):
        if len(self.lim) <= level:
            return
        cut = self.lim[level]
        for lit in self.trail[cut:]:
            self.val[abs(lit)] = None
        del self.trail[cut:]
        del self.lim[level:]
        self.qhead = min(self.qhead, cut)

    def _propagate(self):
        while self.qhead < len(self.trail):
            x = self.trail[self.qhead]
            self.qhead += 1
            for cid in sorted(self.occ.get(-x, ())):
                unassigned = None
                count = 0
                satisfied = False
                for lit in self.db[cid]:
                    v = self._value(lit)
                    if v is True:
                        satisfied = True
                        break
                    if v is None:
                        count += 1
                        unassigned = lit
                if satisfied:
                    continue
                if count == 0:
                    return cid
                if count == 1:
                    self._assign(unassigned, cid)
        return None

    def _level0(self):
        """Recompute level 0 from scratch: units, then propagation of everything."""
        self.val = [None] * (self.n + 1)
        self.level = [0] * (self.n + 1)
        self.reason = [None] * (self.n + 1)
        self.trail = []
        self.lim = []
        self.qhead = 0
        for cid in sorted(self.db):
            lits = self.db[cid]
            unassigned = [lit for lit in lits if self._value(lit) is None]
            if any(self._value(lit) is True for lit in lits):
                continue
            if not unassigned:
                return cid
            if len(unassigned) == 1:
                self._assign(unassigned[0], cid)
                conflict = self._propagate()
                if conflict is not None:
                    return conflict
        return self._propagate()

    def _analyze(self, conflict):
        seen = set()
        out = [None]
        path = 0
        p = None
        idx = len(self.trail) - 1
        current = len(self.lim)
        clause = self.db[conflict]
        while True:
            for q in clause:
                if q == p:
                    continue
                v = abs(q)
                if v not in seen and self.level[v] > 0:
                    seen.add(v)
                    if self.level[v] >= current:
                        path += 1
                    else:
                        out.append(q)
            while abs(self.trail[idx]) not in seen:
                idx -= 1
            p = self.trail[idx]
            idx -= 1
            seen.discard(abs(p))
            path -= 1
            if path <= 0:
                break
            clause = self.db[self.reason[abs(p)]]
        out[0] = -p
        back = max((self.level[abs(q)] for q in out[1:]), default=0)
        return out, back

    def _reduce(self):
        """At level 0: delete some clauses, then rebuild level 0 as the checker does."""
        rng = self.rng
        learned = sorted(self.learned)
        rng.shuffle(learned)
        for cid in learned[: len(learned) // 2]:
            self._delete_clause(cid)
        if rng.random() < 0.3:
            # Reasons of level-0 literals too: the checker rebuilds then.
            reasons = sorted({r for r in self.reason if r is not None and r in self.db})
            for cid in reasons[: rng.randint(0, 2)]:
                self._delete_clause(cid)
        if rng.random() < 0.15 and self.db:
            self._delete_clause(rng.choice(sorted(self.db)))

    def solve(self, max_conflicts):
        """Return True (unsat, proof ends with the empty clause), False (sat) or None."""
        if self.empty:
            return True
        conflict = self._level0()
        if conflict is not None:
            self.proof.append({"add": []})
            return True
        conflicts = 0
        restart_at = self.rng.randint(3, 12)
        while True:
            conflict = self._propagate()
            if conflict is not None:
                conflicts += 1
                if not self.lim:
                    self.proof.append({"add": []})
                    return True
                learnt, back = self._analyze(conflict)
                shown = list(learnt)
                if len(shown) > 1 and self.rng.random() < 0.3:
                    self.rng.shuffle(shown)
                if shown and self.rng.random() < 0.05:
                    shown.append(shown[-1])
                self.proof.append({"add": shown})
                self._backtrack(back)
                cid = self._add_clause(learnt)
                self.learned.add(cid)
                self._assign(learnt[0], cid)
                if conflicts > max_conflicts:
                    return None
                if conflicts >= restart_at:
                    restart_at = conflicts + self.rng.randint(3, 15)
                    self._backtrack(0)
                    self._reduce()
                    conflict = self._level0()
                    if conflict is not None:
                        self.proof.append({"add": []})
                        return True
                continue
            free = [v for v in range(1, self.n + 1) if self.val[v] is None]
            if not free:
                return False
            v = self.rng.choice(free)
            self.lim.append(len(self.trail))
            self._assign(v if self.rng.random() < 0.5 else -v, None)


def cdcl_proof(num_vars, clauses, rng, max_conflicts=150):
    """(proof steps, verdict) for a CNF: verdict True unsat, False sat, None gave up."""
    solver = _Solver(num_vars, clauses, rng)
    verdict = solver.solve(max_conflicts)
    return solver.proof, verdict


# -- requests ----------------------------------------------------------------------


def _request(num_vars, clauses, proof):
    return {
        "cnf": {"num_vars": num_vars, "clauses": [list(c) for c in clauses]},
        "claim": "unsat",
        "proof": [dict(s) for s in proof],
    }


def random_request(rng):
    """A CNF and its CDCL proof; sometimes with extra steps after the empty clause."""
    n, clauses = random_cnf(rng)
    proof, verdict = cdcl_proof(n, clauses, rng)
    if verdict and rng.random() < 0.1:
        proof.extend(_random_steps(rng, n, clauses, rng.randint(1, 4)))
    return _request(n, clauses, proof)


def resolution_request(rng, steps=None):
    """Random resolvents of live clauses (RUP by construction) and deletions."""
    n, clauses = random_cnf(rng)
    live = [list(dict.fromkeys(c)) for c in clauses]
    proof = []
    for _ in range(steps if steps is not None else rng.randint(1, 30)):
        if live and rng.random() < 0.25:
            c = live.pop(rng.randrange(len(live)))
            proof.append({"delete": rng.sample(c, len(c))})
            continue
        resolvent = _resolvent(rng, live)
        if resolvent is None:
            break
        live.append(resolvent)
        proof.append({"add": resolvent})
    if rng.random() < 0.5:
        proof.append({"add": []})
    return _request(n, clauses, proof)


def _resolvent(rng, live):
    by_lit = {}
    for i, c in enumerate(live):
        for lit in c:
            by_lit.setdefault(lit, []).append(i)
    pivots = [lit for lit in by_lit if lit > 0 and -lit in by_lit]
    if not pivots:
        return None
    x = rng.choice(sorted(pivots))
    a = live[rng.choice(by_lit[x])]
    b = live[rng.choice(by_lit[-x])]
    return list(dict.fromkeys([*(lit for lit in a if lit != x), *(lit for lit in b if lit != -x)]))


def _random_clause(rng, n, width=None):
    width = rng.randint(0, 4) if width is None else width
    return [rng.choice((1, -1)) * rng.randint(1, max(n, 1)) for _ in range(width)]


def _random_steps(rng, n, clauses, count):
    steps = []
    for _ in range(count):
        if clauses and rng.random() < 0.5:
            steps.append({"delete": list(rng.choice(clauses))})
        else:
            steps.append({"add": _random_clause(rng, n)})
    return steps


# -- mutations ----------------------------------------------------------------------


MUTATIONS = (
    "drop",
    "swap",
    "move",
    "duplicate",
    "delete_clause",
    "delete_unit",
    "delete_absent",
    "out_of_range",
    "literal_zero",
    "tautology",
    "duplicate_literal",
    "permute_literals",
    "empty_in_cnf",
    "after_empty",
    "random_add",
    "truncate",
)


def mutate(request, rng, kind=None):
    """A copy of ``request`` broken in one way (``kind`` from MUTATIONS, or random).

    Every mutation keeps the CNF valid for §2, so ``to_flat`` accepts the result.
    """
    out = _request(request["cnf"]["num_vars"], request["cnf"]["clauses"], request["proof"])
    n = out["cnf"]["num_vars"]
    clauses = out["cnf"]["clauses"]
    proof = out["proof"]
    kind = kind or rng.choice(MUTATIONS)
    pos = rng.randint(0, len(proof))
    added = [s["add"] for s in proof if "add" in s]

    def some_step():
        return rng.randrange(len(proof)) if proof else None

    if kind == "drop" and proof:
        del proof[some_step()]
    elif kind == "swap" and len(proof) > 1:
        i, j = some_step(), some_step()
        proof[i], proof[j] = proof[j], proof[i]
    elif kind == "move" and proof:
        step = proof.pop(some_step())
        proof.insert(rng.randint(0, len(proof)), step)
    elif kind == "duplicate" and proof:
        i = some_step()
        proof.insert(rng.randint(i, len(proof)), dict(proof[i]))
    elif kind == "delete_clause" and (clauses or added):
        proof.insert(pos, {"delete": list(rng.choice(clauses + added))})
    elif kind == "delete_unit":
        units = [c for c in clauses + added if len(set(c)) == 1]
        short = units or sorted(clauses + added, key=len)[:3]
        if short:
            proof.insert(pos, {"delete": list(rng.choice(short))})
    elif kind == "delete_absent":
        proof.insert(pos, {"delete": _random_clause(rng, n, rng.randint(1, 5))})
    elif kind == "out_of_range":
        lits = _random_clause(rng, n, rng.randint(0, 3))
        lits.insert(rng.randint(0, len(lits)), rng.choice((1, -1)) * (n + rng.randint(1, 3)))
        proof.insert(pos, {rng.choice(("add", "delete")): lits})
    elif kind == "literal_zero":
        lits = _random_clause(rng, n, rng.randint(0, 3))
        lits.insert(rng.randint(0, len(lits)), 0)
        proof.insert(pos, {rng.choice(("add", "delete")): lits})
    elif kind == "tautology" and n >= 1:
        v = rng.randint(1, n)
        lits = [*_random_clause(rng, n, rng.randint(0, 3)), v, -v]
        rng.shuffle(lits)
        proof.insert(pos, {rng.choice(("add", "add", "delete")): lits})
    elif kind == "duplicate_literal" and proof:
        step = proof[some_step()]
        ((_, lits),) = step.items()
        if lits:
            lits.insert(rng.randint(0, len(lits)), rng.choice(lits))
    elif kind == "permute_literals" and proof:
        step = proof[some_step()]
        ((_, lits),) = step.items()
        rng.shuffle(lits)
    elif kind == "empty_in_cnf":
        clauses.insert(rng.randint(0, len(clauses)), [])
    elif kind == "after_empty":
        proof.append({"add": []})
        proof.extend(_random_steps(rng, n, clauses + added, rng.randint(1, 5)))
    elif kind == "random_add":
        proof.insert(pos, {"add": _random_clause(rng, n)})
    elif kind == "truncate" and proof:
        del proof[rng.randint(0, len(proof) - 1) :]
    return out


def case(rng):
    """One request for agreement tests: mostly valid proofs, some mutated."""
    pick = rng.random()
    request = random_request(rng) if pick < 0.7 else resolution_request(rng)
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        request = mutate(request, rng)
    return request


def cases(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        yield case(rng)


# -- the kernels' flat arrays -----------------------------------------------------------


def to_flat(request):
    """(num_vars, clause_offsets, clause_lits, step_kinds, step_offsets, step_lits).

    Steps are classified as the reference kernel's docstring says: an add or a
    delete with a literal outside 1..num_vars gets its own kind.  A CNF literal
    out of range is a ValueError (the validator rejects such requests).
    """
    n = request["cnf"]["num_vars"]
    clause_offsets = array("i", [0])
    clause_lits = array("i")
    for clause in request["cnf"]["clauses"]:
        for lit in clause:
            if not 1 <= abs(lit) <= n:
                raise ValueError(f"CNF literal {lit} out of range for num_vars {n}")
        clause_lits.extend(clause)
        clause_offsets.append(len(clause_lits))
    step_kinds = array("b")
    step_offsets = array("i", [0])
    step_lits = array("i")
    for step in request.get("proof", ()):
        ((key, lits),) = step.items()
        in_range = all(1 <= abs(lit) <= n for lit in lits)
        if key == "add":
            step_kinds.append(STEP_ADD if in_range else STEP_ADD_OUT_OF_RANGE)
        else:
            step_kinds.append(STEP_DELETE if in_range else STEP_DELETE_NO_MATCH)
        step_lits.extend(lits)
        step_offsets.append(len(step_lits))
    return n, clause_offsets, clause_lits, step_kinds, step_offsets, step_lits


# -- hypothesis: small arbitrary unsat requests over 4 variables, small caps ------------


def _small_requests() -> Any:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    lits = st.integers(-4, 4).filter(bool)
    wider = st.integers(-5, 5).filter(bool)
    steps = st.lists(
        st.one_of(
            st.fixed_dictionaries({"add": st.lists(lits, max_size=3)}),
            # deletes reach one variable further: a literal out of range matches nothing
            st.fixed_dictionaries({"delete": st.lists(wider, max_size=3)}),
        ),
        max_size=10,
    )
    ask = given(
        clauses=st.lists(st.lists(lits, max_size=3), max_size=7),
        proof=steps,
        cap=st.integers(0, 30),
    )
    keep = settings(
        max_examples=300,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    return lambda test: keep(ask(test))


# The decorator of a test(clauses, proof, cap): up to 7 clauses, 10 steps, a cap 0..30.
small_requests = _small_requests()
