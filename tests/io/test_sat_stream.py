"""A sat claim from files, checked as the CNF streams (``_io.sat_stream``):
the same result object, the same error (object, message, hint) and the
same notes as the CNF and the model read whole and then checked
(``parse_files`` + ``run_parsed``, the in-memory path), through both builds
of the scanner; and memory that follows the model, not the formula."""

from __future__ import annotations

import gzip
import json
import random
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check import dimacs
from sat_claim_check._core.report import Report
from sat_claim_check._engines import scan_c, scan_py
from sat_claim_check._io import bounds
from sat_claim_check._io.dimacs_text import LONGEST_RUN
from sat_claim_check.errors import CheckError

UNLIMITED = scc.Limits.unlimited()
SMALL = scc.Limits(max_vars=50, max_clauses=40, max_total_literals=90, max_assignment_literals=30)


def outcome(run: Any) -> Any:
    """What a door answered: the result dict, or the error's object, text and hint."""
    notes: list[str] = []
    try:
        report = run(notes.append)
    except (CheckError, OSError) as err:
        return (
            type(err).__name__,
            err.to_dict() if isinstance(err, CheckError) else None,
            str(err),
            getattr(err, "hint", None),
            notes,
        )
    return report, json.dumps(report.result), report.hint, notes


def both(cnf: Path, model: Path, limits: scc.Limits | None = None, **kw: Any) -> tuple[Any, Any]:
    """(streamed, read whole) outcomes of a CNF file and a model file."""
    from sat_claim_check._core.options import Options

    options = Options.of("auto", limits)

    def streamed(notes: Any) -> Any:
        return dimacs.files_report(options, cnf, None, model, notes=notes, **kw)

    def whole(notes: Any) -> Any:
        parsed = dimacs.read_files(cnf, None, model, options.limits, notes=notes, **kw)
        return dimacs.parsed_report(parsed, options)

    return outcome(streamed), outcome(whole)


CASES = {
    "satisfied": ("p cnf 3 2\n1 -2 0\n2 3 0\n", "v 1 2 0\n"),
    "falsified": ("p cnf 3 3\n1 0\n-2 3 0\n-1 2 0\n", "v 1 -2 -3 0\n"),
    "undetermined": ("p cnf 3 2\n1 0\n-1 2 3 0\n", "v 1 -2 0\n"),
    "empty clause": ("p cnf 2 2\n1 0\n0\n", "1 0"),
    "no clauses": ("p cnf 2 0\n", "v 3 0\n"),
    "model out of range": ("p cnf 2 1\n1 0\n", "v 1 7 0\n"),
    "model duplicate": ("p cnf 2 1\n1 0\n", "v 1 2 1 0\n"),
    "model conflicting": ("p cnf 2 1\n1 0\n", "v 1 -1 0\n"),
    "model zero": ("p cnf 2 1\n1 0\n", "1 0 2\n"),
    "model text": ("p cnf 2 1\n1 0\n", "v 1 x 0\n"),
    "model unsat answer": ("p cnf 2 1\n1 0\n", "s UNSATISFIABLE\n"),
    "model minisat": ("p cnf 2 1\n1 0\n", "SAT\n1 -2 0\n"),
    "model empty": ("p cnf 2 1\n1 0\n", "c nothing\n"),
    "bad literal": ("p cnf 2 2\n1 0\n-3 0\n", "v 1 2 0\n"),
    "bad literal and model": ("p cnf 2 2\n1 0\n3 0\n", "v 1 x 0\n"),
    "bad token": ("p cnf 2 2\n1 0\n2 y 0\n", "v 1 2 0\n"),
    "too big an integer": ("p cnf 2 1\n99999999999 0\n", "v 1 0\n"),
    "wrong header": ("p cnf 2\n1 0\n", "v 1 0\n"),
    "second header": ("p cnf 2 1\n1 0\np cnf 2 1\n", "v 1 0\n"),
    "no header": ("c only\n", "v 1 0\n"),
    "clause before header": ("1 0\np cnf 1 1\n", "v 1 0\n"),
    "clause count": ("p cnf 2 3\n1 0\n2 0\n", "v 1 2 0\n"),
    "truncated": ("p cnf 2 2\n1 0\n2", "v 1 2 0\n"),
    "truncated and falsified": ("p cnf 2 2\n-1 0\n2", "v 1 2 0\n"),
    "satlib end": ("p cnf 2 1\n1 0\n%\n0\n-1 0\n", "v 1 0\n"),
    "over max_vars": ("p cnf 51 1\n1 0\n", "v 1 0\n"),
    "over max_clauses": ("p cnf 5 41\n" + "1 0\n" * 41, "v 1 0\n"),
    "over max_total_literals": ("p cnf 5 40\n" + "1 2 3 0\n" * 40, "v 1 0\n"),
    "over max_assignment_literals": (
        "p cnf 40 1\n1 0\n",
        "v " + " ".join(map(str, range(1, 32))) + " 0\n",
    ),
    "assignment over max_vars": ("p cnf 5 1\n1 0\n", "v 1 51 0\n"),
}


