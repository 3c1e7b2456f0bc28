#!/usr/bin/env bash
# The static checks, from the repository root, with the environment that has
# the test extra active (pip install -e ".[test]"): ruff (lint, then format in
# check mode), cython-lint over the Cython sources, and mypy --strict over the
# package and tests/typing/, with the settings in pyproject.toml.  Every check
# runs; the last line names those that failed, and the exit status is 1 if
# any did.  .ci/run and the lint job of ci.yml run this script;
# .pre-commit-config.yaml runs the same tools on the files of a commit.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
shopt -s globstar nullglob

failed=()

# check NAME TOOL COMMAND...: run one check, needing TOOL on the PATH.
check() {
    local name=$1 tool=$2
    shift 2
    printf '== %s\n' "$name"
    if ! command -v "$tool" >/dev/null 2>&1; then
        printf '%s is not installed (pip install -e ".[test]")\n' "$tool"
        failed+=("$name")
    elif ! "$@"; then
        failed+=("$name")
    fi
}

# cython-lint over every .pyx, .pxd and .pxi file of the package.
cython_lint() {
    local files=(src/**/*.pyx src/**/*.pxd src/**/*.pxi)
    if (( ${#files[@]} == 0 )); then
        printf 'no .pyx, .pxd or .pxi file under src/\n'
        return 1
    fi
    cython-lint "${files[@]}"
}

# mypy with a fresh cache (a stale one could hide an error in the stubs); every
# module and stub of the package, and each file of tests/typing/, is checked.
mypy_strict() {
    local cache out status
    local files=(src/**/*.py src/**/*.pyi tests/typing/*.py)
    cache=$(mktemp -d)
    out=$(mypy --config-file pyproject.toml --cache-dir "$cache" src tests/typing 2>&1)
    status=$?
    rm -rf "$cache"
    printf '%s\n' "$out"
    if (( status == 0 )) && [[ $out != *" in ${#files[@]} source files"* ]]; then
        printf 'mypy did not check the %d files of src/ and tests/typing/\n' "${#files[@]}"
        status=1
    fi
    return "$status"
}

check "ruff check" ruff ruff check --no-cache .
# On failure: `ruff format .` formats the files it names.
check "ruff format --check" ruff ruff format --no-cache --check .
check "cython-lint" cython-lint cython_lint
check "mypy" mypy mypy_strict

if (( ${#failed[@]} )); then
    list=$(printf '%s, ' "${failed[@]}")
    printf 'lint.sh: FAILED: %s\n' "${list%, }"
    exit 1
fi
printf 'lint.sh: all passed (ruff check, ruff format --check, cython-lint, mypy)\n'
