"""The HTTP service under load, against the bytes API called in process.

    pip install -e ".[service]"
    python benchmarks/service_load.py [--rounds 9] [--seconds 2] [--connections 4]

On the contract-tier corpus requests (``SAT_CLAIM_CHECK_CORPUS`` or
``../shared/corpus``), each round measures, one after the other:

* in process, 1 thread and 2 threads calling ``check_json`` (as the service
  calls it) on the requests in turn: requests per second;
* the service (``sat-claim-check serve --workers 2``, a child process on
  127.0.0.1), full load: ``--connections`` keep-alive connections, each
  sending its next request as soon as the last answer is in (closed loop);
* the service at half load: requests sent at fixed times, at half the rate
  just measured at full load (open loop; latency counts from the planned
  send time, so a late send is not hidden).

Rounds interleave the measurements, in a rotating order, so that all see
the same machine load; the table gives the best and the median round, and
latency percentiles over all requests of all rounds.  Every answer is
compared with the in-process bytes.  Also printed: the ratios, the CPU time
per request of the server and of check_json, the CPU the load generator
used, and the share of check_json's time spent without the GIL (the bound on
2-thread scaling).
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

import _run

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check.service import EXECUTE_PATH

CORPUS = Path(
    os.environ.get(
        "SAT_CLAIM_CHECK_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"
    )
)


def in_process(bodies, threads, seconds):
    """(requests per second, CPU seconds per request) of ``threads`` threads
    calling check_json on the requests in turn."""
    counter = itertools.count()
    done = [0] * threads
    cpu = time.process_time()
    deadline = time.perf_counter() + seconds

    def work(k):
        n = 0
        while time.perf_counter() < deadline:
            scc.check_json(bodies[next(counter) % len(bodies)])
            n += 1
        done[k] = n

    start = time.perf_counter()
    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return sum(done) / (time.perf_counter() - start), (time.process_time() - cpu) / sum(done)


def gil_free_fraction(bodies, repeat=3):
    """The share of check_json's time spent in the two parts that release the
    GIL, the compiled request reader and Kernel.run (each holds it briefly
    around its loop, so this is an upper bound), best of ``repeat`` passes."""
    from sat_claim_check._core import validate as _validate
    from sat_claim_check._engines import resolve

    _, module = resolve("auto")
    limits = scc.Limits()
    total = free = float("inf")
    for _ in range(repeat):
        t = f = 0.0
        for body in bodies:
            start = time.perf_counter()
            scc.check_json(body)
            t += time.perf_counter() - start
            start = time.perf_counter()
            read = _engine.request_reader().read_request(body, limits)
            if read is not None:  # None: the exact path, under the GIL
                f += time.perf_counter() - start
            v = _validate.validated_from_text(body, limits)
            if v.claim == "unsat":
                run = module.Kernel(
                    v.num_vars,
                    v.clause_offsets,
                    v.clause_lits,
                    v.step_kinds,
                    v.step_offsets,
                    v.step_lits,
                    limits.max_propagation_work,
                )
                start = time.perf_counter()
                run.run()
                f += time.perf_counter() - start
        total, free = min(total, t), min(free, f)
    return free / total


class Connection:
    """One keep-alive HTTP/1.1 connection on a raw socket (little client overhead)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def roundtrip(self, request):
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        length = int(re.search(rb"content-length: (\d+)", head).group(1))
        while len(rest) < length:
            rest += self._recv()
        self.buffer = rest[length:]
        return int(head.split(b" ", 2)[1]), rest[:length]

    def _recv(self):
        data = self.sock.recv(1 << 16)
        if not data:
            raise ConnectionError("the server closed the connection")
        return data

    def close(self):
        self.sock.close()


