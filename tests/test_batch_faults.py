"""`batch` under faults: no input line ever loses its output line.

The errors the workers send back pickle.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from sat_claim_check.errors import CheckError, InvalidInput, LimitExceeded

# -- pickling the errors -------------------------------------------------------

def every_subclass(cls: type) -> set[type]:
    found = {cls}
    for sub in cls.__subclasses__():
        found |= every_subclass(sub)
    return found


SAMPLES = [
    CheckError("cnf", "/cnf", "a message"),
    CheckError(None, "", "no field"),
    InvalidInput("proof", "/proof/3/add/1", "literal 9 is out of range"),
    InvalidInput(None, "", "malformed JSON"),
    LimitExceeded("proof", "/proof", "too many", limit="max_proof_steps", max=2000,
                  actual=2001),
    LimitExceeded("proof", "/proof/812", "work", limit="max_propagation_work", max=5,
                  step_index=812),
    LimitExceeded("cnf", "/cnf", "work", limit="max_propagation_work", max=5,
                  step_index=None),
]


def test_the_samples_cover_every_error_class():
    assert {type(e) for e in SAMPLES} == every_subclass(CheckError)


@pytest.mark.parametrize("error", SAMPLES, ids=lambda e: f"{type(e).__name__}-{e.path}")
@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_errors_pickle_to_equal_errors(error, protocol):
    back = pickle.loads(pickle.dumps(error, protocol))
    assert type(back) is type(error)
    assert back == error and hash(back) == hash(error)
    assert vars(back) == vars(error)
    assert back.args == error.args and str(back) == str(error)
    assert back.to_dict() == error.to_dict()
    assert copy.deepcopy(error) == error


def test_errors_differing_in_any_attribute_are_not_equal():
    base = LimitExceeded("proof", "/proof", "m", limit="max_proof_steps", max=2, actual=3)
    changes = {"field": "cnf", "path": "/cnf", "message": "n", "limit": "max_vars",
               "max": 4, "actual": 5, "step_index": 1}
    for name, value in changes.items():
        other = copy.copy(base)
        setattr(other, name, value)
        assert other != base, name
    assert InvalidInput("cnf", "/cnf", "m") != CheckError("cnf", "/cnf", "m")
    assert InvalidInput("cnf", "/cnf", "m") == InvalidInput("cnf", "/cnf", "m")


def test_an_error_keeps_other_attributes_through_pickle():
    error = InvalidInput("cnf", "/cnf", "m")
    error.extra = "kept"
    assert pickle.loads(pickle.dumps(error)).extra == "kept"
