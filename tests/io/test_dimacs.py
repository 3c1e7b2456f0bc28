"""DIMACS/DRUP/model parsing, the requests it builds, and run_files().

Both parsers (compiled and pure) run every parsing test through
``_engine``'s scanner; the corpus tests compare with the JSON requests and the
expected results of the contract tier.
"""

import collections
import gzip
import importlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from _helpers import corpus_expected, corpus_instances, observe, outcome

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check._core import codes as _codes
from sat_claim_check._engines.scan_py import parse_cnf as py_parse_cnf
from sat_claim_check._engines.scan_py import parse_drup as py_parse_drup
from sat_claim_check.dimacs import (
    DimacsError,
    request_from_dimacs,
    request_from_files,
    run_dimacs,
    run_files,
)


@pytest.fixture()
def parser(twins):
    """The scanner of the ``twins`` in place (every door in this process uses it)."""
    return _engine.scanner()


def unsat(cnf, proof):
    return request_from_dimacs(cnf, proof=proof)


# -- CNF ----------------------------------------------------------------------


def test_cnf_comments_blank_lines_and_spanning_clauses(parser):
    text = "c a comment\n\nc another\r\np cnf 3 3\n 1\t-2 0\n3\nc inside a clause\n-1 0\n0\n"
    req = unsat(text, "0\n")
    assert req["cnf"] == {"num_vars": 3, "clauses": [[1, -2], [3, -1], []]}
    assert list(req) == ["cnf", "claim", "proof"]


def test_cnf_crlf_and_satlib_end_marker(parser):
    text = b"p cnf 2 2\r\n1 2 0\r\n-1 0\r\n%\r\n0\r\n"
    assert unsat(text, b"0")["cnf"]["clauses"] == [[1, 2], [-1]]


def test_str_and_bytes_give_the_same_request(parser):
    assert unsat("p cnf 1 1\n1 0\n", "d 1 0\n0\n") == unsat(b"p cnf 1 1\n1 0\n", b"d 1 0\n0\n")


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("p cnf 2 1\n1 2\n", 2, "CNF: the clause starting on this line has no terminating 0"),
        ("p cnf 3 2\n1 0\n2\nc x\n3\n", 3, "no terminating 0"),
        (
            "c x\np cnf 2 3\n1 0\n2 0\n",
            2,
            "CNF: the header declares 3 clauses but the formula has 2",
        ),
        ("p cnf 2 1\n1 0\n2 0\n", 1, "declares 1 clauses but the formula has 2"),
        ("p cnf 2 1\n1 -3 0\n", 2, "CNF: the literal -3 is out of range: the header declares 2"),
        ("1 2 0\np cnf 2 1\n", 1, "CNF: a clause before the 'p cnf' header"),
        ("", 1, "CNF: no 'p cnf VARIABLES CLAUSES' header"),
        ("c only a comment\n", 1, "no 'p cnf"),
        ("p cnf 2\n", 1, "CNF: malformed header 'p cnf 2'"),
        ("c\n  p dnf 2 1  \n1 0\n", 2, "malformed header 'p dnf 2 1'"),
        ("p cnf -1 0\n", 1, "malformed header"),
        ("p cnf 1 0 7\n", 1, "malformed header"),
        ("p cnf 2147483648 0\n", 1, "malformed header"),
        ("p cnf 2 1\np cnf 2 1\n1 0\n", 2, "CNF: a second 'p' header"),
        ("p cnf 2 1\n1 x 0\n", 2, "CNF: 'x' is not an integer"),
        ("p cnf 2 1\n1 +2 0\n", 2, "'+2' is not an integer"),
        ("p cnf 20 1\n1_0 0\n", 2, "'1_0' is not an integer"),
        ("p cnf 2 1\n1.0 0\n", 2, "'1.0' is not an integer"),
        ("p cnf 2 1\n1 - 0\n", 2, "'-' is not an integer"),
        ("p cnf 2 1\n1 2 c 0\n", 2, "'c' is not an integer"),
        ("p cnf 2 1\nd 1 0\n", 2, "'d' is not an integer"),
        (
            "p cnf 2 1\n\n\n1 2147483648 0\n",
            4,
            "the literal '2147483648' is out of the 32-bit range",
        ),
    ],
)
def test_cnf_errors_name_the_line(parser, text, line, message):
    with pytest.raises(DimacsError) as info:
        unsat(text, "0\n")
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.file, err.line) == (None, line)
    assert message in str(err)
    assert str(err).startswith(f"line {line}: ")


