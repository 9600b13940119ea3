"""A calibration with the growth model: the framing per tool message and the held-out band are
stored, read back, checked before use and carried by the counter's name (budgets at the band's
upper edge); records stored before them still load and count as they did."""

from __future__ import annotations

import pytest

from ctx_lab.conversation import ContextManager, Message
from ctx_lab.errors import UsageError
from ctx_lab.tokens import Calibration, ClassRatio, get_counter

CLASSES = (
    ClassRatio("prose", 1.3, 1.2, 1.5, 20),
    ClassRatio("code", 1.2, 1.1, 1.4, 12),
    ClassRatio("json", 1.3, 1.2, 1.5, 3, True),
    ClassRatio("cjk", 1.3, 1.2, 1.5, 0, True),
    ClassRatio("thinking", 1.9, 0.5, 4.0, 6),
)


def _modelled(**changes: object) -> Calibration:
    fields: dict = dict(classes=CLASSES, framing=36.5, growth_band=(0.065, 2.8, 1.16),
                        band_how="held out: each of 8 sessions", held_out=(("per class", 0.019),))  # fmt: skip
    fields.update(changes)
    return Calibration(
        model="claude-test",
        base="bytes/4",
        ratio=1.45,
        low=1.2,
        high=2.1,
        calls=201,
        transcripts=8,
        method="growth",
        **fields,
    )  # type: ignore[arg-type]


def test_the_growth_model_round_trips_and_old_records_still_load() -> None:
    made = _modelled()
    assert Calibration.from_dict(made.to_dict()) == made
    stored = made.to_dict()
    assert stored["tool_framing"] == 36.5
    assert stored["growth_band"] == {"systematic": 0.065, "random": 2.8, "z": 1.16}
    old = {k: v for k, v in stored.items()
           if k not in ("tool_framing", "growth_band", "band_how", "held_out")}  # fmt: skip
    before = Calibration.from_dict(old)
    assert before.framing == 0 and before.growth_band is None
    assert before.counter_name == "bytes/4*{prose:1.3,code:1.2,json:1.3,cjk:1.3}"


def test_a_calibration_names_its_counter_with_the_framing_and_budgets_take_the_upper_edge() -> None:
    made = _modelled()
    assert made.counter_name == "bytes/4*{prose:1.3,code:1.2,json:1.3,cjk:1.3,tool:36.5}"
    # a budget: each text at the upper edge of its own band, which the name carries
    budget = made.counter_for(budget=True)
    assert budget == (
        "bytes/4*{prose:1.3,code:1.2,json:1.3,cjk:1.3,tool:36.5,z:1.16,sys:0.065,rand:2.8}"
    )
    edge = get_counter(budget)
    prose = "word " * 800  # 1,000 bytes/4 tokens of prose: 1,300 as counted
    upper = 1300 + 1.16 * ((0.065 * 1300) ** 2 + 2.8**2 * 1300) ** 0.5
    assert edge.count(prose) == round(upper)
    assert "+ 36 per tool message" in made.describe() or "+ 37 per tool message" in made.describe()
    assert "90 % band ±" in made.describe() and "of 10,000" in made.describe()
    counter = get_counter(made.counter_name)
    assert counter.tool_framing == 36.5
    manager = ContextManager("claude-test", counter=counter)
    text = "the cache is stale, so the build fails"
    result, said = Message.tool_result("t1", text), Message.user(text)
    assert manager.count(result) - manager.count(said) == 36  # round(36.5): the framing


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"framing": -3.0}, "framing"),
        ({"framing": 900.0}, "framing"),
        ({"growth_band": (0.05, 2.0)}, "band"),
        ({"growth_band": (0.05, float("nan"), 1.2)}, "band"),
        ({"growth_band": (0.05, 2.0, -1.0)}, "band"),
    ],
)
def test_a_growth_model_that_cannot_hold_is_refused(changes: dict, why: str) -> None:
    problem = _modelled(**changes).problem()
    assert problem is not None and why in problem


def test_counter_names_with_a_framing_are_checked() -> None:
    assert get_counter("bytes/4*{prose:1.3,tool:40}").tool_framing == 40
    assert get_counter("bytes/4*{prose:1.3}").tool_framing == 0
    for bad in ("bytes/4*{tool:40}", "bytes/4*{prose:1.3,tool:900}"):
        with pytest.raises(UsageError):
            get_counter(bad)
    # the framing is never a class's factor: text counts at its class's factor
    counter = get_counter("bytes/4*{tool:40,prose:2}")
    assert counter.count("abcdefgh") == 4
