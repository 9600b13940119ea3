"""Hostile inputs are bounded: size limits named with their variable, deep nesting and floods
degrade or fail cleanly, never a hang, a traceback or a RecursionError (hardening rows 10-12,
14). Limits are lowered for the test instead of timing anything."""

from __future__ import annotations

import pytest

from ctx_lab import commands
from ctx_lab.errors import CtxLabError, UsageError

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_usage_error_for_a_wrong_counter_type() -> None:
    with pytest.raises((UsageError, CtxLabError)):
        commands.tokens(text="x", counter="nope")