# -- DRUP -----------------------------------------------------------------------


def test_drup_steps_deletions_and_comments(parser):
    proof = "c proof\n1 2 0\nd 1 2 0\n\nd 0\n-2\n 1 0\n0\n"
    assert unsat("p cnf 2 1\n1 0\n", proof)["proof"] == [
        {"add": [1, 2]},
        {"delete": [1, 2]},
        {"delete": []},
        {"add": [-2, 1]},
        {"add": []},
    ]


def test_drup_literals_above_num_vars_are_left_to_the_contract(parser):
    req = unsat("p cnf 1 2\n1 0\n-1 0\n", "5 0\n0\n")
    assert req["proof"][0] == {"add": [5]}
    res = scc.check(req)
    assert res["reason"] == "literal_out_of_range"
    assert res["first_discrepancy"]["literal"] == 5


@pytest.mark.parametrize(
    "proof, line, message",
    [
        ("1 2 0\nd 1\n", 2, "proof: the step starting on this line has no terminating 0"),
        ("1 2 0\n1 2", 2, "no terminating 0"),
        ("d\n", 1, "no terminating 0"),
        ("1 d 2 0\n", 1, "proof: 'd' inside a step"),
        ("d d 1 0\n", 1, "'d' inside a step"),
        ("c\nd1 2 0\n", 2, "'d1' is not an integer (write 'd' and the literals apart"),
        ("p cnf 1 1\n", 1, "'p' is not an integer"),
        ("1 0\n-2147483648 0\n", 2, "out of the 32-bit range"),
        ("1 0\nb 1 0\n", 2, "'b' is not an integer"),  # ("a 1 0" reads as binary DRUP)
        ("1 2 0 x\n", 1, "'x' is not an integer"),
    ],
)
def test_drup_errors_name_the_line(parser, proof, line, message):
    with pytest.raises(DimacsError) as info:
        unsat("p cnf 2 1\n1 0\n", proof)
    assert info.value.line == line
    assert message in str(info.value)


def test_errors_name_the_file(parser, tmp_path):
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 1\n1 2 0\n")
    proof = tmp_path / "p.drup"
    proof.write_text("1 0\n\n2 x 0\n")
    with pytest.raises(DimacsError) as info:
        request_from_files(cnf, proof)
    assert (info.value.file, info.value.line) == (str(proof), 3)
    assert str(info.value) == f"{proof}:3: proof: 'x' is not an integer"
    with pytest.raises(DimacsError, match=r"f\.cnf:2: CNF: the literal 3 is out of range"):
        cnf.write_text("p cnf 2 1\n3 0\n")
        run_files(cnf, proof)


def test_gzip_files_are_read_transparently(tmp_path):
    cnf, proof = tmp_path / "f.cnf.gz", tmp_path / "p"
    cnf.write_bytes(gzip.compress(b"p cnf 1 2\n1 0\n-1 0\n"))
    proof.write_bytes(gzip.compress(b"0\n"))
    assert request_from_files(cnf, proof) == {
        "cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
        "claim": "unsat",
        "proof": [{"add": []}],
    }
    proof.write_bytes(gzip.compress(b"0\n")[:-4])
    with pytest.raises(DimacsError, match="truncated gzip data"):
        request_from_files(cnf, proof)


def test_exactly_one_of_proof_and_model():
    with pytest.raises(TypeError):
        request_from_dimacs("p cnf 0 0\n")
    with pytest.raises(TypeError):
        request_from_dimacs("p cnf 0 0\n", proof="0", model="0")
    with pytest.raises(TypeError):
        request_from_dimacs(5, proof="0")


def test_request_from_dimacs_is_exported():
    assert scc.request_from_dimacs is request_from_dimacs
    assert "request_from_dimacs" in scc.__all__


# -- models ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "model, expected",
    [
        ("c solver\ns SATISFIABLE\nv 1 -2\nv 3 0\n", [1, -2, 3]),
        ("v 1 -2 3\nv 0\n", [1, -2, 3]),
        ("1 -2 3 0\n", [1, -2, 3]),
        ("1\n-2\n3", [1, -2, 3]),
        ("0\n", []),
        ("v 0", []),
    ],
)
def test_models(model, expected):
    req = request_from_dimacs("p cnf 3 1\n1 2 0\n", model=model)
    assert req == {
        "cnf": {"num_vars": 3, "clauses": [[1, 2]]},
        "claim": "sat",
        "assignment": expected,
    }


