"""How each figure of an anatomy was made (:mod:`ctx_lab.claims`): what the file holds is
counted (``estimated``, exact or not as the counter says); the provider's report of the call is
``billed``; the hidden part and the difference are billed input less the count (``estimated``);
the cache engine's split on billed sizes is ``simulated``; a saving is ``open-loop``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..claims import Claim, ClaimValue, claims

__all__ = ["ADVICE_CLAIM", "SESSION_CLAIM", "request_claim", "row_claim"]

ADVICE_CLAIM = claims("open-loop", tokens="estimated")
SESSION_CLAIM = claims("estimated")  # breaks and largest items: counted


def _reported(reported: bool) -> dict[str, Any]:
    said = "billed" if reported else "estimated"
    return {"used": said, "free": said, "cost_usd": said}


def request_claim(reported_input: int | None) -> ClaimValue:
    """One call's anatomy: counted, beside its report."""
    return claims(
        "estimated",
        reported_input="billed",
        cache_read="billed",
        cache_write="billed",
        advice="open-loop",
        **_reported(reported_input is not None),
    )


def row_claim(row: Mapping[str, Any]) -> ClaimValue:
    """One row of a session's anatomy: as :func:`request_claim`, and the cache engine's split
    (on billed sizes where the call reports usage)."""
    reported = row.get("reported_input") is not None
    predicted: Claim = "simulated" if reported else "estimated"
    return claims(
        "estimated",
        reported_input="billed",
        cache_read="billed",
        cache_write="billed",
        cache_read_predicted=predicted,
        cache_write_predicted=predicted,
        **_reported(reported),
    )
