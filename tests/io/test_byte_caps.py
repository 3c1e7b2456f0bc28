"""Reading bounded by the limits: gzip bombs, endless files, long lines, long integers.

Every input is read in chunks and no further than the limits need: files stop
at the first limit passed or at their byte cap, JSON requests and batch lines
at theirs, and integers of any length are handled in linear time without
touching Python's interpreter-wide digit guard.  The command-line cases run
in a subprocess under an address-space limit.
"""

import gzip
import importlib
import io
import json
import os
import pickle
import random
import subprocess
import sys
import tempfile
import time
from copy import deepcopy

import pytest

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check import cli, dimacs
from sat_claim_check._batch.lines import numbered_lines, skip_bytes
from sat_claim_check._core import codes as _codes
from sat_claim_check._core import jsontext as _jsontext
from sat_claim_check._core.jsontext import SHORT_DIGITS, LongInteger, dumps, loads
from sat_claim_check._core.values import number_text
from sat_claim_check._engines.scan_py import parse_cnf as py_parse_cnf
from sat_claim_check._engines.scan_py import parse_drup as py_parse_drup
from sat_claim_check._io import bounds as _bounds
from sat_claim_check.dimacs import DimacsError, request_from_dimacs, request_from_files, run_files

LIMITS = scc.Limits()
CNF_OK = "p cnf 1 1\n1 0\n"


@pytest.fixture()
def parser(twins):
    """The scanner of the ``twins`` in place (every door in this process uses it)."""
    return _engine.scanner()


def gzip_bomb(path, piece, copies):
    """A gzip file of ``copies`` members, each ``piece`` compressed: it inflates to
    len(piece) * copies bytes, and is built in milliseconds."""
    path.write_bytes(gzip.compress(piece, 9) * copies)
    return path


def limit_error(fn):
    with pytest.raises(scc.LimitExceeded) as info:
        fn()
    return info.value.to_dict()


# -- the scanners' stop limits ----------------------------------------------------


def test_a_drup_scan_stops_at_the_step_past_the_limit(parser):
    code, line, _, _, kinds, offsets, lits = parser.parse_drup(b"1 0\n" * 10, 3, -1)
    assert (code, line) == (_codes.SCAN_STOPPED, 4)
    assert (len(kinds), list(offsets), list(lits)) == (4, [0, 1, 2, 3, 4], [1, 1, 1, 1])


def test_a_scan_stops_at_the_literal_past_the_limit_and_closes_its_step(parser):
    code, line, _, _, kinds, offsets, lits = parser.parse_drup(b"1 2 0\nd 3 4 5 6 0\n", -1, 3)
    assert (code, line) == (_codes.SCAN_STOPPED, 2)
    assert (list(kinds), list(offsets), list(lits)) == ([0, 1], [0, 2, 4], [1, 2, 3, 4])
    code, _, _, _, v, c, offsets, lits = parser.parse_cnf(
        b"p cnf 9 2\n1 2 3\n4 0\n5 0\n", -1, -1, 2
    )
    assert (code, v, c, list(offsets), list(lits)) == (_codes.SCAN_STOPPED, 9, 2, [0, 3], [1, 2, 3])


@pytest.mark.parametrize("header, limits", [("p cnf 11 1", (10, 5)), ("p cnf 3 6", (10, 5))])
def test_a_cnf_scan_stops_at_a_header_over_the_limits(parser, header, limits):
    code, line, _, _, v, c, offsets, lits = parser.parse_cnf(
        f"c x\n{header}\n1 0\nzzz\n".encode(), *limits, -1
    )
    assert (code, line, list(offsets), list(lits)) == (_codes.SCAN_STOPPED, 2, [0], [])
    assert f"p cnf {v} {c}" == header


def test_without_stop_limits_nothing_changes(parser):
    text = b"p cnf 2 3\n1 2 0\n-1 0\n-2 0\n"
    assert parser.parse_cnf(text) == parser.parse_cnf(text, 2, 3, 4)
    assert parser.parse_cnf(text)[0] == _codes.SCAN_OK
    assert parser.parse_drup(b"1 0\nd 1 0\n0\n", 3, 2)[0] == _codes.SCAN_OK


