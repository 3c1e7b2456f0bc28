"""Faults found reading the streaming and batch changes over, each pinned."""

from __future__ import annotations

import json
from pathlib import Path

from sat_claim_check._manifest import check_manifest_line


def test_a_manifest_names_the_byte_of_a_binary_proof_error(tmp_path: Path) -> None:
    (tmp_path / "f.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "f.bin").write_bytes(b"a\x02\x00x")       # byte 3 starts no step
    kind, text = check_manifest_line("auto", None, 7, b'{"cnf": "f.cnf", "proof": "f.bin"}',
                                     str(tmp_path))
    error = json.loads(text)
    assert kind == 2 and (error["field"], error["line"]) == ("proof", 7)
    assert error["message"].startswith("f.bin:byte 3: proof (binary): byte 'x'")
