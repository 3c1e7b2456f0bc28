"""Connections past the service's cap: what each costs, against a build.

    pip install -e ".[service]"
    python benchmarks/connection_flood.py [--connections 3000] [--cap 512] [--baseline SRC]

Starts ``sat-claim-check serve --max-connections CAP`` (a child process on
127.0.0.1) with this build and, with ``--baseline SRC``, with the build whose
package is in SRC (through PYTHONPATH); opens ``--connections`` connections
that send part of their headers and wait (each past the cap makes the server
drop the one waiting longest), then times a ``/healthz``.  Prints, per
build, the seconds to open them all, the ``/healthz`` time, and the server's
CPU seconds over the flood.  Making room used to scan every open connection.
"""

from __future__ import annotations

import argparse
import socket
import time

import _run


def healthz_seconds(port: int) -> float:
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        sock.settimeout(60)
        while sock.recv(65536):
            pass
    return time.perf_counter() - start


def flood(port: int, count: int, pid: int) -> tuple[float, float, float]:
    socks = []
    cpu = _run.cpu_seconds(pid)
    start = time.perf_counter()
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"GET /hea")
            socks.append(sock)
            if len(socks) > 600:  # the server has dropped the oldest: free them here too
                socks.pop(0).close()
        opened = time.perf_counter() - start
        health = healthz_seconds(port)
        return opened, health, _run.cpu_seconds(pid) - cpu
    finally:
        for sock in socks:
            sock.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--connections", type=int, default=3000)
    ap.add_argument("--cap", type=int, default=512)
    ap.add_argument("--baseline", help="the src directory of another build")
    args = ap.parse_args()
    builds = _run.builds(args.baseline)
    print(f"{'build':>12} {'open all':>10} {'/healthz':>10} {'server CPU':>11}")
    for name, src in builds:
        serve_args = ["--max-connections", str(args.cap), "--header-timeout", "60"]
        proc, port = _run.serve([*serve_args, "--no-access-log"], src)
        try:
            opened, health, cpu = flood(port, args.connections, proc.pid)
        finally:
            proc.terminate()
            proc.wait()
        print(f"{name:>12} {opened:>9.2f}s {health:>9.3f}s {cpu:>10.2f}s", flush=True)


if __name__ == "__main__":
    main()