@pytest.mark.compiled
def test_both_scanners_stop_at_the_same_place_on_random_text():
    compiled = importlib.import_module("sat_claim_check._engines.scan_c")
    rng = random.Random(20250611)
    pieces = [
        "0",
        "1",
        "-2",
        "3",
        "00",
        "d",
        "c",
        "p",
        "%",
        "x",
        " ",
        " ",
        "\t",
        "\n",
        "\n",
        "p cnf 3 4\n",
        "p cnf 9 2\n",
        "d 1 2 0\n",
        "1 -3 0\n",
        "0\n",
        "0" * 12 + "7",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))).encode()
        a, b, c = rng.randint(-1, 5), rng.randint(-1, 5), rng.randint(-1, 8)
        assert compiled.parse_cnf(text, a, b, c) == py_parse_cnf(text, a, b, c), text
        assert compiled.parse_drup(text, b, c) == py_parse_drup(text, b, c), text


# -- long tokens in the pure scanner and the model reader --------------------------

LONG_TOKENS = [  # (token, its value when within 32 bits)
    (b"9" * 5000, None),  # beyond int()'s digit guard too
    (b"-" + b"9" * 5000, None),
    (b"0" * 5000 + b"1", 1),  # leading zeros: the literal 1
    (b"-" + b"0" * 5000 + b"2", -2),
    (b"0" * 5000 + b"2147483648", None),  # 2^31, zero-padded
    (b"0" * 5000 + b"2147483647", 2147483647),
    (b"0" * 5000, 0),  # a zero-padded 0 ends the step
]


@pytest.mark.parametrize("token, value", LONG_TOKENS, ids=range(len(LONG_TOKENS)))
def test_the_pure_scanner_reads_long_tokens(token, value):
    """No ValueError from int(): the value, or the 32-bit range error."""
    drup = py_parse_drup(b"1 " + token + b" 0\n")
    header = py_parse_cnf(b"p cnf " + token + b" 0\n")
    if value is None:
        assert drup[:3] == (_codes.SCAN_ERR_INT_RANGE, 1, token)
        assert header[0] == _codes.SCAN_ERR_BAD_HEADER
    else:
        assert drup[0] == _codes.SCAN_OK
        assert list(drup[6]) == ([1, value] if value else [1])  # a 0 ends a step
        assert header[0] == (_codes.SCAN_OK if value >= 0 else _codes.SCAN_ERR_BAD_HEADER)


@pytest.mark.compiled
@pytest.mark.parametrize("token", [t for t, _ in LONG_TOKENS], ids=range(len(LONG_TOKENS)))
def test_long_tokens_compiled_equals_pure(token):
    compiled = importlib.import_module("sat_claim_check._engines.scan_c")
    for text in (b"1 " + token + b" 0\n", b"d " + token + b" 0\n1 0\n"):
        assert compiled.parse_drup(text) == py_parse_drup(text)
    for text in (
        b"p cnf 3 1\n1 " + token + b" 0\n",
        b"p cnf " + token + b" 0\n",
        b"p cnf 0 " + token + b"\n",
    ):
        assert compiled.parse_cnf(text) == py_parse_cnf(text)


@pytest.mark.parametrize(
    "token, accepted",
    [
        ("00000000001", 1),
        ("-0000000000002", -2),
        ("0" * 5000 + "3", 3),
        ("2147483647", 2147483647),
        ("2147483648", None),
        ("9999999999", None),
        ("0" * 20 + "2147483648", None),
        ("9" * 5000, None),
    ],
)
def test_the_model_reader_takes_the_scanners_integers(parser, token, accepted):
    """A model literal is accepted exactly when the DRUP scanner accepts the token."""
    scanned = parser.parse_drup(f"{token} 0\n".encode())
    assert (scanned[0] == _codes.SCAN_OK) is (accepted is not None)
    cnf = "p cnf 3 1\n1 0\n"
    if accepted is None:
        with pytest.raises(DimacsError, match="32-bit"):
            request_from_dimacs(cnf, model=f"v {token} 0\n")
    else:
        assert request_from_dimacs(cnf, model=f"v {token} 0\n")["assignment"] == [accepted]
        assert list(scanned[6]) == [accepted]


# -- files: stop at the first limit ------------------------------------------------


