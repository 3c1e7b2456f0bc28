"""The HTTP service as it runs: `sat-claim-check serve` in a child process on
127.0.0.1 (a port the system picks), spoken to over HTTP with http.client and
raw sockets.  Nothing here leaves the loopback interface; every loop is
bounded in count and time.

Three servers: the contract's limits (the corpus, hostile bodies, load), small
limits and a small body cap (the 413 and 422 answers), and raised limits with
one worker (long checks: a client that vanishes, a full queue, shutdown).
"""

import contextlib
import io
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from importlib import resources
from pathlib import Path

import pytest
from _service import JSON, raw_request, read_response, running

import sat_claim_check as scc
from sat_claim_check import cli
from sat_claim_check.service import (
    EXECUTE_PATH,
    TOOL_PATH,
    create_app,
    default_max_body_bytes,
    http_status,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TINY_UNSAT = b'{"cnf":{"num_vars":1,"clauses":[[1],[-1]]},"claim":"unsat","proof":[{"add":[]}]}'


@pytest.fixture(scope="module")
def server():
    """The contract's limits, two workers; a short body timeout for the slow senders."""
    with running("--workers", "2", "--queue", "6", "--body-timeout", "1") as s:
        yield s
        s.assert_healthy()


@pytest.fixture(scope="module")
def small():
    """Small limits and a small body cap."""
    with running(
        "--workers",
        "1",
        "--max-body-bytes",
        "4096",
        "--limit",
        "max_proof_steps=10",
        "--limit",
        "max_propagation_work=20",
    ) as s:
        yield s
        s.assert_healthy()


@pytest.fixture(scope="module")
def raised():
    """Raised limits, one worker and a queue of one: long checks."""
    with running("--unlimited", "--workers", "1", "--queue", "1") as s:
        yield s
        s.assert_healthy()


def cli_stdout(capsysbinary, *args, stdin=b""):
    """What `sat-claim-check ARGS` writes on stdout, run in this process."""
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        cli.main(list(args))
    finally:
        sys.stdin = old
    return capsysbinary.readouterr().out


def chain_request(length, lemmas):
    """A proof whose every lemma walks an implication chain: 2*length - 1 work each."""
    clauses = [[-i, i + 1] for i in range(1, length)]
    proof = [{"add": [-1, length]}, {"delete": [length, -1]}] * lemmas
    return json.dumps(
        {"cnf": {"num_vars": length, "clauses": clauses}, "claim": "unsat", "proof": proof},
        separators=(",", ":"),
    ).encode()


def long_request(engine):
    """A check of over 5 s: 2e9 work compiled, 6e7 with the reference engine."""
    return chain_request(20_000, 50_000 if engine == "compiled" else 1_500)


# -- the application, without a server --------------------------------------------


def test_the_body_cap_follows_the_limits():
    assert default_max_body_bytes(scc.Limits()) == 32 * 117_000 + 2**20 == 4_792_576
    small = scc.Limits(
        max_vars=1,
        max_clauses=1,
        max_total_literals=1,
        max_assignment_literals=1,
        max_proof_steps=1,
        max_proof_literals=1,
    )
    assert default_max_body_bytes(small) == 32 * 5 + 2**20
    assert default_max_body_bytes(scc.Limits.unlimited()) == 256 * 2**20
    assert create_app(max_body_bytes=10).max_body_bytes == 10


def test_the_status_table():
    unsat = scc.check_json(TINY_UNSAT)
    not_valid = scc.check_json(b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"unsat","proof":[]}')
    invalid = scc.check_json(b"{")
    size = scc.check_json(TINY_UNSAT, limits=scc.Limits(max_clauses=1))
    work = scc.check_json(TINY_UNSAT, limits=scc.Limits(max_propagation_work=0))
    assert [o.status for o in (unsat, not_valid, invalid, size, work)] == [
        "valid",
        "not_valid",
        "rejected",
        "rejected",
        "rejected",
    ]
    assert work.error.limit == "max_propagation_work"
    assert [http_status(o) for o in (unsat, not_valid, invalid, size, work)] == [
        200,
        200,
        400,
        413,
        422,
    ]


@pytest.mark.parametrize(
    ("setting", "error"),
    [
        ({"workers": 0}, ValueError),
        ({"workers": 1.5}, ValueError),
        ({"queue": -1}, ValueError),
        ({"max_body_bytes": 0}, ValueError),
        ({"body_timeout": 0}, ValueError),
        ({"retry_after": -1}, ValueError),
        ({"engine": "fast"}, ValueError),
        ({"limits": {"max_vars": 1}}, TypeError),
    ],
)
def test_settings_out_of_range(setting, error):
    with pytest.raises(error):
        create_app(**setting)


def call(app, scope, chunks):
    """Drive the ASGI app with ``chunks`` of body; (status, headers, body) sent."""
    import asyncio

    async def main():
        incoming = [
            {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
            for i, c in enumerate(chunks)
        ]
        sent = []

        async def receive():
            if incoming:
                return incoming.pop(0)
            await asyncio.sleep(3600)  # the client stays until the answer

        async def send(message):
            sent.append(message)

        await app(
            {
                "type": "http",
                "method": "POST",
                "headers": [(b"content-type", b"application/json")],
                **scope,
            },
            receive,
            send,
        )
        return sent

    sent = asyncio.run(main())
    app.close()
    return (
        sent[0]["status"],
        dict(sent[0]["headers"]),
        b"".join(m.get("body", b"") for m in sent[1:]),
    )


def test_the_app_mounted_under_a_root_path():
    app = create_app(workers=1)
    status, headers, body = call(
        app,
        {"path": "/api" + EXECUTE_PATH, "root_path": "/api"},
        [TINY_UNSAT[:10], TINY_UNSAT[10:]],
    )
    assert (status, body) == (200, scc.check_json(TINY_UNSAT).body)
    assert headers[b"content-type"] == b"application/json"
    assert call(app, {"path": EXECUTE_PATH}, [TINY_UNSAT])[0] == 200
    assert call(app, {"path": "/api/other", "root_path": "/api"}, [b""])[0] == 404


# -- the corpus, byte for byte ---------------------------------------------------


def corpus_requests(server, corpus, compiled_count=None, reference_count=30):
    """The contract-tier requests; with the reference engine (the pure build,
    65 times slower on proofs) the smallest ``reference_count`` of them."""
    paths = sorted(corpus.glob("c*.json"))
    if server.health()["engine"] == "reference":
        return sorted(paths, key=lambda p: p.stat().st_size)[:reference_count]
    return paths[:compiled_count]


def test_every_corpus_request_is_answered_as_check_answers_it(server, corpus, capsysbinary):
    paths = corpus_requests(server, corpus)
    assert len(paths) >= 30
    conn = server.connection()  # one keep-alive connection for all of them
    try:
        for path in paths:
            expected = cli_stdout(capsysbinary, "check", str(path))
            conn.request("POST", EXECUTE_PATH, body=path.read_bytes(), headers=JSON)
            response = conn.getresponse()
            body = response.read()
            assert response.status == 200, (path.name, body)
            assert response.getheader("Content-Type") == "application/json"
            assert body + b"\n" == expected, path.name
    finally:
        conn.close()


def test_the_command_itself_writes_the_same_bytes(server, corpus):
    names = [
        "c000-php-pigeons5-holes4-glucose3-s1000.json",  # valid unsat
        "c002-php-pigeons6-holes5-glucose4-s1200.json",  # lemma_not_rup
        "c098-randk-n10000-m4000-k12-glucose4-s104200.json",
    ]  # a sat claim
    for name in names:
        path = corpus / name
        out = subprocess.run(
            [sys.executable, "-m", "sat_claim_check", "check", str(path)],
            capture_output=True,
            timeout=60,
        )
        status, _, body = server.execute(path.read_bytes())
        assert status == 200
        assert body + b"\n" == out.stdout, name


def test_the_reference_engine_answers_the_same(corpus, capsysbinary):
    paths = sorted(corpus.glob("c00*.json"))[:4] + sorted(EXAMPLES.glob("tiny-*.json"))
    with running("--engine", "reference", "--workers", "1") as reference:
        assert reference.health()["engine"] == "reference"
        for path in paths:
            expected = cli_stdout(capsysbinary, "check", "--engine", "reference", str(path))
            status, _, body = reference.execute(path.read_bytes())
            assert (status, body + b"\n") == (200, expected), path.name


# -- the other routes ---------------------------------------------------------------


def test_tool_description(server):
    shipped = resources.files("sat_claim_check").joinpath("schemas/tool.json").read_bytes()
    status, headers, body = server.request("GET", TOOL_PATH)
    assert (status, body) == (200, shipped)
    assert headers["content-type"] == "application/json"
    tool = json.loads(body)
    assert tool["execute_url"] == EXECUTE_PATH
    assert {"input_schema", "output_schema", "limits"} <= set(tool)
    status, headers, body = server.request("HEAD", TOOL_PATH)
    assert (status, body, int(headers["content-length"])) == (200, b"", len(shipped))


def test_health(server):
    health = server.health()
    assert health["status"] == "ok"
    assert (health["workers"], health["queue"]) == (2, 6)
    assert health["max_body_bytes"] == 4_792_576
    assert health["limits"]["max_proof_steps"] == 2000


@pytest.mark.parametrize(
    ("method", "path", "status", "allow"),
    [
        ("GET", EXECUTE_PATH, 405, "POST"),
        ("PUT", EXECUTE_PATH, 405, "POST"),
        ("POST", TOOL_PATH, 405, "GET, HEAD"),
        ("DELETE", "/healthz", 405, "GET, HEAD"),
        ("POST", "/v1/tools/sat-claim-check/versions/2.0.0/execute", 404, None),
        ("POST", EXECUTE_PATH + "/", 404, None),
        ("GET", "/", 404, None),
    ],
)
def test_wrong_paths_and_methods(server, method, path, status, allow):
    got, headers, body = server.request(method, path, TINY_UNSAT, JSON)
    assert got == status
    assert headers.get("allow") == allow
    assert json.loads(body)["error"] in ("not_found", "method_not_allowed")


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        (None, 415),
        ("text/plain", 415),
        ("application/x-www-form-urlencoded", 415),
        ("application/json; charset=latin-1", 415),
        ("application/json; boundary=x", 415),
        ("application/jsonx", 415),
        ("application/json", 200),
        ("application/json; charset=utf-8", 200),
        ('Application/JSON; charset="UTF-8"', 200),
    ],
)
def test_content_type(server, content_type, status):
    headers = {} if content_type is None else {"Content-Type": content_type}
    got, _, body = server.execute(TINY_UNSAT, headers)
    assert got == status, body
    if status == 415:
        assert json.loads(body)["error"] == "unsupported_media_type"