@pytest.mark.parametrize("case", CASES)
def test_streamed_as_read_whole(case: str, twins: str, tmp_path: Path) -> None:
    cnf_text, model_text = CASES[case]
    (tmp_path / "f.cnf").write_text(cnf_text)
    (tmp_path / "f.model").write_text(model_text)
    streamed, whole = both(tmp_path / "f.cnf", tmp_path / "f.model", SMALL)
    assert streamed == whole


def test_the_cases_reach_every_outcome(tmp_path: Path) -> None:
    # The table above is not all one answer: results valid and not, and errors.
    seen = set()
    for cnf_text, model_text in CASES.values():
        (tmp_path / "f.cnf").write_text(cnf_text)
        (tmp_path / "f.model").write_text(model_text)
        got = both(tmp_path / "f.cnf", tmp_path / "f.model", SMALL)[0]
        seen.add(got[0].result["reason"] if isinstance(got[0], Report) else got[1]["error"])
    assert {"clause_falsified", "clause_undetermined", None, "conflicting_assignment"} <= seen
    assert {"invalid_input", "limit_exceeded"} <= seen


def _big(rng: random.Random, n: int, m: int, model: dict[int, bool]) -> list[str]:
    """m satisfied 3-literal clause lines over 1..n, in the planted ``model``."""
    lines = []
    for _ in range(m):
        vs = rng.sample(range(1, n + 1), 3)
        lits = [v if rng.random() < 0.5 else -v for v in vs]
        if not any((lit > 0) == model[abs(lit)] for lit in lits):
            lits[0] = -lits[0]
        lines.append(" ".join(map(str, lits)) + " 0\n")
    return lines