def test_a_gzip_bomb_proof_stops_at_the_step_limit(parser, engine, tmp_path):
    cnf = tmp_path / "unsat.cnf"
    cnf.write_text("p cnf 1 2\n1 0\n-1 0\n")  # every "0" step is RUP here
    bomb = gzip_bomb(tmp_path / "b.drup.gz", b"0\n" * (1 << 19), 1024)  # 1 GiB of "0\n"
    start = time.perf_counter()
    error = limit_error(lambda: run_files(cnf, bomb, engine=engine))
    assert time.perf_counter() - start < 5  # it was 79 s before reading was bounded
    assert error == {
        "error": "limit_exceeded",
        "field": "proof",
        "path": "/proof",
        "limit": "max_proof_steps",
        "max": 2000,
        "actual": 2001,
        "message": error["message"],
    }
    assert limit_error(lambda: request_from_files(cnf, bomb)) == error


def test_a_gzip_bomb_proof_whose_first_step_fails_is_that_verdict(parser, engine, tmp_path):
    # Stream order: step 0 fails before any limit is reached, and reading stops there.
    cnf = tmp_path / "ok.cnf"
    cnf.write_text(CNF_OK)
    bomb = gzip_bomb(tmp_path / "b.drup.gz", b"0\n" * (1 << 19), 1024)
    start = time.perf_counter()
    result = run_files(cnf, bomb, engine=engine).result
    assert time.perf_counter() - start < 5
    assert (result["reason"], result["first_discrepancy"]["step_index"]) == ("lemma_not_rup", 0)
    assert limit_error(lambda: request_from_files(cnf, bomb))["limit"] == "max_proof_steps"


def test_a_gzip_bomb_model_stops_at_the_assignment_limit(parser, tmp_path):
    cnf = tmp_path / "ok.cnf"
    cnf.write_text(CNF_OK)
    model = tmp_path / "m.gz"  # one endless 'v' line
    model.write_bytes(gzip.compress(b"v") + gzip.compress(b" 1" * (1 << 19)) * 512)
    error = limit_error(lambda: run_files(cnf, model_path=model))
    assert (error["limit"], error["path"], error["actual"]) == (
        "max_assignment_literals",
        "/assignment",
        10001,
    )


def test_a_cnf_stops_at_the_literal_limit_even_on_one_endless_line(parser, tmp_path):
    cnf = tmp_path / "f.cnf.gz"
    cnf.write_bytes(gzip.compress(b"p cnf 1 1\n") + gzip.compress(b"1 " * (1 << 19)) * 256)
    error = limit_error(lambda: run_files(cnf, tmp_path / "absent.drup"))
    assert (error["limit"], error["path"], error["actual"]) == (
        "max_total_literals",
        "/cnf/clauses",
        50001,
    )


@pytest.mark.parametrize(
    "header, limit, actual",
    [("p cnf 10001 1", "max_vars", 10001), ("p cnf 5 7000", "max_clauses", 7000)],
)
def test_a_cnf_header_over_the_limits_stops_reading_at_once(
    parser, tmp_path, header, limit, actual
):
    cnf = tmp_path / "f.cnf.gz"
    cnf.write_bytes(gzip.compress(header.encode() + b"\n") + gzip.compress(b"x " * 100) * 100_000)
    error = limit_error(lambda: run_files(cnf, tmp_path / "absent.drup"))
    assert (error["limit"], error["actual"]) == (limit, actual)


def test_the_stop_reports_the_limit_plus_one_where_the_whole_text_is_exact(
    parser, engine, tmp_path
):
    cnf = tmp_path / "ok.cnf"
    cnf.write_text(CNF_OK)
    proof = tmp_path / "p.drup"
    proof.write_text("1 0\n" * 2500 + "not even a proof\n")
    from_file = limit_error(lambda: run_files(cnf, proof, engine=engine))
    in_memory = limit_error(lambda: dimacs.run_dimacs(CNF_OK, "1 0\n" * 2500, engine=engine))
    assert (from_file["limit"], from_file["actual"]) == ("max_proof_steps", 2001)
    assert (in_memory["limit"], in_memory["actual"]) == ("max_proof_steps", 2500)


