"""Each vocabulary of the recorded-session lab is declared once, in ``ctx_lab.choices``, and
read by the engines: transcript formats (one reader each), cache causes, policy names (one spec
each) and policy kinds (one rule each), claim labels."""

from __future__ import annotations

from typing import get_args

from ctx_lab import choices
from ctx_lab.conversation import CACHE_CAUSES, POLICIES
from ctx_lab.conversation._policy_kinds import KINDS
from ctx_lab.conversation.transcripts import FORMATS


def test_a_transcript_format_is_one_reader() -> None:
    from ctx_lab.conversation.transcripts import _READERS

    assert FORMATS == get_args(choices.TranscriptFormat) == choices.TRANSCRIPT_FORMATS
    assert set(_READERS) == set(FORMATS)


def test_the_cache_causes_are_the_declared_ones() -> None:
    assert get_args(choices.CacheCause) == CACHE_CAUSES


def test_a_policy_is_one_spec_and_a_kind_one_rule() -> None:
    assert tuple(POLICIES) == choices.POLICY_NAMES == get_args(choices.PolicyName)
    assert set(KINDS) == set(choices.POLICY_KINDS)
    assert {spec.kind for spec in POLICIES.values()} <= set(KINDS)


def test_the_policies_command_offers_the_declared_names() -> None:
    from ctx_lab.commands import _policies

    assert _policies.POLICY_NAMES is choices.POLICY_NAMES
