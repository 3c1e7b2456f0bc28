"""Options: every door checks its settings the same way, in the same order."""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any, Callable

import pytest

import sat_claim_check as scc
from sat_claim_check import dimacs
from sat_claim_check._batch.console import BatchProgress
from sat_claim_check._batch.local import run_batch
from sat_claim_check._core.options import Options, checked_settings

CNF = {"num_vars": 1, "clauses": [[1], [-1]]}
REQUEST = {"cnf": CNF, "claim": "unsat", "proof": [{"add": []}]}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _batch(**kw: Any) -> Any:
    stream = io.BytesIO(b"")
    return run_batch(
        stream,
        io.StringIO(),
        jobs=1,
        progress=BatchProgress(stream, 0),
        **{"engine": "auto", "limits": None, **kw},
    )


# Each door with its settings as keyword arguments (the batch takes no progress).
DOORS: dict[str, Callable[..., Any]] = {
    "run": lambda **kw: scc.run(REQUEST, **kw),
    "check": lambda **kw: scc.check(REQUEST, **kw),
    "check_json": lambda **kw: scc.check_json(b"{}", **kw),
    "Checker": lambda **kw: scc.Checker(CNF, **kw),
    "run_dimacs": lambda **kw: dimacs.run_dimacs("p cnf 1 2\n1 0\n-1 0\n", "0\n", **kw),
    "run_files": lambda **kw: dimacs.run_files(EXAMPLES / "php5.cnf", EXAMPLES / "php5.drup", **kw),
    "batch": lambda **kw: _batch(**{k: v for k, v in kw.items() if k != "progress"}),
}

MISUSES = [
    ({"limits": 5}, TypeError, "limits must be a sat_claim_check.Limits, got int"),
    ({"progress": 5}, TypeError, "progress must be callable or None, got int"),
    ({"deletions": "loose"}, ValueError, "deletions must be 'strict' or 'lenient'"),
    ({"engine": "fast"}, ValueError, "engine must be one of"),
    # Two at once: the first in the order limits, progress, deletions, engine.
    ({"limits": 5, "deletions": "loose"}, TypeError, "limits must be"),
    ({"progress": 5, "deletions": "loose"}, TypeError, "progress must be"),
    ({"deletions": "loose", "engine": "fast"}, ValueError, "deletions must be"),
]


@pytest.mark.parametrize(
    ("door", "settings", "error", "said"),
    [
        (door, *misuse)
        for door in DOORS
        for misuse in MISUSES
        if not (door == "batch" and "progress" in misuse[0])
    ],
)
def test_every_door_refuses_a_setting_the_same_way(
    door: str, settings: dict[str, Any], error: type, said: str
) -> None:
    with pytest.raises(error, match=said) as info:
        DOORS[door](**settings)
    assert type(info.value) is error  # not a CheckError: the call, not the input


def test_checked_settings_is_options_without_the_engine() -> None:
    for settings, error, said in MISUSES:
        if "engine" in settings and len(settings) == 1:
            continue
        kwargs = {k: v for k, v in settings.items() if k != "engine"}
        with pytest.raises(error, match=said):
            checked_settings(
                kwargs.get("limits"), kwargs.get("deletions", "strict"), kwargs.get("progress")
            )
    assert checked_settings(None) is scc.limits.CONTRACT_LIMITS


def test_options_cross_to_a_worker_process_by_what_they_were_made_of() -> None:
    options = Options.of("reference", scc.Limits.unlimited(), "lenient")
    again = pickle.loads(pickle.dumps(options))
    assert again == options and again.kernel is options.kernel
    assert again.deletions == "lenient"


def test_options_with_a_callback_stay_in_their_process() -> None:
    options = Options.of(progress=lambda steps, work: None)
    with pytest.raises(TypeError, match="stay in their process"):
        pickle.dumps(options)