def test_a_stopped_proof_is_validated_in_order(parser, tmp_path):
    """The steps read before the stop are validated as a request's would be:
    a literal over max_vars before the literal count passes its limit is the error."""
    cnf = tmp_path / "ok.cnf"
    cnf.write_text(CNF_OK)
    proof = tmp_path / "p.drup"
    step = " ".join(map(str, range(1, 31))) + " 0\n"  # 2000 of them pass 50000 literals
    proof.write_text("1 20000 0\n" + step * 1999)
    with pytest.raises(scc.InvalidInput) as info:
        run_files(cnf, proof)
    err = info.value.to_dict()
    assert (err["field"], err["path"]) == ("proof", "/proof/0/add/1")
    # In stream order the literal limit is met at the step that passes it (each
    # step is RUP over the unit clause 1 of this CNF of 30 variables).
    cnf.write_text("p cnf 30 1\n1 0\n")
    proof.write_text("1 0\n" + step * 1999)
    error = limit_error(lambda: run_files(cnf, proof))
    assert (error["limit"], error["actual"]) == ("max_proof_literals", 1 + 30 * 1667)


def test_a_file_within_the_limits_reads_as_before(parser, tmp_path):
    cnf, proof = tmp_path / "f.cnf", tmp_path / "p.drup.gz"
    cnf_text = "c comment\n" * 20000 + "p cnf 3 2\n1 2 0\n-1 3 0\n"
    proof_text = ("c x\n" * 1000 + "d 1 2 0\n") * 300 + "0\n"
    cnf.write_text(cnf_text)
    proof.write_bytes(gzip.compress(proof_text.encode()))
    assert request_from_files(cnf, proof) == request_from_dimacs(cnf_text, proof=proof_text)


def _outcome(fn):
    try:
        return "parsed", fn()
    except (DimacsError, scc.CheckError) as exc:
        return type(exc).__name__, str(exc), getattr(exc, "to_dict", dict)()


SMALL = scc.Limits(
    max_vars=4,
    max_clauses=3,
    max_total_literals=6,
    max_assignment_literals=4,
    max_proof_steps=3,
    max_proof_literals=5,
)


def _random_texts(rng):
    """A CNF, a DRUP proof and a model, mostly well formed, around the SMALL limits."""

    def space():
        return rng.choice([" ", " ", "\n", "\n", "  \t", "\nc comment\n", "\r\n"])

    def steps(count, width, delete):
        out = []
        for _ in range(count):
            lits = [rng.choice([-1, 1]) * rng.randint(1, width) for _ in range(rng.randint(0, 3))]
            head = ["d"] if delete and rng.random() < 0.3 else []
            out.append(space().join(head + list(map(str, lits)) + ["0"]))
        return out

    clauses = rng.randint(0, 4)
    cnf = (
        rng.choice(["", "c x\n"])
        + f"p cnf {rng.randint(1, 5)} {clauses}\n"
        + "\n".join(steps(clauses, 2, False))
        + "\n"
    )
    proof = "\n".join(steps(rng.randint(0, 5), 6, True)) + rng.choice(["\n", "", " 0\n"])
    lits = " ".join(str(rng.choice([-1, 1]) * rng.randint(1, 5)) for _ in range(rng.randint(0, 6)))
    model = rng.choice([f"s SATISFIABLE\nv {lits} 0\n", lits, f"v {lits}\nv 0\n"])
    junk = rng.choice(["", "", "", "x", "p cnf 1 1", "s UNKNOWN", "-", "1 d 0"])
    which = rng.randrange(4)
    texts = [cnf, proof, model]
    if which < 3:
        at = rng.randint(0, len(texts[which]))
        texts[which] = texts[which][:at] + junk + texts[which][at:]
    return texts


def test_when_the_first_part_is_scanned_never_changes_the_answer(parser, tmp_path, monkeypatch):
    """Files read in chunks of a few bytes, scanned again at every doubling,
    give what one scan of the whole text gives."""
    rng = random.Random(20250612)
    cnf, proof, model = tmp_path / "f.cnf", tmp_path / "f.drup", tmp_path / "f.model"
    kinds = set()
    for _ in range(150):
        for path, text in zip((cnf, proof, model), _random_texts(rng)):
            path.write_text(text)
        for files in ((cnf, proof, None), (cnf, None, model)):
            monkeypatch.setattr(_bounds, "CHUNK", 1 << 20)
            whole = _outcome(lambda files=files: dimacs.parse_files(*files, SMALL))
            monkeypatch.setattr(_bounds, "CHUNK", rng.randint(1, 9))
            assert _outcome(lambda files=files: dimacs.parse_files(*files, SMALL)) == whole
            kinds.add(whole[0])
    assert kinds == {"parsed", "DimacsError", "LimitExceeded", "InvalidInput"}


