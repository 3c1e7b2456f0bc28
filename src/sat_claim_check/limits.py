"""The seven limits of the contract, and the ceilings the engines can represent."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

__all__ = ["Limits"]

# What the flat int32 arrays and the 2*var+sign literal encoding can hold.
_COUNT_CEILING = 2**31 - 2
CEILINGS = {
    "max_vars": 2**30 - 1,
    "max_clauses": _COUNT_CEILING,
    "max_total_literals": _COUNT_CEILING,
    "max_assignment_literals": _COUNT_CEILING,
    "max_proof_steps": _COUNT_CEILING,
    "max_proof_literals": _COUNT_CEILING,
    "max_propagation_work": 2**62,
}


@dataclass(frozen=True)
class Limits:
    """Request limits; the defaults are the contract's.

    ``Limits(max_proof_steps=300000)`` returns the contract's limits with one
    changed; each value must be an int from 0 up to what the engines can
    represent (else ValueError).  Raising them changes what is accepted,
    never the semantics.  Pass one as ``limits=`` to ``check`` and ``run``;
    docs/semantics.md ("Validation order") says where each limit applies.
    """

    max_vars: int = 10000
    max_clauses: int = 5000
    max_total_literals: int = 50000
    max_assignment_literals: int = 10000
    max_proof_steps: int = 2000
    max_proof_literals: int = 50000
    max_propagation_work: int = 50000000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if type(value) is not int or not 0 <= value <= CEILINGS[f.name]:
                raise ValueError(
                    f"Limits.{f.name} must be an int in 0..{CEILINGS[f.name]}, got {value!r}"
                )

    @classmethod
    def unlimited(cls) -> Limits:
        """Return Limits with every limit at the largest value the engines can represent."""
        return cls(**CEILINGS)

    def as_dict(self) -> dict[str, int]:
        """Return the limits as a new dict, {name: value}, in field order."""
        return asdict(self)


CONTRACT_LIMITS = Limits()