@pytest.mark.parametrize(
    "model, line, message",
    [
        ("s UNSATISFIABLE\n", 1, "model: the solver answered 'UNSATISFIABLE', not SATISFIABLE"),
        ("s SATISFIABLE\nv 1 0\n2\n", 3, "'v' lines mixed with plain literal lines"),
        ("v 1 0\nv 2 0\n", 2, "model: '2' after the terminating 0 (line 1)"),
        ("v 1 x 0\n", 1, "model: 'x' is not an integer"),
        ("c nothing\ns SATISFIABLE\n", None, "model: no literals"),
    ],
)
def test_model_errors(model, line, message):
    with pytest.raises(DimacsError) as info:
        request_from_dimacs("p cnf 3 1\n1 2 0\n", model=model)
    assert info.value.line == line
    assert message in str(info.value)


# -- run_dimacs() against check(request_from_dimacs()) ----------------------------

LIMIT_CASES = [
    ("p cnf 5 2\n1 2 0\n-1 0\n", "2 0\n0\n", None, scc.Limits(max_vars=4)),
    ("p cnf 2 3\n1 2 0\n-1 0\n-2 0\n", "0\n", None, scc.Limits(max_clauses=2)),
    ("p cnf 2 2\n1 2 0\n-1 -2 0\n", "0\n", None, scc.Limits(max_total_literals=3)),
    ("p cnf 2 1\n1 0\n", "1 0\n-1 0\n0\n", None, scc.Limits(max_proof_steps=2)),
    ("p cnf 2 1\n1 0\n", "1 2 0\nd 1 2 0\n0\n", None, scc.Limits(max_proof_literals=3)),
    ("p cnf 2 1\n1 0\n", "1 0\n0\nd 2 9 0\n1 11 0\n", None, scc.Limits(max_vars=10)),
    ("p cnf 2 1\n1 0\n", "1 0\n0\nd 2 -99 0\n1 11 0\n", None, scc.Limits(max_vars=10)),
    ("p cnf 3 2\n1 0\n-1 0\n", "0\n5 0\n", None, None),
    ("p cnf 3 2\n1 0\n-1 0\n", "d 5 1 0\n0\n", None, None),
    ("p cnf 3 2\n1 2 3 0\n-1 0\n", "2 3 0\n0\n", None, scc.Limits(max_propagation_work=1)),
    ("p cnf 3 2\n1 2 3 0\n-1 0\n", "-2 0\n-3 0\n0\n", None, scc.Limits(max_propagation_work=4)),
    ("p cnf 3 1\n1 2 0\n", None, "1 2 3 0", scc.Limits(max_assignment_literals=2)),
    ("p cnf 3 1\n1 2 0\n", None, "1 -2 12 0", scc.Limits(max_vars=10)),
    ("p cnf 3 1\n1 2 0\n", None, "-1 -2 4 0", None),
    ("p cnf 3 1\n1 2 0\n", None, "-1 0", None),
]


@pytest.mark.parametrize("cnf, proof, model, limits", LIMIT_CASES)
def test_run_dimacs_equals_check_of_the_request(engine, cnf, proof, model, limits):
    request = request_from_dimacs(cnf, proof=proof, model=model)
    expected = outcome(request, engine, limits)
    got = observe(lambda: run_dimacs(cnf, proof=proof, model=model, engine=engine, limits=limits))
    assert got == expected


def test_the_limit_cases_cover_every_outcome():
    kinds = set()
    for cnf, proof, model, limits in LIMIT_CASES:
        try:
            obj = run_dimacs(cnf, proof, model, limits=limits).result
        except scc.CheckError as err:
            obj = err.to_dict()
        kinds.add(obj.get("limit") or obj.get("error") or obj["reason"])
    assert kinds >= {
        "max_vars",
        "max_clauses",
        "max_total_literals",
        "max_proof_steps",
        "max_proof_literals",
        "max_propagation_work",
        "max_assignment_literals",
        "invalid_input",
        "literal_out_of_range",
        "deleted_clause_not_found",
        "assignment_variable_out_of_range",
        "clause_undetermined",
    }


# -- the corpus -----------------------------------------------------------------


def corpus_pairs(corpus: Path) -> list[tuple[Path, dict[str, Any]]]:
    return [(corpus / name, e) for name, e in corpus_expected(corpus).items()]