def test_a_line_cut_at_a_scan_is_not_read_as_a_whole_line(parser, tmp_path):
    """A header or status line longer than a chunk is never judged by its first part."""
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 99999 3" + " " * (1 << 21) + "x\n")  # malformed, not over max_vars
    with pytest.raises(DimacsError, match="malformed header"):
        dimacs.parse_files(cnf, None, tmp_path / "absent")
    cnf.write_text(CNF_OK)
    model = tmp_path / "m"
    model.write_text("s" + " " * (1 << 20) + "SATISFIABLE\nv 1 0\n")
    assert dimacs.parse_files(cnf, None, model)[2] == [1]


# -- files: the byte caps -----------------------------------------------------------


def test_the_default_caps_follow_the_limits():
    assert _bounds.cnf_bytes(LIMITS) == 32 * (50000 + 5000) + (1 << 20)
    assert _bounds.proof_bytes(LIMITS) == 32 * (50000 + 2000) + (1 << 20)
    assert _bounds.model_bytes(LIMITS) == 32 * 10000 + (1 << 20)
    assert _bounds.request_bytes(LIMITS) == 32 * (50000 + 5000 + 10000 + 50000 + 2000) + (1 << 20)
    # The figures the documentation quotes.
    readme = os.path.dirname(__file__) + "/../../README.md"
    documented = [_bounds.__doc__, cli.EPILOG + cli.REQUEST_EPILOG]
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            documented.append(f.read())
    for text in documented:
        for cap in (
            _bounds.request_bytes(LIMITS),
            _bounds.cnf_bytes(LIMITS),
            _bounds.proof_bytes(LIMITS),
            _bounds.model_bytes(LIMITS),
        ):
            assert f"{cap:,}" in text


@pytest.mark.parametrize("what", ["cnf", "proof", "model"])
def test_a_file_with_no_tokens_stops_at_its_cap(parser, tmp_path, what):
    ok = tmp_path / "ok.cnf"
    ok.write_text(CNF_OK)
    endless = gzip_bomb(tmp_path / "c.gz", b"c" + b" comment" * (1 << 17), 1024)  # one line
    files = {
        "cnf": (endless, ok, None),
        "proof": (ok, endless, None),
        "model": (ok, None, endless),
    }[what]
    start = time.perf_counter()
    with pytest.raises(DimacsError, match="longer than") as info:
        dimacs.parse_files(*files)
    assert time.perf_counter() - start < 5
    assert info.value.file == str(endless)


