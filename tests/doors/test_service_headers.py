"""The service's bound on a request's headers (``_uvicorn.HEADER_BYTES``): a
connection that keeps sending headers is answered and closed at once, not
held to the header deadline while the server keeps what it sent.

uvicorn speaks HTTP with httptools when it is installed, else with h11: h11
answers 400 past its own 16 KiB; httptools has no bound, and kept every
header line and the URL (a long one grown by concatenation, in time
quadratic in its length), so ``serve()`` answers 431 past HEADER_BYTES.
"""

import socket
import time

import pytest
from _service import Server, running

from sat_claim_check._uvicorn import HEADER_BYTES


@pytest.fixture(scope="module")
def server():
    """The default header deadline (10 s): a close before it is the bound's."""
    with running("--workers", "1") as s:
        yield s
        s.assert_healthy()


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """(whether the server closed ``sock`` within ``seconds``, what it sent)."""
    sock.settimeout(seconds)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return True, data
            data += chunk
    except socket.timeout:
        return False, data
    except OSError:  # reset: what was unread is dropped
        return True, data


@pytest.mark.parametrize(
    "start, line",
    [
        (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Filler: yes\r\n"),
        (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: ", b"abcdefgh" * 2),
        (b"GET /healthz?", b"a=b&" * 4),
    ],
    ids=["many headers", "a long header", "a long URL"],
)
def test_headers_that_never_end_are_refused_at_once(
    server: Server, slack: float, start: bytes, line: bytes
) -> None:
    sock = socket.create_connection(("127.0.0.1", server.port))
    try:
        sock.sendall(start + line * (2 * HEADER_BYTES // len(line)))
        began = time.monotonic()
        closed, answer = closed_within(sock, 10.0)
        took = time.monotonic() - began
    finally:
        sock.close()
    assert closed
    assert took < 0.5 * slack, took  # not the 10 s deadline
    assert answer == b"" or answer.split()[1] in (b"400", b"431"), answer[:100]
    assert server.health()["status"] == "ok"


def test_headers_within_the_bound_are_read(server: Server) -> None:
    sock = socket.create_connection(("127.0.0.1", server.port))
    try:
        filler = b"X-Filler: yes\r\n" * (HEADER_BYTES // 64)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + filler + b"\r\n")
        sock.settimeout(10)
        assert sock.recv(12) == b"HTTP/1.1 200"
    finally:
        sock.close()
