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


def test_a_counter_scaled_per_content_class_travels_by_name() -> None:
    """``<base>*{class:factor,…}``: each text counted by its class's factor; the name is all a
    worker process needs; a factor out of range is a usage error."""
    from ctx_lab.tokens import get_counter, portable_name, text_class

    name = "bytes/4*{prose:1.6,code:1.4,json:1.5,cjk:1.7}"
    counter = get_counter(name)
    assert counter.name == name and not counter.exact and portable_name(name) == name
    base = get_counter("bytes/4")
    prose = "The context window fills up with tool results over a long session."
    code = "def f(x):\n    return x + 1\n\nclass A:\n    pass\n"
    assert (text_class(prose), text_class(code)) == ("prose", "code")
    assert counter.count(prose) == int(base.count(prose) * 1.6 + 0.5)
    assert counter.count(code) == int(base.count(code) * 1.4 + 0.5)
    assert counter.count_many([prose, code]) == [counter.count(prose), counter.count(code)]
    with pytest.raises(UsageError):
        get_counter("bytes/4*{prose:0}")


def test_budgets_count_at_the_calibrations_upper_edge(tmp_path, monkeypatch) -> None:
    from ctx_lab.tokens import Calibration, ClassRatio, resolve_counter, save_calibration

    monkeypatch.setenv("CTX_LAB_CONFIG_DIR", str(tmp_path))
    classes = (ClassRatio("prose", 1.6, 1.3, 2.0, 40), ClassRatio("code", 1.4, 1.2, 1.9, 20),
               ClassRatio("json", 1.5, 1.2, 2.1, 3, True), ClassRatio("cjk", 1.5, 1.2, 2.1, 0, True))  # fmt: skip
    save_calibration(
        Calibration(
            model="claude-x",
            base="bytes/4",
            ratio=1.5,
            low=1.2,
            high=2.1,
            calls=60,
            classes=classes,
        )
    )
    estimate = resolve_counter("model", "claude-x-1", "bytes/4")
    budget = resolve_counter("model", "claude-x-1", "bytes/4", budget=True)
    assert estimate.name == "bytes/4*{prose:1.6,code:1.4,json:1.5,cjk:1.5}"
    assert budget.name == "bytes/4*{prose:2,code:1.9,json:2.1,cjk:2.1}"
    assert "upper edge" in budget.note and "upper edge" not in estimate.note