def test_corpus_requests_equal_the_json_requests(parser, corpus, tmp_path):
    count = 0
    for base, _ in corpus_pairs(corpus):
        cnf = base.with_suffix(".cnf")
        request = json.loads(base.with_suffix(".json").read_text())
        if request["claim"] == "unsat":
            assert request_from_files(cnf, base.with_suffix(".drup")) == request, base.name
        else:
            lits = " ".join(map(str, request["assignment"]))
            for text in (f"s SATISFIABLE\nv {lits} 0\n", lits + "\n"):
                model = tmp_path / "model.txt"
                model.write_text(text)
                assert request_from_files(cnf, model_path=model) == request, base.name
        count += 1
    assert count == 99


def test_corpus_run_files_gives_the_expected_results(engine, corpus, tmp_path):
    checked = 0
    for base, e in corpus_pairs(corpus):
        # The reference engine is slow in pure Python: a cheap subset there.
        if engine == "reference" and e["work"] > 150_000:
            continue
        request = json.loads(base.with_suffix(".json").read_text())
        if request["claim"] == "unsat":
            report = run_files(base.with_suffix(".cnf"), base.with_suffix(".drup"), engine=engine)
        else:
            model = tmp_path / "model.txt"
            model.write_text(" ".join(map(str, request["assignment"])))
            report = run_files(base.with_suffix(".cnf"), model_path=model, engine=engine)
        assert (report.result, report.work) == (e["result"], e["work"]), base.name
        checked += 1
    assert checked >= 60


@pytest.mark.compiled
def test_a_large_tier_proof_with_raised_limits(corpus):
    entry = next(i for i in corpus_instances(corpus) if i["name"].startswith("l003-"))
    report = run_files(
        corpus / entry["files"]["cnf"],
        corpus / entry["files"]["drup"],
        engine="compiled",
        limits=scc.Limits.unlimited(),
    )
    strict = entry["strict"]
    assert report.result["valid"] is strict["valid"]
    assert report.result["steps_checked"] == strict["steps_checked"] == entry["proof_steps"]
    assert report.work == strict["work"]
    with pytest.raises(scc.LimitExceeded) as info:
        run_files(corpus / entry["files"]["cnf"], corpus / entry["files"]["drup"])
    assert info.value.limit == "max_proof_steps"


# -- the compiled parser against the pure one -------------------------------------


@pytest.mark.compiled
def test_compiled_parser_equals_pure_parser_on_random_text() -> None:
    compiled = importlib.import_module("sat_claim_check._engines.scan_c")
    rng = random.Random(20240607)
    pieces = [
        "0",
        "1",
        "-2",
        "3",
        "12",
        "-0",
        "00",
        "d",
        "c",
        "p",
        "cnf",
        "%",
        "x",
        "+1",
        "2147483647",
        "-2147483648",
        "2147483648",
        " ",
        " ",
        " ",
        "\t",
        "\r",
        "\n",
        "\n",
        "\n",
        "1_0",
        "p cnf 3 4\n",
        "p cnf 3 2\n",
        "c comment\n",
        "d 1 2 0\n",
        "1 -3 0\n",
        "\x00",
        "\xff",
    ]
    cnf_codes, drup_codes = collections.Counter(), collections.Counter()
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))).encode("latin-1")
        cnf, drup = py_parse_cnf(text), py_parse_drup(text)
        assert compiled.parse_cnf(text) == cnf, text
        assert compiled.parse_drup(text) == drup, text
        cnf_codes[cnf[0]] += 1
        drup_codes[drup[0]] += 1
    # Not only the first error: many kinds of error, and proofs that parse.
    assert len(cnf_codes) >= 6, cnf_codes
    assert drup_codes[_codes.SCAN_OK] >= 100, drup_codes


@pytest.mark.compiled
def test_compiled_parser_equals_pure_parser_on_the_corpus(corpus):
    compiled = importlib.import_module("sat_claim_check._engines.scan_c")
    for path in sorted(corpus.glob("c*.cnf"))[:40]:
        data = path.read_bytes()
        assert compiled.parse_cnf(data) == py_parse_cnf(data), path.name
        proof = path.with_suffix(".drup")
        if proof.exists():
            data = proof.read_bytes()
            assert compiled.parse_drup(data) == py_parse_drup(data), proof.name


def test_a_model_literal_beyond_32_bits_is_a_clean_error(tmp_path):
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 1 1\n1 0\n")
    model = tmp_path / "m.txt"
    model.write_text("v 1 " + "9" * 5000 + " 0\n")
    with pytest.raises(DimacsError, match="32-bit") as info:
        request_from_files(str(cnf), model_path=str(model))
    assert info.value.line == 1
