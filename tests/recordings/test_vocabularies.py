"""Each vocabulary of the recorded-session lab is declared once, in ``ctx_lab.choices``, and
read by the engines: transcript formats (one reader each), cache causes, policy names (one spec
each) and policy kinds (one rule each), claim labels."""

from __future__ import annotations

from typing import get_args

from ctx_lab import choices
from ctx_lab.recordings import CACHE_CAUSES, POLICIES
from ctx_lab.recordings.policies._policy_kinds import KINDS
from ctx_lab.recordings.transcripts import FORMATS


def test_a_transcript_format_is_one_reader() -> None:
    """A format is its name in the Literal and one row of READERS (what recognizes a record, the
    reader): detection and reading both go by the rows, with no other list to extend."""
    import inspect

    import ctx_lab.recordings.transcripts as package
    from ctx_lab.recordings.transcripts import _formats

    assert FORMATS == get_args(choices.TranscriptFormat) == choices.TRANSCRIPT_FORMATS
    assert sorted(r.name for r in _formats.READERS) == sorted(FORMATS)
    assert len(_formats.READERS) == len(FORMATS)
    source = inspect.getsource(package)
    for reader in _formats.READERS:  # the package names no reader: only the rows do
        assert reader.read.__name__ not in source, reader.read.__name__


def test_the_cache_causes_are_the_declared_ones() -> None:
    assert get_args(choices.CacheCause) == CACHE_CAUSES


def test_a_policy_is_one_spec_and_a_kind_one_rule() -> None:
    assert tuple(POLICIES) == choices.POLICY_NAMES == get_args(choices.PolicyName)
    assert set(KINDS) == set(choices.POLICY_KINDS)
    assert {spec.kind for spec in POLICIES.values()} <= set(KINDS)


def test_the_policies_command_offers_the_declared_names() -> None:
    from ctx_lab.commands import _policies

    assert _policies.POLICY_NAMES is choices.POLICY_NAMES