@pytest.fixture(scope="module")
def planted() -> tuple[int, list[str], str]:
    """A CNF of several chunks (bounds.CHUNK) that its model satisfies."""
    rng = random.Random(23)
    n = 3000
    model = {v: rng.random() < 0.5 for v in range(1, n + 1)}
    lines = _big(rng, n, 3 * bounds.CHUNK // 14, model)
    model_text = "s SATISFIABLE\nv " + " ".join(str(v if model[v] else -v) for v in model) + " 0\n"
    return n, lines, model_text


def _write(path: Path, n: int, lines: list[str], header_count: int | None = None) -> None:
    count = len(lines) if header_count is None else header_count
    path.write_text(f"c planted\np cnf {n} {count}\n" + "".join(lines))


# Changes at the start, the middle (a later chunk) and the very end of a big CNF.
BIG_CASES = {
    "satisfied": lambda lines: lines,
    "falsified late": lambda lines: [*lines[:-3], "0\n", *lines[-2:]],
    "bad literal late": lambda lines: [*lines[:-5], "1 99999 0\n", *lines[-4:]],
    "bad token early then falsified": lambda lines: ["1 z 0\n", *lines],
    "falsified early, bad token late": lambda lines: ["0\n", *lines[:-1], "1 z 0\n"],
    "truncated": lambda lines: [*lines, "1 2"],
    "clause spanning chunks": lambda lines: [
        *lines[: len(lines) // 2],
        " ".join(["1"] * 200_000) + " 0\n",
        *lines[len(lines) // 2 + 1 :],
    ],
    "satlib end midway": lambda lines: [*lines[: len(lines) // 2], "%\n", "garbage\n"],
    "header line long": lambda lines: lines,  # with a long comment before the header
}


@pytest.mark.parametrize("case", BIG_CASES)
def test_streamed_as_read_whole_over_many_chunks(
    case: str, twins: str, planted: tuple[int, list[str], str], tmp_path: Path
) -> None:
    n, lines, model_text = planted
    changed = BIG_CASES[case](list(lines))
    count = len(changed) - (case == "satlib end midway")
    _write(tmp_path / "f.cnf", n, changed, count)
    if case == "header line long":
        text = (tmp_path / "f.cnf").read_text()
        (tmp_path / "f.cnf").write_text("c " + "x" * (bounds.CHUNK - 10) + "\n" + text)
    (tmp_path / "f.model").write_text(model_text)
    streamed, whole = both(tmp_path / "f.cnf", tmp_path / "f.model", scc.Limits.unlimited())
    assert streamed == whole
    assert (tmp_path / "f.cnf").stat().st_size > bounds.CHUNK


@pytest.mark.parametrize(
    "case", ["run without whitespace", "byte cap", "byte cap in a header", "gzip"]
)
def test_reading_stops_where_it_did(
    case: str, twins: str, planted: tuple[int, list[str], str], tmp_path: Path
) -> None:
    n, lines, model_text = planted
    _write(tmp_path / "f.cnf", n, lines)
    cnf, kw = tmp_path / "f.cnf", {}
    if case == "run without whitespace":  # a comment of more than LONGEST_RUN bytes
        text = cnf.read_text()
        cut = len(text) // 3
        cnf.write_text(text[:cut] + "\nc" + "x" * (3 * LONGEST_RUN) + "\n" + text[cut:])
    elif case == "byte cap":
        kw = {"max_bytes": bounds.CHUNK + 12345}
    elif case == "byte cap in a header":
        cnf.write_text("c " + "y" * (bounds.CHUNK - 5) + "\np cnf 5 1\n1 0\n")
        kw = {"max_bytes": bounds.CHUNK + 2}
    else:
        gz = tmp_path / "f.cnf.gz"
        gz.write_bytes(gzip.compress(cnf.read_bytes()))
        cnf = gz
    (tmp_path / "f.model").write_text(model_text)
    streamed, whole = both(cnf, tmp_path / "f.model", scc.Limits.unlimited(), **kw)
    assert streamed == whole
    if case != "gzip":
        assert streamed[0] == "DimacsError"


def test_a_cnf_on_standard_input_with_the_model_read_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    (tmp_path / "f.model").write_text("v 1 -2 0\n")
    stdin = io.TextIOWrapper(io.BytesIO(b"p cnf 2 2\n1 0\n-2 1 0\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    report = dimacs.run_files("-", model_path=tmp_path / "f.model")
    assert report.result["valid"] is True
    assert report.result["clauses_checked"] == 2


@pytest.mark.parametrize(
    "module", [pytest.param(scan_c, marks=pytest.mark.compiled), scan_py], ids=["c", "py"]
)
def test_the_cnf_stream_scans_as_parse_cnf(module: Any) -> None:
    rng = random.Random(7)
    texts = [b"p cnf 3 2\n1 -2 0\n% end\n4 5 0\n", b"c x\np cnf 2 1\n1 2", b"p cnf 1 1\n2 0\n"]
    for _ in range(200):
        n = rng.randint(1, 4)
        body = b"".join(
            b" ".join(str(rng.choice((-1, 1)) * rng.randint(1, n + 1)).encode() for _ in "ab")
            + rng.choice((b" 0\n", b" 0 ", b"\nc 1\n", b" 0\n%\n"))
            for _ in range(rng.randint(0, 6))
        )
        texts.append(b"p cnf %d %d\n" % (n, rng.randint(0, 6)) + body)
    for text in texts:
        for limits in ((-1, -1, -1), (3, 4, 5), (-1, -1, 3)):
            whole = module.parse_cnf(text, *limits)
            cuts = sorted({i + 1 for i, c in enumerate(text) if c in b" \n" and rng.random() < 0.5})
            cuts = [c for c in cuts if not text[text.rfind(b"\n", 0, c) + 1 : c].startswith(b"p")]
            stream = module.CnfTextStream(*limits)
            offsets, lits = [0], []
            bounds_ = list(zip([0, *cuts], [*cuts, len(text)]))
            for i, (a, b) in enumerate(bounds_):
                part = stream.scan(text[a:b], i == len(bounds_) - 1)
                lits_before = len(lits)
                lits += part[5]
                offsets += [lits_before + o for o in part[4][1:]]
                if part[0] or i == len(bounds_) - 1:
                    break
            assert part[:4] == whole[:4], (text, cuts, limits)
            assert stream.header == whole[4:6]
            if whole[6] is not None:
                assert (offsets, lits) == (whole[6].tolist(), whole[7].tolist())
            with pytest.raises(RuntimeError):
                stream.scan(b"", True)


def test_memory_follows_the_model_not_the_formula(tmp_path: Path) -> None:
    # A CNF of 16 MB: read whole, its text and arrays alone would take 16 MB
    # and 4 bytes a literal (about 30 MB in all).  Streamed, the peak is a
    # few chunks (bounds.CHUNK): the chunk read, the text waiting for its
    # scan, a part's arrays and a block of its clauses made lists (sat.BLOCK),
    # and the model.  (Long clauses of small positive literals: few Python
    # objects, so that tracemalloc costs little time.)
    rng = random.Random(5)
    n = 250
    lines = ["".join(f"{v} " for v in rng.sample(range(1, n + 1), 40)) + "0\n" for _ in range(2000)]
    block = "".join(lines)
    repeats = 16 * 2**20 // len(block) + 1
    cnf = tmp_path / "f.cnf"
    with open(cnf, "w") as out:
        out.write(f"p cnf {n} {len(lines) * repeats}\n")
        for _ in range(repeats):
            out.write(block)
    (tmp_path / "f.model").write_text("v " + " ".join(str(v) for v in range(1, n + 1)) + " 0\n")
    size = cnf.stat().st_size
    tracemalloc.start()
    try:
        report = dimacs.run_files(cnf, model_path=tmp_path / "f.model", limits=UNLIMITED)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.result["valid"] is True
    assert size > 16 * 2**20
    assert peak < 12 * bounds.CHUNK, (peak, size)
