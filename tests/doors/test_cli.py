"""SPEC §8: the command line, run as a subprocess: exit codes and exact bytes."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import pytest
from _helpers import CLI, cli

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check._io import bounds
from sat_claim_check.limits import Limits

REFERENCE_VERSION = b"r71-sat-1.0.0+dimacs-cnf-1993+resolution-robinson-1965+drup-2013"

EX1 = b'{"cnf":{"num_vars":1,"clauses":[[1],[-1]]},"claim":"unsat","proof":[{"add":[]}]}'
EX2 = b'{"cnf":{"num_vars":2,"clauses":[[1,2]]},"claim":"unsat","proof":[{"add":[1]}]}'
EX3 = b'{"cnf":{"num_vars":2,"clauses":[[1],[-2]]},"claim":"sat","assignment":[1,-2]}'

OUT1 = (
    b'{"valid":true,"reason":null,"first_discrepancy":null,"claim":"unsat",'
    b'"clauses_checked":0,"steps_checked":1,"reference_version":"' + REFERENCE_VERSION + b'"}\n'
)
OUT2 = (
    b'{"valid":false,"reason":"lemma_not_rup","first_discrepancy":'
    b'{"kind":"step","step_index":0,"clause":[1]},"claim":"unsat",'
    b'"clauses_checked":0,"steps_checked":0,"reference_version":"' + REFERENCE_VERSION + b'"}\n'
)
OUT3 = (
    b'{"valid":true,"reason":null,"first_discrepancy":null,"claim":"sat",'
    b'"clauses_checked":2,"steps_checked":0,"reference_version":"' + REFERENCE_VERSION + b'"}\n'
)

UNUSABLE = b'{"error":"invalid_input","field":null,"path":"","message":'


def assert_result_run(out, code, expected):
    assert out.stdout == expected
    assert out.stderr == b""
    assert out.returncode == code


def assert_rejected(out, prefix):
    """Exit 2, one compact line on stdout starting with ``prefix``, one line on stderr."""
    assert b"Traceback" not in out.stderr
    assert out.returncode == 2, out.stderr
    assert out.stdout.startswith(prefix), out.stdout[:300]
    assert out.stdout.endswith(b"}\n") and out.stdout.count(b"\n") == 1
    error = json.loads(out.stdout)
    assert list(error)[-1] == "message" and isinstance(error["message"], str)
    # compact: re-writing the object compactly gives the same bytes
    assert out.stdout == json.dumps(error, separators=(",", ":")).encode() + b"\n"
    assert out.stderr.endswith(b"\n") and out.stderr.count(b"\n") == 1
    return error


# -- results ------------------------------------------------------------------------


def test_valid_on_stdin(engine):
    assert_result_run(cli("check", "--engine", engine, stdin=EX1), 0, OUT1)
    assert_result_run(cli("check", "-", "--engine", engine, stdin=EX3), 0, OUT3)


def test_no_file_reads_stdin():
    assert_result_run(cli("check", stdin=EX3), 0, OUT3)


def test_not_valid_from_a_file(engine, tmp_path):
    path = tmp_path / "request.json"
    path.write_bytes(EX2)
    assert_result_run(cli("check", str(path), "--engine", engine), 1, OUT2)


def test_discrepancy_key_order(engine):
    request = b'{"assignment":[-1,2,-3,-2],"claim":"sat","cnf":{"clauses":[[1,2]],"num_vars":3}}'
    expected = (
        b'{"valid":false,"reason":"conflicting_assignment","first_discrepancy":'
        b'{"kind":"assignment","assignment_index":3,"literal":-2,"previous_index":1},'
        b'"claim":"sat","clauses_checked":0,"steps_checked":0,"reference_version":"'
        + REFERENCE_VERSION
        + b'"}\n'
    )
    assert_result_run(cli("check", "--engine", engine, stdin=request), 1, expected)
    request = b'{"cnf":{"num_vars":3,"clauses":[[1],[3,-1,2]]},"claim":"sat","assignment":[1]}'
    expected = (
        b'{"valid":false,"reason":"clause_undetermined","first_discrepancy":'
        b'{"kind":"clause","clause_index":1,"clause":[3,-1,2],'
        b'"unassigned_literals":[3,2]},"claim":"sat","clauses_checked":1,'
        b'"steps_checked":0,"reference_version":"' + REFERENCE_VERSION + b'"}\n'
    )
    assert_result_run(cli("check", "--engine", engine, stdin=request), 1, expected)
    request = b'{"cnf":{"num_vars":2,"clauses":[]},"claim":"unsat","proof":[{"add":[2,-4]}]}'
    expected = (
        b'{"valid":false,"reason":"literal_out_of_range","first_discrepancy":'
        b'{"kind":"step","step_index":0,"literal":-4,"clause":[2,-4]},'
        b'"claim":"unsat","clauses_checked":0,"steps_checked":0,"reference_version":"'
        + REFERENCE_VERSION
        + b'"}\n'
    )
    assert_result_run(cli("check", "--engine", engine, stdin=request), 1, expected)


def test_numbers_with_a_fraction_or_exponent(engine):
    # 2.0 is 2 and 3e0 is 3, and the output says 3
    request = b'{"cnf":{"num_vars":2.0,"clauses":[[1.0,-2]]},"claim":"sat","assignment":[2.0,3e0]}'
    expected = (
        b'{"valid":false,"reason":"assignment_variable_out_of_range",'
        b'"first_discrepancy":{"kind":"assignment","assignment_index":1,"literal":3},'
        b'"claim":"sat","clauses_checked":0,"steps_checked":0,"reference_version":"'
        + REFERENCE_VERSION
        + b'"}\n'
    )
    assert_result_run(cli("check", "--engine", engine, stdin=request), 1, expected)


def test_pretty_is_the_same_object():
    out = cli("check", "--pretty", stdin=EX2)
    assert out.returncode == 1
    assert json.loads(out.stdout) == json.loads(OUT2)
    assert list(json.loads(out.stdout)) == list(json.loads(OUT2))


# -- errors ----------------------------------------------------------------------------


def test_invalid_request():
    out = cli("check", stdin=b'{"cnf":{"num_vars":2,"clauses":[[1,0]]},"claim":"x"}')
    assert_rejected(
        out, b'{"error":"invalid_input","field":"cnf","path":"/cnf/clauses/0/1","message":'
    )
    out = cli("check", stdin=b'{"cnf":{"num_vars":2,"clauses":[]},"zzz":1}')
    assert_rejected(out, b'{"error":"invalid_input","field":"zzz","path":"/zzz","message":')


def test_exponent_overflow_is_not_an_integer():
    out = cli(
        "check", stdin=b'{"cnf":{"num_vars":1e400,"clauses":[]},"claim":"sat","assignment":[]}'
    )
    assert_rejected(
        out, b'{"error":"invalid_input","field":"cnf","path":"/cnf/num_vars","message":'
    )


def test_limit_errors():
    out = cli(
        "check",
        stdin=b'{"cnf":{"num_vars":1000000000000000000000000000000,'
        b'"clauses":[]},"claim":"sat","assignment":[]}',
    )
    assert_rejected(
        out,
        b'{"error":"limit_exceeded","field":"cnf","path":"/cnf/num_vars",'
        b'"limit":"max_vars","max":10000,'
        b'"actual":1000000000000000000000000000000,"message":',
    )
    out = cli("check", "--limit", "max_vars=1", stdin=EX3)
    assert_rejected(
        out,
        b'{"error":"limit_exceeded","field":"cnf","path":"/cnf/num_vars",'
        b'"limit":"max_vars","max":1,"actual":2,"message":',
    )


def test_work_limit_error(engine):
    # example 2 costs 3 units of work, all at step 0 (see test_unsat.py)
    out = cli("check", "--engine", engine, "--limit", "max_propagation_work=2", stdin=EX2)
    assert_rejected(
        out,
        b'{"error":"limit_exceeded","field":"proof","path":"/proof/0",'
        b'"limit":"max_propagation_work","max":2,"step_index":0,"message":',
    )
    # example 1 costs 1 unit, in the initial build
    out = cli("check", "--engine", engine, "--limit", "max_propagation_work=0", stdin=EX1)
    assert_rejected(
        out,
        b'{"error":"limit_exceeded","field":"cnf","path":"/cnf",'
        b'"limit":"max_propagation_work","max":0,"step_index":null,'
        b'"message":',
    )
    assert_result_run(
        cli("check", "--engine", engine, "--limit", "max_propagation_work=3", stdin=EX2), 1, OUT2
    )


def test_unlimited():
    request = b'{"cnf":{"num_vars":10001,"clauses":[[10001]]},"claim":"sat","assignment":[10001]}'
    out = cli("check", stdin=request)
    assert_rejected(
        out,
        b'{"error":"limit_exceeded","field":"cnf","path":"/cnf/num_vars",'
        b'"limit":"max_vars","max":10000,"actual":10001,"message":',
    )
    expected = (
        b'{"valid":true,"reason":null,"first_discrepancy":null,"claim":"sat",'
        b'"clauses_checked":1,"steps_checked":0,"reference_version":"' + REFERENCE_VERSION + b'"}\n'
    )
    assert_result_run(cli("check", "--unlimited", stdin=request), 0, expected)


UNUSABLE_TEXTS = {
    "empty": b"",
    "whitespace": b"  \n",
    "truncated": b'{"cnf":',
    "trailing-comma": b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"sat","assignment":[1,]}',
    "trailing-text": EX3 + b"x",
    "two-texts": EX3 + b" " + EX3,
    "single-quotes": b"{'cnf':1}",
    "comment": b'{"cnf":1 /* x */}',
    "not-utf8": b'{"cnf":"\xff"}',
    "not-utf8-truncated": b'{"zzz":"\xc3"}',
    "utf16": EX3.decode().encode("utf-16"),
    "nan": b'{"cnf":{"num_vars":NaN,"clauses":[]},"claim":"sat","assignment":[]}',
    "infinity": b'{"cnf":{"num_vars":1,"clauses":[[Infinity]]},"claim":"sat","assignment":[]}',
    "minus-infinity": b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"sat","assignment":[-Infinity]}',
    "repeated-key": b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"sat","claim":"unsat",'
    b'"assignment":[]}',
    "repeated-nested-key": b'{"cnf":{"num_vars":1,"clauses":[],"num_vars":1},"claim":"sat",'
    b'"assignment":[]}',
    "repeated-key-in-step": b'{"cnf":{"num_vars":1,"clauses":[[1],[-1]]},"claim":"unsat",'
    b'"proof":[{"add":[],"add":[]}]}',
    "deep-arrays": b"[" * 100000,
    "deep-arrays-closed": b"[" * 100000 + b"]" * 100000,
    "deep-inside-cnf": b'{"cnf":' + b"[" * 100000 + b"]" * 100000 + b"}",
    "deep-objects": b'{"a":' * 100000 + b"1" + b"}" * 100000,
    "leading-zero": b'{"cnf":{"num_vars":01,"clauses":[]},"claim":"sat","assignment":[]}',
    "plus-sign": b'{"cnf":{"num_vars":+1,"clauses":[]},"claim":"sat","assignment":[]}',
    "hex": b'{"cnf":{"num_vars":0x1,"clauses":[]},"claim":"sat","assignment":[]}',
    "control-character": b'{"cnf":1,"claim":"a\x01b"}',
    "not-an-object": b"[]",
    "a-number": b"3",
    "null": b"null",
    "text-after-the-object": EX1 + b" garbage",
    "repeated-key-other-value": EX1.replace(b'{"add":[]}', b'{"add":[],"add":[1]}'),
    "utf8-encoded-surrogate": EX1.replace(b'"claim"', b'"claim":"\xed\xa0\x80","x"'),
}


@pytest.fixture(scope="module")
def unusable_runs():
    # independent processes: run them side by side to keep the suite quick
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = pool.map(lambda text: cli("check", stdin=text), UNUSABLE_TEXTS.values())
        return dict(zip(UNUSABLE_TEXTS, runs))


@pytest.mark.parametrize("name", list(UNUSABLE_TEXTS))
def test_unusable_json_text(unusable_runs, name):
    error = assert_rejected(unusable_runs[name], UNUSABLE)
    assert (error["field"], error["path"]) == (None, "")


def test_a_byte_order_mark_is_ignored() -> None:
    assert_result_run(cli("check", stdin=b"\xef\xbb\xbf" + EX1), 0, OUT1)


def test_unreadable_file(tmp_path):
    assert_rejected(cli("check", str(tmp_path / "missing.json")), UNUSABLE)
    assert_rejected(cli("check", str(tmp_path)), UNUSABLE)


def test_a_directory_as_file_for_every_command(tmp_path: Path) -> None:
    error = assert_rejected(cli("check", str(tmp_path)), UNUSABLE)
    assert "directory" in error["message"].lower()
    cnf = tmp_path / "f.cnf"
    cnf.write_bytes(b"p cnf 1 2\n1 0\n-1 0\n")
    out = cli("batch", str(tmp_path))
    assert (out.returncode, out.stdout) == (2, b"")
    assert b"cannot read" in out.stderr and b"Traceback" not in out.stderr
    # The doors that check files write the error object, as `check` does.
    for args in (
        ["request", "--cnf", str(tmp_path), "--proof", str(cnf), "--check"],
        ["request", "--cnf", str(cnf), "--proof", str(tmp_path), "--check"],
        ["verify", str(tmp_path), str(cnf)],
        ["verify", str(cnf), str(tmp_path)],
    ):
        error = assert_rejected(cli(*args), UNUSABLE)
        assert "directory" in error["message"].lower(), args


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="permissions do not stop root"
)
def test_file_without_read_permission(tmp_path):
    path = tmp_path / "secret.json"
    path.write_bytes(EX3)
    path.chmod(0)
    try:
        assert_rejected(cli("check", str(path)), UNUSABLE)
    finally:
        path.chmod(0o600)


def test_odd_keys_never_crash():
    # A lone surrogate escape is not a Unicode string: other parsers replace or
    # refuse it, so it is unusable text, in a key or in a value.
    for text in (b'{"\\ud800":1}', b'{"cnf":1,"claim":"\\udfff"}'):
        out = cli("check", stdin=text)
        assert_rejected(out, b'{"error":"invalid_input","field":null,"path":"","message":')
    out = cli("check", stdin='{"é/~":1}'.encode())
    error = assert_rejected(out, b'{"error":"invalid_input","field":')
    assert (error["field"], error["path"]) == ("é/~", "/é~1~0")


def test_closed_standard_input():
    for command in ("check", "batch"):
        out = (
            subprocess.run(
                check=False,
                args=[*CLI, command],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=60,
                preexec_fn=lambda: os.close(0),
            )
            if os.name == "posix"
            else None
        )
        if out is None:
            pytest.skip("needs POSIX file descriptors")
        assert out.returncode == 2, out
        assert b"Traceback" not in out.stderr
        assert b"standard input" in out.stderr


def test_integer_of_any_size_on_the_command_line():
    # The error echoes the integer; reading it back needs Python's digit guard lifted.
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        _integer_of_any_size_on_the_command_line()
    finally:
        sys.set_int_max_str_digits(old)


def _integer_of_any_size_on_the_command_line():
    digits = b"9" * 5000
    out = cli(
        "check",
        stdin=b'{"cnf":{"num_vars":' + digits + b',"clauses":[]},"claim":"sat","assignment":[]}',
    )
    assert_rejected(
        out,
        b'{"error":"limit_exceeded","field":"cnf","path":"/cnf/num_vars",'
        b'"limit":"max_vars","max":10000,"actual":' + digits + b',"message":',
    )
    out = cli(
        "check",
        stdin=b'{"cnf":{"num_vars":2,"clauses":[[-' + digits + b"]]},"
        b'"claim":"sat","assignment":[]}',
    )
    assert_rejected(
        out, b'{"error":"invalid_input","field":"cnf","path":"/cnf/clauses/0/0","message":'
    )


# -- the other commands -----------------------------------------------------------------


def _shipped(name):
    return json.loads(
        resources.files("sat_claim_check").joinpath(f"schemas/{name}").read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("which", ["input", "output"])
def test_schema_command(which):
    out = cli("schema", which)
    assert out.returncode == 0
    assert out.stderr == b""
    assert json.loads(out.stdout) == _shipped(f"{which}.schema.json")


def test_version_names_the_implementation_of_each_part():
    out = cli("--version")
    assert out.returncode == 0
    # What it finds depends on the build, and on SAT_CLAIM_CHECK_NO_EXTENSIONS
    # (cli() passes this process's environment on).
    name = "compiled" if _engine.compiled_available() else "reference"
    parts = f"kernel: {name}, converter: {name}, scanner: {name}, json reader: {name}"
    assert out.stdout.decode().startswith(f"sat-claim-check {scc.__version__} ({parts}; ")
    out = cli("--version", env={"SAT_CLAIM_CHECK_NO_EXTENSIONS": "1"})
    assert out.returncode == 0
    assert (
        b"(kernel: reference, converter: reference, scanner: reference, json reader: reference; "
    ) in out.stdout


@pytest.mark.parametrize("args", [["--help"], ["check", "--help"], ["schema", "--help"]])
def test_help(args):
    out = cli(*args)
    assert out.returncode == 0
    assert b"usage" in out.stdout.lower()
    assert out.stderr == b""


@pytest.mark.parametrize("command", ["check", "batch", "request", "verify"])
def test_the_help_that_offers_max_input_bytes_says_its_default(command):
    # Its help points to the end of the help for the default cap; verify's
    # pointed at nothing there.
    blocks = cli(command, "--help").stdout.decode().split("\n\n")
    options = next(i for i, block in enumerate(blocks) if block.startswith("options:"))
    assert "the end of this help says how" in " ".join(blocks[options].split())
    assert "--max-input-bytes" in "\n\n".join(blocks[options + 1 :])


def test_verify_help_gives_the_caps_it_reads_files_with():
    out = " ".join(cli("verify", "--help").stdout.decode().split())
    unlimited, contract = Limits.unlimited(), Limits()
    assert f"{bounds.cnf_bytes(unlimited):,} bytes for the CNF or the proof" in out
    assert f"{bounds.model_bytes(unlimited):,} for a model" in out
    assert f"{bounds.cnf_bytes(contract):,}, {bounds.proof_bytes(contract):,} and" in out


def test_serve_has_no_max_input_bytes_it_would_ignore():
    # Its cap is --max-body-bytes; --max-input-bytes was accepted and unused.
    assert b"--max-input-bytes" not in cli("serve", "--help").stdout
    out = cli("serve", "--max-input-bytes", "5")
    assert out.returncode == 2 and b"unrecognized arguments" in out.stderr


def test_bad_arguments_are_not_tracebacks():
    for args in (
        ["check", "--engine", "fast"],
        ["check", "--limit", "max_vars"],
        ["check", "--limit", "nope=1"],
        ["schema", "both"],
        ["frobnicate"],
    ):
        out = cli(*args, stdin=EX1)
        assert out.returncode == 2, args
        assert b"Traceback" not in out.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_failed_write_is_exit_2_not_a_traceback():
    with open("/dev/full", "wb") as full:
        out = subprocess.run(
            check=False,
            args=[*CLI, "check"],
            input=b'{"cnf":{"num_vars":0,"clauses":[]},"claim":"sat","assignment":[]}',
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    assert out.returncode == 2
    assert b"Traceback" not in out.stderr
    assert b"cannot write" in out.stderr


def test_verify_starts_without_the_modules_only_other_commands_need(tmp_path: Path) -> None:
    """asyncio (a Dask cluster), importlib.resources (`schema`) and secrets (an
    LRAT file) are imported where they are used: `verify` started about a third
    sooner without them."""
    (tmp_path / "f.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "f.drup").write_text("0\n")
    code = (
        "import runpy, sys\n"
        "sys.argv = ['sat_claim_check', 'verify', 'f.cnf', 'f.drup']\n"
        "try:\n"
        "    runpy.run_module('sat_claim_check', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        "late = ('asyncio', 'importlib.resources', 'secrets')\n"
        "print(sorted(name for name in late if name in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
