"""What a client cannot make the service do: grow without bound, or hold it.

`sat-claim-check serve` in a child process on 127.0.0.1 (uvicorn, with the
protocol bounds of ``_uvicorn``), spoken to over raw sockets.  A client that
pipelines requests and never reads its answers took the server from 37 to 637
MiB; connections that never finished their headers stayed open for ever, and
512 of them made every request, /healthz included, get 503.
"""

import contextlib
import json
import re
import socket
import time

import pytest
from _service import Server, raw_request, read_response, running

SAT = json.dumps(
    {"cnf": {"num_vars": 2, "clauses": [[1], [-2]]}, "claim": "sat", "assignment": [1, -2]}
).encode()
MiB = 1 << 20


def pipelined(count):
    return (raw_request(SAT) + SAT) * count


def responses(sock, count, timeout=30):
    """(status, body) of ``count`` responses read in turn from one socket."""
    sock.settimeout(timeout)
    data = b""
    for _ in range(count):
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536) or pytest.fail(f"closed after {data[-200:]!r}")
        head, _, data = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))
        while len(data) < length:
            data += sock.recv(65536) or pytest.fail("closed inside a body")
        yield int(head.split()[1]), data[:length]
        data = data[length:]


def closed_by_peer(sock, timeout):
    """True when the server closes ``sock`` within ``timeout`` seconds."""
    sock.settimeout(timeout)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


@pytest.fixture(scope="module")
def server():
    with running("--workers", "1", "--header-timeout", "1", "--max-connections", "32") as s:
        yield s
        s.assert_healthy()


def test_a_client_that_pipelines_and_never_reads_stays_bounded(server: Server):
    before = server.rss()
    if before is None:
        pytest.skip("no /proc: the resident set cannot be read")
    block = pipelined(2000)  # about 0.4 MiB
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.setblocking(False)
    sent, deadline = 0, time.monotonic() + 2
    try:
        while time.monotonic() < deadline and sent < 64 * MiB:
            try:
                sent += sock.send(block)
            except BlockingIOError:
                time.sleep(0.01)
        grown = server.rss() - before
    finally:
        sock.close()
    # Before the bound the server read on (about 40 MiB a second here) and kept
    # it all; now it reads a few hundred KiB past the request it answers (as
    # fast as it answers, about 0.2 MiB a second), and the rest waits in the
    # sockets.
    assert grown < 24 * MiB, (grown, sent)
    assert sent < 32 * MiB, sent
    server.assert_healthy()


def test_every_pipelined_request_is_answered_in_order(server: Server):
    count = 1000
    bodies = [
        json.dumps(
            {
                "cnf": {"num_vars": 1, "clauses": [[1 if i % 2 else -1]]},
                "claim": "sat",
                "assignment": [1],
            }
        ).encode()
        for i in range(count)
    ]
    data = b"".join(raw_request(body) + body for body in bodies)
    sock = socket.create_connection(("127.0.0.1", server.port))
    try:
        sock.sendall(data)
        answers = list(responses(sock, count))
    finally:
        sock.close()
    assert all(status == 200 for status, _ in answers)
    assert [json.loads(body)["valid"] for _, body in answers] == [i % 2 == 1 for i in range(count)]


def test_a_connection_that_never_finishes_its_headers_is_closed(server: Server, slack: float):
    sock = socket.create_connection(("127.0.0.1", server.port))
    closed = False
    try:
        start = time.monotonic()
        for byte in b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: yes":
            sock.sendall(bytes([byte]))  # a byte every 0.2 s: never done
            closed = closed_by_peer(sock, 0.2)
            if closed:
                break
        took = time.monotonic() - start
    except OSError:  # a send after the close
        closed, took = True, time.monotonic() - start
    finally:
        sock.close()
    assert closed
    assert took < 2.0 * slack  # --header-timeout 1
    # Silence is closed the same way.
    sock = socket.create_connection(("127.0.0.1", server.port))
    try:
        assert closed_by_peer(sock, 5.0)
    finally:
        sock.close()


