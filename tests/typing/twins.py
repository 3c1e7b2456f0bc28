"""Each compiled module and its pure-Python twin have the same interface.

tests/test_typing.py type-checks this file with ``mypy --strict``: the
compiled modules are seen through their stubs (``_engine_c.pyi``,
``_convert_c.pyi``, ``_parse_c.pyi``, ``_request_c.pyi``), so a stub that drifts from the
protocols that ``_engine`` relies on, or a pure twin that does, is an error.
It is never run (the compiled modules may not be built).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sat_claim_check import (
        _convert_c,
        _convert_py,
        _engine_c,
        _engine_py,
        _parse_c,
        _parse_py,
        _request_c,
        _request_py,
    )
    from sat_claim_check._types import (
        ConverterModule,
        KernelModule,
        RequestReaderModule,
        ScannerModule,
    )

    kernels: tuple[KernelModule, KernelModule] = (_engine_c, _engine_py)
    converters: tuple[ConverterModule, ConverterModule] = (_convert_c, _convert_py)
    scanners: tuple[ScannerModule, ScannerModule] = (_parse_c, _parse_py)
    readers: tuple[RequestReaderModule, RequestReaderModule] = (_request_c, _request_py)
