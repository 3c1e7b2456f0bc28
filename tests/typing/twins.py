"""Each compiled module and its pure-Python twin have the same interface.

scripts/lint.sh type-checks this file with ``mypy --strict``: the
compiled modules are seen through their stubs (``kernel_c.pyi``,
``convert_c.pyi``, ``scan_c.pyi``, ``request_c.pyi``), so a stub that drifts from the
protocols that ``_engines`` relies on, or a pure twin that does, is an error.
It is never run (the compiled modules may not be built).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sat_claim_check._core.types import (
        ConverterModule,
        KernelModule,
        RequestReaderModule,
        ScannerModule,
    )
    from sat_claim_check._engines import (
        convert_c,
        convert_py,
        kernel_c,
        kernel_py,
        request_c,
        request_py,
        scan_c,
        scan_py,
    )

    kernels: tuple[KernelModule, KernelModule] = (kernel_c, kernel_py)
    converters: tuple[ConverterModule, ConverterModule] = (convert_c, convert_py)
    scanners: tuple[ScannerModule, ScannerModule] = (scan_c, scan_py)
    readers: tuple[RequestReaderModule, RequestReaderModule] = (request_c, request_py)
