"""The compiled binary DRUP scanner against the compiled text scanner.

    python benchmarks/binary_scan.py [--corpus DIR] [--pure]

The largest corpus proof (l00*.drup.gz), decompressed, is scanned as text
(parse_drup, whole) and, re-encoded in binary, by BinaryDrupStream in chunks
of 64 KiB, 1 MiB and the whole at once; --pure adds the pure twins.  Each time
is the best of 5 runs (1 for the pure twins).
"""

from __future__ import annotations

import argparse
import gzip
import os
import time
from pathlib import Path
from typing import Any, Callable

from sat_claim_check._engines import scan_c, scan_py

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def encode(kinds: Any, offsets: Any, lits: Any) -> bytes:
    out = bytearray()
    for i, kind in enumerate(kinds):
        out += b"d" if kind else b"a"
        for lit in lits[offsets[i] : offsets[i + 1]]:
            u = 2 * abs(lit) + (lit < 0)
            while u > 0x7F:
                out.append(u & 0x7F | 0x80)
                u >>= 7
            out.append(u)
        out.append(0)
    return bytes(out)


def best(run: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def streamed(cls: Any, data: bytes, chunk: int) -> Callable[[], None]:
    def run() -> None:
        stream, view = cls(), memoryview(data)
        for i in range(0, len(data), chunk):
            assert stream.scan(view[i : i + chunk], i + chunk >= len(data))[0] == 0

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(os.environ.get("SAT_CLAIM_CHECK_CORPUS", DEFAULT_CORPUS)),
    )
    parser.add_argument("--pure", action="store_true", help="also time the pure twins")
    args = parser.parse_args()
    path = max(args.corpus.glob("l00*.drup.gz"), key=lambda p: p.stat().st_size)
    text = gzip.decompress(path.read_bytes())
    code, _, _, _, kinds, offsets, lits = scan_c.parse_drup(text)
    assert code == 0
    binary = encode(kinds, offsets, lits)
    steps = len(kinds)
    print(
        f"{path.name}: text {len(text) / 1e6:.1f} MB, binary {len(binary) / 1e6:.1f} MB, "
        f"{steps} steps, {len(lits)} literals"
    )

    def line(what: str, seconds: float, size: int) -> None:
        print(
            f"  {what:44} {seconds * 1e3:8.1f} ms {size / seconds / 1e6:7.1f} MB/s "
            f"{steps / seconds / 1e6:6.2f} M steps/s"
        )

    line("text, parse_drup (compiled, whole)", best(lambda: scan_c.parse_drup(text), 5), len(text))
    for chunk in (1 << 16, 1 << 20, len(binary)):
        line(
            f"binary, BinaryDrupStream (compiled, {chunk} B)",
            best(streamed(scan_c.BinaryDrupStream, binary, chunk), 5),
            len(binary),
        )
    if args.pure:
        line("text, parse_drup (pure, whole)", best(lambda: scan_py.parse_drup(text), 1), len(text))
        line(
            "binary, BinaryDrupStream (pure, 1 MiB)",
            best(streamed(scan_py.BinaryDrupStream, binary, 1 << 20), 1),
            len(binary),
        )


if __name__ == "__main__":
    main()
