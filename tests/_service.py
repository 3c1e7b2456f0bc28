"""The service as the tests run it: `sat-claim-check serve` in a child process on
127.0.0.1, a port the system picks, and raw HTTP over sockets."""

import contextlib
import http.client
import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from sat_claim_check.service import EXECUTE_PATH

JSON = {"Content-Type": "application/json"}


class Server:
    """`sat-claim-check serve --port 0 ARGS...` in a child process."""

    def __init__(self, *args):
        pytest.importorskip("uvicorn", reason="the service extra is not installed")
        cmd = [
            sys.executable,
            "-m",
            "sat_claim_check",
            "serve",
            "--port",
            "0",
            "--no-access-log",
            *args,
        ]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.log = []
        lines = queue.Queue()

        def drain():  # the pipe never fills; the log is kept for the asserts
            for line in self.proc.stderr:
                self.log.append(line.decode("utf-8", "replace"))
                lines.put(self.log[-1])

        self._drain = threading.Thread(target=drain, daemon=True)
        self._drain.start()
        deadline = time.monotonic() + 30
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise RuntimeError("the server did not start:\n" + "".join(self.log)) from None
            m = re.search(r"running on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                return

    def connection(self, timeout=20):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, timeout=20):
        """(status, headers as a dict, body) of one request on a new connection."""
        conn = self.connection(timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def execute(self, body, headers=JSON, timeout=20):
        return self.request("POST", EXECUTE_PATH, body, headers, timeout)

    def health(self):
        status, _, body = self.request("GET", "/healthz")
        assert status == 200
        return json.loads(body)

    def wait_for(self, predicate, seconds=10.0):
        """The first /healthz that satisfies ``predicate``, and how long it took."""
        start = time.monotonic()
        while True:
            health = self.health()
            if predicate(health):
                return health, time.monotonic() - start
            assert time.monotonic() - start < seconds, health
            time.sleep(0.01)

    def rss(self):
        """The child's resident set in bytes (Linux), or None."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None

    def stop(self):
        """SIGTERM, then the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._drain.join(timeout=5)
        self.proc.stderr.close()
        return code

    def assert_healthy(self):
        assert self.proc.poll() is None, "".join(self.log)
        assert self.health()["status"] == "ok"
        assert "Traceback" not in "".join(self.log), "".join(self.log)


@contextlib.contextmanager
def running(*args):
    server = Server(*args)
    try:
        yield server
    finally:
        server.stop()


def raw_request(body, length=None, extra=b""):
    """The bytes of a POST to the execute route (Content-Length given or true)."""
    n = len(body) if length is None else length
    return (
        b"POST " + EXECUTE_PATH.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(n).encode()
        + b"\r\n"
        + extra
        + b"\r\n"
    )


def read_response(sock, timeout=20):
    """(status, body) of one response read from a raw socket (Content-Length framing)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed after {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed inside the body")
        rest += chunk
    return int(head.split()[1]), rest[:length]