def http_request(body):
    return (
        b"POST " + EXECUTE_PATH.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


def closed_loop(port, requests, expected, connections, seconds):
    """Full load: (requests per second, latencies in seconds, errors)."""
    counter = itertools.count()
    latencies, errors = [], []
    deadline = time.perf_counter() + seconds

    def client():
        conn = Connection(port)
        try:
            while time.perf_counter() < deadline:
                i = next(counter) % len(requests)
                sent = time.perf_counter()
                status, body = conn.roundtrip(requests[i])
                latencies.append(time.perf_counter() - sent)
                if status != 200 or body != expected[i]:
                    errors.append((status, body[:100]))
        finally:
            conn.close()

    start = time.perf_counter()
    pool = [threading.Thread(target=client) for _ in range(connections)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return len(latencies) / (time.perf_counter() - start), latencies, errors


def open_loop(port, requests, expected, rate, seconds, connections=8):
    """Requests sent at ``rate`` per second: (achieved rate, latencies, errors)."""
    count = int(rate * seconds)
    counter = itertools.count()
    latencies, errors = [], []
    start = time.perf_counter() + 0.05

    def client():
        conn = Connection(port)
        try:
            while (n := next(counter)) < count:
                planned = start + n / rate
                delay = planned - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                i = n % len(requests)
                status, body = conn.roundtrip(requests[i])
                latencies.append(time.perf_counter() - planned)
                if status != 200 or body != expected[i]:
                    errors.append((status, body[:100]))
        finally:
            conn.close()

    pool = [threading.Thread(target=client) for _ in range(connections)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return count / (time.perf_counter() - start), latencies, errors


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--connections", type=int, default=4, help="at full load")
    args = parser.parse_args()

    paths = sorted(CORPUS.glob("c*.json"))
    bodies = [p.read_bytes() for p in paths]
    expected = [scc.check_json(b).body for b in bodies]
    requests = [http_request(b) for b in bodies]
    proc, port = _run.serve(["--workers", "2", "--no-access-log"], None)
    rate = {"one": [], "two": [], "full": [], "half": []}
    cpu = {"one": [], "two": [], "full": []}  # CPU seconds per request
    full_lat, half_lat, errors = [], [], []
    client_cpu = busy = 0.0

    def local(name, threads):
        r, c = in_process(bodies, threads, args.seconds)
        rate[name].append(r)
        cpu[name].append(c)

    def service():
        nonlocal client_cpu, busy
        c0, s0, t0 = time.process_time(), _run.cpu_seconds(proc.pid), time.perf_counter()
        r, lat, err = closed_loop(port, requests, expected, args.connections, args.seconds)
        client_cpu += time.process_time() - c0
        busy += time.perf_counter() - t0
        cpu["full"].append((_run.cpu_seconds(proc.pid) - s0) / len(lat))
        rate["full"].append(r)
        full_lat.extend(lat)
        errors.extend(err)
        r, lat, err = open_loop(port, requests, expected, r / 2, args.seconds)
        rate["half"].append(r)
        half_lat.extend(lat)
        errors.extend(err)

    phases = [lambda: local("one", 1), lambda: local("two", 2), service]
    try:
        for n in range(args.rounds):
            for phase in phases[n % 3 :] + phases[: n % 3]:  # a new order each round
                phase()
            print(
                f"round {n + 1}: 1 thread {rate['one'][-1]:.0f}/s, 2 threads "
                f"{rate['two'][-1]:.0f}/s, service {rate['full'][-1]:.0f}/s, half load "
                f"{rate['half'][-1]:.0f}/s",
                file=sys.stderr,
            )
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    ms = 1000.0
    print(
        f"{len(bodies)} contract-tier requests, {args.rounds} rounds of {args.seconds:g} s, "
        f"engine {scc.check_json(bodies[0]).report.engine}, load average "
        f"{os.getloadavg()[0]:.1f} at the end; errors: {len(errors)}"
    )
    print()
    print("| measure | requests/s, best | median | CPU ms per request (median) | p50 | p99 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    names = {
        "one": "check_json in process, 1 thread",
        "two": "check_json in process, 2 threads",
        "full": f"service, 2 workers, full load ({args.connections} connections)",
        "half": "service, 2 workers, half load (paced)",
    }
    for key, name in names.items():
        latency = {"full": full_lat, "half": half_lat}.get(key)
        cells = [
            f"{max(rate[key]):.0f}",
            f"{statistics.median(rate[key]):.0f}",
            f"{statistics.median(cpu[key]) * ms:.2f}" if key in cpu else "",
            f"{percentile(latency, 50) * ms:.2f} ms" if latency else "",
            f"{percentile(latency, 99) * ms:.2f} ms" if latency else "",
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()

    def ratio(a, b):
        pairs = [x / y for x, y in zip(rate[a], rate[b])]
        return (
            f"{max(rate[a]) / max(rate[b]):.2f} best against best, "
            f"{statistics.median(pairs):.2f} median of the rounds "
            f"({min(pairs):.2f} to {max(pairs):.2f})"
        )

    print(f"service / in process, 2 threads: {ratio('full', 'two')}")
    print(f"in process, 2 threads / 1 thread: {ratio('two', 'one')}")
    free = gil_free_fraction(bodies)
    print(
        f"check_json spends at most {free:.0%} of its time in the reader and the kernel, "
        f"without the GIL: two threads can do at most {min(2, 1 / (1 - free)):.2f} times "
        "one thread's work"
    )
    print(
        f"at full load the load generator used {client_cpu / busy:.2f} CPUs; the "
        f"server's CPU per request is "
        f"{statistics.median(cpu['full']) / statistics.median(cpu['two']):.2f} times "
        f"check_json's in process"
    )


if __name__ == "__main__":
    main()