def test_the_deadline_starts_again_after_each_answer(server: Server):
    sock = socket.create_connection(("127.0.0.1", server.port))
    try:
        for _ in range(3):  # each request well within its own second
            sock.sendall(raw_request(SAT) + SAT)
            assert read_response(sock)[0] == 200
            time.sleep(0.5)
        assert closed_by_peer(sock, 5.0)
    finally:
        sock.close()


@contextlib.contextmanager
def half_headers(server: Server, count: int, settle: float = 0.0):
    """``count`` connections opened one after another, each sending part of
    its headers (each given ``settle`` seconds to be taken in); closed after."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(b"GET /hea")
            socks.append(sock)
            if settle:
                assert not closed_by_peer(sock, settle)  # the server has taken it in
        yield socks
    finally:
        for sock in socks:
            sock.close()


def test_slow_connections_cost_their_slots_not_the_service(server: Server, slack: float):
    # Twice --max-connections that never send their headers, then a client:
    # the slowest make room, /healthz and a check are answered.
    with half_headers(server, 64):
        started = time.monotonic()
        assert server.health()["status"] == "ok"
        status, _, body = server.execute(SAT)
        assert (status, json.loads(body)["valid"]) == (200, True)
        assert time.monotonic() - started < 1.0 * slack


def test_the_connections_waiting_longest_make_room_first(server: Server):
    # 40 connections that send part of their headers, one after another, past
    # --max-connections 32: the 8 that have waited longest are the ones closed.
    with half_headers(server, 40, settle=0.005) as socks:
        time.sleep(0.1)
        closed = [closed_by_peer(sock, 0.001) for sock in socks]
        assert closed == [True] * 8 + [False] * 32


def test_a_connection_in_a_request_is_never_closed_to_make_room(server: Server):
    # A request under way (its headers in, its body coming) keeps its
    # connection while slow ones crowd in past --max-connections: only those
    # waiting for headers are closed to make room, the longest waiting first.
    sock = socket.create_connection(("127.0.0.1", server.port))
    slow = []
    try:
        sock.sendall(raw_request(SAT) + SAT[:10])
        time.sleep(0.2)  # its headers are read
        for _ in range(40):
            other = socket.create_connection(("127.0.0.1", server.port))
            other.sendall(b"POST /v1")
            slow.append(other)
        sock.sendall(SAT[10:])
        status, body = read_response(sock)
        assert (status, json.loads(body)["valid"]) == (200, True)
        assert sum(closed_by_peer(other, 0.01) for other in slow) >= 40 - 32
    finally:
        sock.close()
        for other in slow:
            other.close()


def test_a_client_that_never_reads_its_answers_is_dropped(server: Server, slack: float):
    # Pipelined requests whose answers fill the sockets: the server's writes
    # wait, and the header deadline holds for them too.  Before, such a
    # connection was held for ever, and a few of them (each "in a request")
    # locked every new client out.
    hogs = []
    try:
        for _ in range(2):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", server.port))
            sock.setblocking(False)
            hogs.append(sock)
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 20_000
        for sock in hogs:
            with contextlib.suppress(BlockingIOError):
                sock.send(request)
        dropped = set()
        deadline = time.monotonic() + 10 * slack  # the sockets' buffers fill first
        while time.monotonic() < deadline and len(dropped) < len(hogs):
            dropped |= {i for i, sock in enumerate(hogs) if reset_or_closed(sock)}
            time.sleep(0.2)
        assert len(dropped) == len(hogs)
        assert server.health()["status"] == "ok"
    finally:
        for sock in hogs:
            sock.close()


def reset_or_closed(sock):
    """Whether the server has dropped ``sock``, looked at without reading (which
    would let the server write on): a reset leaves its error on the socket."""
    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
        return True
    try:
        sock.setblocking(False)
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
