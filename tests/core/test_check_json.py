"""check_json: JSON text in, the Outcome out, with the bytes the command line writes."""

import io
import json
import sys
import threading
import time
from pathlib import Path

import pytest

import sat_claim_check as scc
from sat_claim_check import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TINY_UNSAT = b'{"cnf":{"num_vars":1,"clauses":[[1],[-1]]},"claim":"unsat","proof":[{"add":[]}]}'
NOT_RUP = b'{"cnf":{"num_vars":2,"clauses":[[1,2]]},"claim":"unsat","proof":[{"add":[1]}]}'

TEXTS = {
    "valid": TINY_UNSAT,
    "not valid": NOT_RUP,
    "sat, pretty": json.dumps(
        {"cnf": {"num_vars": 2, "clauses": [[1], [-2]]}, "claim": "sat", "assignment": [1, -2]},
        indent=2,
    ).encode(),
    "BOM": b"\xef\xbb\xbf" + TINY_UNSAT,
    "fraction and exponent": b'{"cnf":{"num_vars":2.0,"clauses":[[1e0]]},"claim":"sat",'
    b'"assignment":[1]}',
    "malformed": b'{"cnf": ',
    "empty": b"",
    "blank": b"  \n",
    "repeated key": b'{"cnf":{"num_vars":1,"clauses":[]},"cnf":{},"claim":"sat"}',
    "NaN": b'{"cnf":{"num_vars":1,"clauses":[[NaN]]},"claim":"sat","assignment":[]}',
    "Infinity": b'{"cnf":{"num_vars":-Infinity,"clauses":[]},"claim":"sat"}',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "not UTF-8": b'{"claim":"\xc3\x28"}',
    "not an object": b'"sat"',
    "out of range": b'{"cnf":{"num_vars":2,"clauses":[[3]]},"claim":"sat","assignment":[]}',
    "over a limit": b'{"cnf":{"num_vars":10001,"clauses":[]},"claim":"sat","assignment":[]}',
    "1e400": b'{"cnf":{"num_vars":1e400,"clauses":[]},"claim":"sat","assignment":[]}',
}


def cli_check(capsysbinary, data, *args):
    """(exit code, stdout bytes) of `sat-claim-check check ARGS -` on ``data``."""
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    try:
        code = cli.main(["check", *args, "-"])
    finally:
        sys.stdin = old
    return code, capsysbinary.readouterr().out


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_the_bytes_and_exit_code_of_check(engine, capsysbinary, name):
    data = TEXTS[name]
    outcome = scc.check_json(data, engine=engine)
    code, out = cli_check(capsysbinary, data, "--engine", engine)
    assert (outcome.exit_code, outcome.body + b"\n") == (code, out)
    assert not outcome.body.endswith(b"\n")
    outcome.body.decode("ascii")
    assert json.loads(outcome.body) == outcome.data


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_the_examples(engine, capsysbinary, path):
    outcome = scc.check_json(path.read_bytes(), engine=engine)
    code, out = cli_check(capsysbinary, path.read_bytes(), "--engine", engine)
    assert (outcome.exit_code, outcome.body + b"\n") == (code, out)


def test_the_three_statuses(engine):
    valid = scc.check_json(TINY_UNSAT, engine=engine)
    assert (valid.status, valid.exit_code, valid.error) == ("valid", 0, None)
    assert valid.report == scc.run(json.loads(TINY_UNSAT), engine=engine)
    assert valid.report.engine == engine

    not_valid = scc.check_json(NOT_RUP, engine=engine)
    assert (not_valid.status, not_valid.exit_code, not_valid.error) == ("not_valid", 1, None)
    assert not_valid.data["reason"] == "lemma_not_rup"

    rejected = scc.check_json(NOT_RUP, engine=engine, limits=scc.Limits(max_proof_steps=0))
    assert (rejected.status, rejected.exit_code, rejected.report) == ("rejected", 2, None)
    assert isinstance(rejected.error, scc.LimitExceeded)
    assert rejected.data == rejected.error.to_dict()
    assert rejected.data["limit"] == "max_proof_steps"


def test_errors_of_the_text_name_no_field():
    for name in ("malformed", "repeated key", "NaN", "deep", "not UTF-8", "empty"):
        outcome = scc.check_json(TEXTS[name])
        assert isinstance(outcome.error, scc.InvalidInput), name
        assert (outcome.data["field"], outcome.data["path"]) == (None, ""), name


def test_bytes_bytearray_and_str_are_the_same_text():
    outcomes = [scc.check_json(t) for t in (NOT_RUP, bytearray(NOT_RUP), NOT_RUP.decode())]
    assert len({o.body for o in outcomes}) == 1
    assert {o.status for o in outcomes} == {"not_valid"}


def test_data_is_a_new_dict_each_time():
    outcome = scc.check_json(NOT_RUP)
    outcome.data["valid"] = "changed"
    assert outcome.data["valid"] is False
    assert list(outcome.data) == list(outcome.report.result)


@pytest.mark.parametrize("data", [None, 7, {"cnf": {}}, memoryview(b"{}")])
def test_only_text_is_taken(data):
    with pytest.raises(TypeError, match="JSON text"):
        scc.check_json(data)


def test_progress_can_stop_the_check(engine):
    length, lemmas = 2000, 600  # 2.4 M work: at least two polls
    request = {
        "cnf": {"num_vars": length, "clauses": [[-i, i + 1] for i in range(1, length)]},
        "claim": "unsat",
        "proof": [{"add": [-1, length]}, {"delete": [length, -1]}] * lemmas,
    }
    calls = []

    def progress(steps_checked, work):
        calls.append(work)
        raise TimeoutError("stop")

    with pytest.raises(TimeoutError, match="stop"):
        scc.check_json(json.dumps(request), engine=engine, progress=progress)
    assert len(calls) == 1


def test_integers_of_any_size_quickly(capsysbinary):
    # A million digits: read exactly, in linear time, and written back verbatim.
    digits = b"9" * 1_000_000
    text = b'{"cnf":{"num_vars":' + digits + b',"clauses":[]},"claim":"sat","assignment":[]}'
    start = time.monotonic()
    outcome = scc.check_json(text)
    assert time.monotonic() - start < 2.0
    assert outcome.error.limit == "max_vars"
    assert b'"actual":' + digits + b"," in outcome.body
    code, out = cli_check(capsysbinary, text)
    assert (code, out) == (2, outcome.body + b"\n")


def test_threads_read_long_integers_exactly():
    digits = "7" * 6000
    text = '{"cnf":{"num_vars":' + digits + ',"clauses":[]},"claim":"sat","assignment":[]}'
    original = sys.get_int_max_str_digits()
    errors = []

    def work():
        for _ in range(20):
            outcome = scc.check_json(text)
            if outcome.error is None or f'"actual":{digits},'.encode() not in outcome.body:
                errors.append(outcome.body[:100])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sys.get_int_max_str_digits() == original