@pytest.mark.parametrize("what", ["cnf", "proof", "model"])
def test_max_bytes_is_the_cap_to_the_byte(parser, tmp_path, what):
    pad = "c padding padding padding\n"
    text = {"cnf": pad + CNF_OK, "proof": pad + "1 0\n", "model": pad + "1 0\n"}[what]
    path = tmp_path / "f"
    path.write_text(text)
    cnf, proof = tmp_path / "ok.cnf", tmp_path / "ok.drup"
    cnf.write_text(CNF_OK)
    proof.write_text("0\n")
    files = {"cnf": (path, proof, None), "proof": (cnf, path, None), "model": (cnf, None, path)}[
        what
    ]
    dimacs.parse_files(*files, max_bytes=len(text))
    with pytest.raises(DimacsError, match=f"longer than {len(text) - 1} bytes") as info:
        dimacs.parse_files(*files, max_bytes=len(text) - 1)
    assert info.value.file == str(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_as_each_file(parser, tmp_path):
    ok = tmp_path / "ok.cnf"
    ok.write_text(CNF_OK)
    # NUL bytes are one run without whitespace, refused past 1 MiB, whatever
    # the limits (under unlimited ones the byte cap is far away).
    for files in (("/dev/zero", ok, None), (ok, "/dev/zero", None), (ok, None, "/dev/zero")):
        for limits in (None, scc.Limits.unlimited()):
            with pytest.raises(DimacsError, match="without whitespace") as info:
                dimacs.parse_files(*files, limits=limits)
            assert info.value.offset == 0


# -- batch lines ---------------------------------------------------------------------


def test_numbered_lines_keeps_lines_up_to_the_cap():
    lines = list(numbered_lines(io.BytesIO(b"abc\nabcd\n\nabcde\nab"), 4))
    assert lines[:3] == [(1, b"abc"), (2, b"abcd"), (3, b"")]
    assert isinstance(lines[3][1], str) and "longer than 4 bytes" in lines[3][1]
    assert lines[4] == (5, b"ab")
    assert next(numbered_lines(io.BytesIO(b"abcde"), 4))[1].startswith("the line is longer")
    assert list(numbered_lines(io.BytesIO(b"abcd"), 4)) == [(1, b"abcd")]


class _Endless(io.RawIOBase):
    """A stream of 'x' with no newline, counting what was read from it."""

    def __init__(self):
        self.read_bytes = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = b"x" * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


def test_an_endless_line_ends_the_input_after_a_bounded_skip():
    raw = _Endless()
    lines = list(numbered_lines(io.BufferedReader(raw), 100))
    assert len(lines) == 1 and "the input stops here" in lines[0][1]
    assert skip_bytes(100) <= raw.read_bytes <= skip_bytes(100) + 2 * (1 << 20)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_rejects_a_long_line_and_goes_on(tmp_path, jobs):
    ok = json.dumps({"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "sat", "assignment": [1]})
    long_line = json.dumps(
        {"cnf": {"num_vars": 1, "clauses": [[1]] * 200}, "claim": "sat", "assignment": [1]}
    )
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join([ok, long_line, ok, " " * 5000, ok]) + "\n")
    out = run_cli("batch", "--jobs", jobs, "--max-input-bytes", "1000", str(path))
    assert out.returncode == 2 and b"Traceback" not in out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line.get("line") for line in lines] == [None, 2, None, 4, None]
    assert all(line["valid"] for line in lines[::2])
    assert "longer than 1000 bytes" in lines[1]["message"] and lines[1]["field"] is None


# -- JSON: long integers ------------------------------------------------------------

BIG = "1234567890" * 200_000  # 2 million digits


def test_a_two_million_digit_integer_is_read_in_linear_time():
    start = time.perf_counter()
    value = loads(f'{{"n": -{BIG}, "m": 12}}'.encode())
    assert time.perf_counter() - start < 5  # quadratic: 81 s
    assert isinstance(value["n"], LongInteger) and value["n"].text == "-" + BIG
    assert value["n"] < -(2**62) and value["n"].digits() == len(BIG)
    assert type(value["m"]) is int
    for copy in (pickle.loads(pickle.dumps(value)), deepcopy(value)):
        assert copy["n"].text == "-" + BIG


def test_reading_and_writing_long_integers_leaves_the_digit_guard_alone(monkeypatch):
    def refuse(_):
        raise AssertionError("the interpreter-wide digit guard was changed")

    monkeypatch.setattr(sys, "set_int_max_str_digits", refuse)
    before = sys.get_int_max_str_digits()
    request = loads(f'{{"cnf": {{"num_vars": {BIG}, "clauses": []}}}}')
    assert f'"actual":{BIG},' in dumps(limit_error(lambda: scc.run(request)))
    exact = limit_error(lambda: scc.run({"cnf": {"num_vars": 10**5000, "clauses": []}}))
    assert '"actual":1' + "0" * 5000 + "," in dumps(exact)
    assert sys.get_int_max_str_digits() == before


@pytest.mark.parametrize("native", [True, False], ids=["json-int", "own-int"])
@pytest.mark.parametrize("digits", [SHORT_DIGITS, SHORT_DIGITS + 1, 5000])
@pytest.mark.parametrize("place", ["num_vars", "-num_vars", "clause", "assignment", "proof"])
def test_a_long_json_integer_is_rejected_like_the_int(engine, monkeypatch, native, digits, place):
    """The same error object, byte for byte, as for the exact int in a dict,
    whether json's own int() reads the text or, with the digit guard off (or
    too high to be cheap), the LongInteger path does."""
    monkeypatch.setattr(_jsontext, "_native_ints_are_cheap", lambda: native)
    number = 10 ** (digits - 1) + 7
    sign = -1 if place == "-num_vars" else 1

    def request(n):
        cnf = {
            "num_vars": n if place.endswith("num_vars") else 2,
            "clauses": [[n]] if place == "clause" else [],
        }
        if place == "proof":
            return {"cnf": cnf, "claim": "unsat", "proof": [{"add": [1]}, {"delete": [n]}]}
        return {"cnf": cnf, "claim": "sat", "assignment": [n] if place == "assignment" else []}

    with pytest.raises(scc.CheckError) as from_dict:
        scc.run(request(sign * number), engine=engine)
    digits_text = "1" + "0" * (digits - 2) + "7"  # str(number), which may refuse
    text = json.dumps(request(sign * 1234)).replace("1234", digits_text)
    parsed = loads(text)
    with pytest.raises(scc.CheckError) as from_text:
        scc.run(parsed, engine=engine)
    assert any(isinstance(x, LongInteger) for x in _integers(parsed)) is (
        digits > SHORT_DIGITS and (digits > 4300 or not native)
    )
    assert dumps(from_text.value.to_dict()) == dumps(from_dict.value.to_dict())
    assert dumps(from_text.value.to_dict(), True) == dumps(from_dict.value.to_dict(), True)


def _integers(x):
    if isinstance(x, dict):
        for value in x.values():
            yield from _integers(value)
    elif isinstance(x, list):
        for value in x:
            yield from _integers(value)
    elif isinstance(x, int):
        yield x


def test_dumps_writes_long_integers_where_json_would():
    error = {
        "error": "limit_exceeded",
        "field": "cnf",
        "path": "/cnf/num_vars",
        "limit": "max_vars",
        "max": 10000,
        "actual": 987654321,
        "message": "m\nx",
    }
    long_error = {**error, "actual": LongInteger(BIG)}
    for pretty, kwargs in ((False, {"separators": (",", ":")}), (True, {"indent": 2})):
        assert dumps(long_error, pretty) == json.dumps(error, **kwargs).replace("987654321", BIG)
    nested = {"a": [1, {"b": [2]}], "actual": LongInteger("-" + BIG)}
    assert dumps(nested, True) == json.dumps(
        {"a": [1, {"b": [2]}], "actual": -5}, indent=2
    ).replace("-5", "-" + BIG)


def test_long_ints_are_written_exactly_without_str():
    rng = random.Random(7)
    for _ in range(50):
        bits = rng.randint(2001, 13000)
        value = (rng.getrandbits(bits) | 1 << (bits - 1)) * rng.choice([1, -1])
        expected = str(value)  # at most 4300 digits: the guard allows it here
        assert dumps({"actual": value}) == '{"actual":' + expected + "}"
        assert (
            number_text(value) == f"{'-' if value < 0 else ''}(an integer of "
            f"{len(expected.lstrip('-'))} digits)"
        )


# -- the command line under an address-space limit ----------------------------------

MEMORY = 1 << 30  # address space for the child: the interpreter needs some


# Started by a small launcher process: on Linux a process's peak RSS counts what
# it had before exec, so a child forked straight from this (big) test process
# would report this process's size, not its own.
LAUNCHER = """
import os, resource, subprocess, sys, time
memory, timeout, stdin, stdout, stderr = sys.argv[1:6]
argv = sys.argv[6:]
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
with open(stdin, "rb") as i, open(stdout, "wb") as o, open(stderr, "wb") as e:
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=i, stdout=o, stderr=e, preexec_fn=limit)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, elapsed)
"""


def run_cli(*args, stdin=b"", pure=False, timeout=60):
    """The command line in a child process limited to MEMORY bytes of address
    space; returns a CompletedProcess with .maxrss (KiB) and .elapsed (s)."""
    env = {k: v for k, v in os.environ.items() if k != "SAT_CLAIM_CHECK_NO_EXTENSIONS"}
    if pure:
        env["SAT_CLAIM_CHECK_NO_EXTENSIONS"] = "1"
    argv = [sys.executable, "-m", "sat_claim_check", *args]
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, name) for name in ("stdin", "stdout", "stderr")]
        with open(paths[0], "wb") as f:
            f.write(stdin)
        launched = subprocess.run(
            [sys.executable, "-c", LAUNCHER, str(MEMORY), str(timeout), *paths, *argv],
            env=env,
            capture_output=True,
            timeout=timeout,
            check=True,
        )
        code, maxrss, elapsed = launched.stdout.split()
        with open(paths[1], "rb") as f1, open(paths[2], "rb") as f2:
            out = subprocess.CompletedProcess(argv, int(code), f1.read(), f2.read())
    out.elapsed = float(elapsed)
    out.maxrss = int(maxrss)
    return out