# -- hostile bodies ----------------------------------------------------------------

HOSTILE = {
    "malformed": b'{"cnf": ',
    "empty": b"",
    "repeated key": (
        b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"sat","claim":"unsat","assignment":[]}'
    ),
    "deep nesting": b"[" * 200_000 + b"]" * 200_000,
    "NaN": b'{"cnf":{"num_vars":NaN,"clauses":[]},"claim":"sat","assignment":[]}',
    "not UTF-8": b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"\xff"}',
    "lone surrogate": b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"\\ud800"}',
    "not an object": b"[1, 2, 3]",
    "bad field": b'{"cnf":{"num_vars":2,"clauses":[[1,7]]},"claim":"sat","assignment":[]}',
    "unknown key": b'{"cnf":{"num_vars":1,"clauses":[]},"claim":"sat","zzz":1}',
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bodies_get_the_error_check_writes(server, capsysbinary, name):
    body = HOSTILE[name]
    expected = cli_stdout(capsysbinary, "check", stdin=body)
    status, _, got = server.execute(body)
    assert status == 400
    assert got + b"\n" == expected
    assert json.loads(got)["error"] == "invalid_input"


def test_truncated_corpus_requests(server, corpus):
    text = (corpus / "c000-php-pigeons5-holes4-glucose3-s1000.json").read_bytes()
    for cut in (1, len(text) // 3, len(text) // 2, len(text) - 1):
        status, _, body = server.execute(text[:cut])
        assert status == 400, cut
        assert json.loads(body)["field"] is None


def test_a_very_long_integer_costs_no_more_than_its_length(server, capsysbinary):
    # A million digits (converted with int(), seconds of CPU): read in linear
    # time, and the answer is check's, digit for digit.
    body = (
        b'{"cnf":{"num_vars":' + b"9" * 1_000_000 + b',"clauses":[]},"claim":"sat","assignment":[]}'
    )
    start = time.monotonic()
    status, _, got = server.execute(body)
    assert time.monotonic() - start < 2.0
    assert status == 413
    assert got + b"\n" == cli_stdout(capsysbinary, "check", stdin=body)
    assert b'"limit":"max_vars"' in got


def test_a_body_over_the_cap_is_refused_from_its_length(server):
    cap = server.health()["max_body_bytes"]
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(raw_request(b"", length=cap + 1))  # the body is never sent
        status, body = read_response(sock)
    assert status == 413
    assert json.loads(body) == {
        "error": "body_too_large",
        "max": cap,
        "actual": cap + 1,
        "message": f"the body is over {cap} bytes",
    }


def test_a_body_over_the_cap_is_refused_while_it_streams(server):
    cap = server.health()["max_body_bytes"]
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            raw_request(b"", length=0).replace(b"Content-Length: 0", b"Transfer-Encoding: chunked")
        )
        chunk = b"[" * 65536
        with contextlib.suppress(OSError):  # the server stops reading at the cap
            for _ in range(cap // len(chunk) + 2):
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        status, body = read_response(sock)
    assert status == 413
    assert json.loads(body)["actual"] is None


def test_the_size_and_work_limits(small):
    steps = json.dumps(
        {
            "cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
            "claim": "unsat",
            "proof": [{"add": [1]}] * 11,
        }
    ).encode()
    status, _, body = small.execute(steps)
    assert status == 413
    error = json.loads(body)
    assert (error["error"], error["limit"], error["actual"]) == (
        "limit_exceeded",
        "max_proof_steps",
        11,
    )
    status, _, body = small.execute(chain_request(30, 2))
    assert status == 422
    error = json.loads(body)
    assert (error["error"], error["limit"], error["max"]) == (
        "limit_exceeded",
        "max_propagation_work",
        20,
    )
    assert error["step_index"] == 0
    status, _, body = small.execute(b" " * 4097)
    assert status == 413
    assert json.loads(body)["error"] == "body_too_large"
    status, _, body = small.execute(b" " * (4096 - len(TINY_UNSAT)) + TINY_UNSAT)  # the cap
    assert (status, json.loads(body)["valid"]) == (200, True)


def test_a_slow_sender_gets_408_and_costs_nothing(server, slack):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(raw_request(b"", length=len(TINY_UNSAT)))
        start = time.monotonic()
        for byte in TINY_UNSAT[:3]:  # a byte every 0.2 s, then silence
            sock.sendall(bytes([byte]))
            assert server.execute(TINY_UNSAT)[0] == 200  # others are answered
            time.sleep(0.2)
        status, body = read_response(sock, timeout=5)
        waited = time.monotonic() - start
    assert status == 408
    assert json.loads(body)["error"] == "request_timeout"
    assert 0.9 < waited < 3.0 * slack  # the server's 1 s budget for the body
    server.wait_for(lambda h: h["in_flight"] == 0)


def test_a_slow_sender_within_the_budget_is_answered(server):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(raw_request(TINY_UNSAT))
        for i in range(0, len(TINY_UNSAT), 20):
            sock.sendall(TINY_UNSAT[i : i + 20])
            time.sleep(0.05)
        status, body = read_response(sock)
    assert (status, json.loads(body)["valid"]) == (200, True)


def test_garbage_instead_of_http(server):
    for data in (b"\x00\xff" * 100 + b"\r\n\r\n", b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(data)
            sock.settimeout(5)
            reply = sock.recv(1000)
        assert reply.startswith(b"HTTP/1.1 4"), reply
    server.assert_healthy()


def test_connections_that_send_nothing_or_half_a_request(server):
    socks = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(20)]
    try:
        for i, sock in enumerate(socks):
            sock.sendall(raw_request(TINY_UNSAT)[: i * 7])
        assert server.execute(TINY_UNSAT)[0] == 200
    finally:
        for sock in socks:
            sock.close()
    server.wait_for(lambda h: h["in_flight"] == 0)


# -- long checks: the client that vanishes, the full queue, shutdown ------------------


def send_and_vanish_later(server, body):
    """A socket that has sent ``body`` and waits; close it to vanish."""
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(raw_request(body) + body)
    return sock


def test_a_vanished_client_stops_its_check(raised, slack):
    body = long_request(raised.health()["engine"])
    before = raised.health()
    sock = send_and_vanish_later(raised, body)
    raised.wait_for(lambda h: h["checking"] == 1)
    time.sleep(0.3)  # well inside the check
    sock.close()
    health, seconds = raised.wait_for(lambda h: h["checking"] == 0 and h["in_flight"] == 0)
    # The check would take over 5 s; a poll every 2**20 units of work stops it
    # (a few ms of the compiled engine, a fifth of a second of the reference one).
    assert seconds < 2.5 * slack
    assert health["cancelled"] == before["cancelled"] + 1
    assert health["checks"] == before["checks"]
    # The one worker is free at once.
    start = time.monotonic()
    assert raised.execute(TINY_UNSAT)[0] == 200
    assert time.monotonic() - start < 2.0 * slack
    assert "check stopped, the client has gone" in "".join(raised.log)


def test_a_full_queue_gets_503_with_retry_after(raised):
    body = long_request(raised.health()["engine"])
    running_check = send_and_vanish_later(raised, body)
    raised.wait_for(lambda h: h["checking"] == 1)
    queued = send_and_vanish_later(raised, TINY_UNSAT)  # the queue holds one
    raised.wait_for(lambda h: h["in_flight"] == 2)
    before = raised.health()["overloaded"]
    status, headers, reply = raised.execute(TINY_UNSAT)
    assert status == 503
    assert headers["retry-after"] == "1"
    assert json.loads(reply)["error"] == "overloaded"
    assert raised.health()["overloaded"] == before + 1
    # The queued request is answered once the long check goes.
    running_check.close()
    status, reply = read_response(queued, timeout=5)
    queued.close()
    assert (status, json.loads(reply)["valid"]) == (200, True)
    raised.wait_for(lambda h: h["in_flight"] == 0 and h["checking"] == 0)
    assert raised.execute(TINY_UNSAT)[0] == 200


def test_a_client_that_leaves_while_queued_costs_nothing(raised):
    body = long_request(raised.health()["engine"])
    running_check = send_and_vanish_later(raised, body)
    raised.wait_for(lambda h: h["checking"] == 1)
    before = raised.health()
    queued = send_and_vanish_later(raised, body)
    raised.wait_for(lambda h: h["in_flight"] == 2)
    queued.close()  # leaves the queue: it never starts
    raised.wait_for(lambda h: h["in_flight"] == 1)
    running_check.close()
    health, _ = raised.wait_for(lambda h: h["in_flight"] == 0 and h["checking"] == 0)
    assert health["cancelled"] == before["cancelled"] + 1


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM")
def test_shutdown_answers_the_requests_in_flight():
    with running("--unlimited", "--workers", "1") as server:
        engine = server.health()["engine"]
        # About half a second of checking.
        body = chain_request(20_000, 4_000 if engine == "compiled" else 40)
        sock = send_and_vanish_later(server, body)
        server.wait_for(lambda h: h["checking"] == 1)
        server.proc.send_signal(signal.SIGTERM)
        status, reply = read_response(sock, timeout=30)
        sock.close()
        assert (status, json.loads(reply)["valid"]) == (200, False)
        # Ended by the signal it handled once all was answered (uvicorn >= 0.29).
        assert server.proc.wait(timeout=15) in (-signal.SIGTERM, 0)
        log = "".join(server.log)
        assert "Application shutdown complete" in log
        assert "Traceback" not in log


# -- load ------------------------------------------------------------------------------


def test_bounded_concurrent_load(server, corpus, capsysbinary):
    paths = corpus_requests(server, corpus, reference_count=12)
    paths = paths if len(paths) <= 12 else paths[::4]  # 25 of the 99
    requests = [(p.read_bytes(), cli_stdout(capsysbinary, "check", str(p))) for p in paths]
    errors, clients, rounds = [], 6, 3

    def client(k, deadline):
        conn = server.connection()
        try:
            for i in range(len(requests)):
                if time.monotonic() > deadline:
                    break
                body, expected = requests[(i + k) % len(requests)]
                conn.request("POST", EXECUTE_PATH, body=body, headers=JSON)
                response = conn.getresponse()
                got = response.read()
                if response.status != 200 or got + b"\n" != expected:
                    errors.append((response.status, got[:200]))
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            conn.close()

    rss = []
    for _ in range(rounds):
        deadline = time.monotonic() + 4
        threads = [threading.Thread(target=client, args=(k, deadline)) for k in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        rss.append(server.rss())
    assert errors == []
    health = server.wait_for(lambda h: h["in_flight"] == 0)[0]
    assert health["overloaded"] == 0
    if rss[0] is not None:
        # After the first round has warmed the allocator, the resident set stays put.
        assert rss[-1] - rss[0] < 16 * 2**20, rss


def test_the_pool_stays_at_its_size(server):
    # Six clients at once, each sending long checks: two worker threads, no
    # more, however many requests wait.  (This test makes its own load: it
    # used to count on the corpus test's, which skips without the corpus.)
    lemmas = 1000 if server.health()["engine"] == "compiled" else 10
    body = chain_request(4_000, lemmas)
    errors = []

    def client():
        conn = server.connection(timeout=60)
        try:
            for _ in range(3):
                conn.request("POST", EXECUTE_PATH, body=body, headers=JSON)
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    errors.append(response.status)
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(6)]
    for t in threads:
        t.start()
    seen = []
    while any(t.is_alive() for t in threads):
        health = server.health()
        seen.append((health["threads"], health["checking"]))
        time.sleep(0.005)
    assert errors == []
    assert max(checking for _, checking in seen) <= 2
    assert max(threads for threads, _ in seen) == 2
    assert server.health()["threads"] == 2
