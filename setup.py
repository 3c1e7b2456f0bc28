"""Build the compiled engine.

All metadata lives in pyproject.toml; this file only declares the Cython
extension.  SAT_CLAIM_CHECK_NO_EXTENSIONS=1 skips it (the pure build), and
SAT_CLAIM_CHECK_DEBUG_BUILD=1 builds it with bounds checks and -O0 -g.
"""

import glob
import os
import sys

from setuptools import Extension, setup

NO_EXTENSIONS = bool(os.environ.get("SAT_CLAIM_CHECK_NO_EXTENSIONS"))
DEBUG_BUILD = bool(os.environ.get("SAT_CLAIM_CHECK_DEBUG_BUILD"))
ANNOTATE = bool(os.environ.get("SAT_CLAIM_CHECK_ANNOTATE"))

if sys.implementation.name != "cpython":
    NO_EXTENSIONS = True


def extensions():
    from Cython.Build import cythonize

    directives = {
        "language_level": 3,
        "boundscheck": DEBUG_BUILD,
        "wraparound": False,
        "initializedcheck": DEBUG_BUILD,
        "nonecheck": False,
        "cdivision": True,
        "embedsignature": True,
    }
    if os.name == "nt":
        compile_args = ["/Od", "/Zi"] if DEBUG_BUILD else ["/O2"]
    else:
        compile_args = ["-O0", "-g", "-UNDEBUG"] if DEBUG_BUILD else ["-O3"]
    # One extension per .pyx; C helpers in csrc/ are header-only (static inline).
    exts = [
        Extension(
            os.path.splitext(os.path.relpath(pyx, "src"))[0].replace(os.sep, "."),
            sources=[pyx],
            include_dirs=["csrc"],
            depends=sorted(glob.glob("csrc/*.h") + glob.glob(os.path.dirname(pyx) + "/*.pxi")),
            extra_compile_args=compile_args,
        )
        for pyx in sorted(glob.glob("src/sat_claim_check/**/*.pyx", recursive=True))
    ]
    return cythonize(exts, compiler_directives=directives, annotate=ANNOTATE)


if NO_EXTENSIONS:
    print("sat-claim-check: pure build (SAT_CLAIM_CHECK_NO_EXTENSIONS set or not CPython)")
    setup()
else:
    print(
        "sat-claim-check: building the compiled engine" + (" (debug build)" if DEBUG_BUILD else "")
    )
    setup(ext_modules=extensions())