def _reproducers(tmp_path):
    ok = tmp_path / "ok.cnf"
    ok.write_text(CNF_OK)
    unsat = tmp_path / "unsat.cnf"  # every "0" step of the bomb is RUP here
    unsat.write_text("p cnf 1 2\n1 0\n-1 0\n")
    bomb = gzip_bomb(tmp_path / "b.drup.gz", b"0\n" * (1 << 19), 1024)
    model = tmp_path / "m.gz"
    model.write_bytes(gzip.compress(b"v") + gzip.compress(b" 1" * (1 << 19)) * 256)
    big = tmp_path / "big.json"
    big.write_text(
        f'{{"cnf": {{"num_vars": {BIG}, "clauses": []}}, "claim": "sat", "assignment": []}}'
    )
    cases = [
        (("request", "--cnf", unsat, "--proof", bomb, "--check"), "max_proof_steps"),
        (("request", "--cnf", ok, "--model", model, "--check"), "max_assignment_literals"),
        (("check", big), "max_vars"),
    ]
    if os.path.exists("/dev/zero"):
        cases += [
            (("check", "/dev/zero"), "invalid_input"),
            (("batch", "/dev/zero"), "invalid_input"),
            (("request", "--cnf", "/dev/zero", "--proof", bomb, "--check"), None),
        ]
    return [(tuple(map(str, args)), expected) for args, expected in cases]


@pytest.mark.parametrize(
    "pure", [pytest.param(False, marks=pytest.mark.compiled), True], ids=["compiled", "pure"]
)
def test_the_reproducers_are_rejected_fast_in_bounded_memory(tmp_path, pure):
    for args, expected in _reproducers(tmp_path):
        out = run_cli(*args, pure=pure)
        assert out.returncode == 2, (args, out.stderr[-500:])
        assert b"Traceback" not in out.stderr and out.stderr.count(b"\n") >= 1, args
        assert out.elapsed < 10, args  # a shared machine: generous
        assert out.maxrss < 100 * 1024, (args, out.maxrss)
        if expected is None:  # NUL bytes, one endless run: the error object, and its line
            assert json.loads(out.stdout)["error"] == "invalid_input"
            assert b"without whitespace" in out.stderr
            continue
        if expected == "max_vars":  # the exact integer, written back
            assert out.stdout.startswith(
                b'{"error":"limit_exceeded","field":"cnf",'
                b'"path":"/cnf/num_vars","limit":"max_vars",'
                b'"max":10000,"actual":' + BIG.encode() + b',"message"'
            )
            continue
        error = json.loads(out.stdout.splitlines()[0])
        assert expected in (error.get("limit"), error["error"]), (args, error)


def test_request_without_check_writes_nothing_when_reading_stops(tmp_path):
    ok = tmp_path / "ok.cnf"
    ok.write_text(CNF_OK)
    proof = gzip_bomb(tmp_path / "p.drup.gz", b"0\n" * 1000, 3)
    out = run_cli("request", "--cnf", str(ok), "--proof", str(proof))
    assert (out.returncode, out.stdout) == (2, b"")
    assert out.stderr.startswith(b"sat-claim-check: limit_exceeded at /proof: ")
    out = run_cli(
        "request", "--cnf", str(ok), "--proof", str(proof), "--limit", "max_proof_steps=3000"
    )
    assert out.returncode == 0 and out.stdout.count(b'{"add":[]}') == 3000


def test_check_refuses_a_request_over_its_cap_and_takes_one_at_it():
    request = b'{"cnf":{"num_vars":1,"clauses":[[1]]},"claim":"sat","assignment":[1]}'
    padded = request + b" " * 100
    out = run_cli("check", "-", "--max-input-bytes", str(len(padded)), stdin=padded)
    assert out.returncode == 0
    out = run_cli("check", "-", "--max-input-bytes", str(len(padded) - 1), stdin=padded)
    assert out.returncode == 2 and out.stdout.startswith(
        b'{"error":"invalid_input","field":null,"path":"","message":"the request in standard '
        b"input is longer than " + str(len(padded) - 1).encode()
    )


def test_the_default_request_cap_admits_a_maximal_pretty_printed_request():
    cnf = {"num_vars": 10000, "clauses": [[-10000] * 10] * 5000}
    proof = [{"delete": [-10000] * 25}] * 2000
    text = json.dumps({"cnf": cnf, "claim": "unsat", "proof": proof}, indent=4)
    assert len(text) <= _bounds.request_bytes(LIMITS)
    sat = json.dumps({"cnf": cnf, "claim": "sat", "assignment": [-10000] * 10000}, indent=4)
    assert len(sat) <= _bounds.request_bytes(LIMITS)
