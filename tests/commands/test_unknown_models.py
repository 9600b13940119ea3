"""A mistyped model is refused with the names it is close to (exit 2), on every surface, unless
the call allows unknown models; the default Claude model is current and named once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctx_lab.commands import Command, commands
from ctx_lab.commands._param import Param
from ctx_lab.commands._session import Session
from ctx_lab.errors import UnknownModelError, UsageError
from ctx_lab.models import (
    BUILTIN_MODELS,
    DEFAULT_ANTHROPIC_MODEL,
    check_model_name,
    get_registry,
)

REPO = Path(__file__).resolve().parents[2]


def test_models_gpt4o_says_did_you_mean_and_exits_2(run_cli) -> None:
    code, out, err = run_cli("models", "gpt4o")
    assert code == 2 and not out
    assert "unknown model 'gpt4o'; did you mean 'gpt-4o'" in err
    assert "--allow-unknown-model" in err


def test_packet_with_a_model_nobody_knows_exits_2(run_cli, tmp_path: Path) -> None:
    code, _, err = run_cli("packet", "--example", "--model", "nosuchmodel-xyz")
    assert code == 2
    assert "unknown model 'nosuchmodel-xyz'" in err


def test_allow_unknown_model_uses_the_default_limits(run_cli) -> None:
    code, out, _ = run_cli("models", "gpt4o", "--allow-unknown-model", "--format", "json")
    assert code == 0
    assert '"context_window": 8192' in out and '"source": "default"' in out


def test_a_name_only_models_dev_knows_names_the_registry_flag(run_cli) -> None:
    code, _, err = run_cli("models", "mistral-large-latest")
    assert code == 2 and "add --registry models-dev" in err
    code, out, _ = run_cli("models", "mistral-large-latest", "--registry", "models-dev")
    assert code == 0 and "262144" in out


def test_repeated_models_are_each_checked(run_cli, repo: Path) -> None:
    session = repo / "ctx_lab" / "examples" / "sessions" / "coding-session.jsonl"
    code, _, err = run_cli("replay", str(session), "--model", "gpt-4o", "--model", "gtp-4o")
    assert code == 2 and "unknown model 'gtp-4o'; did you mean 'gpt-4o'" in err


def test_rest_and_mcp_refuse_the_same_name(tmp_path: Path) -> None:
    session = Session(root=tmp_path)
    with pytest.raises(UnknownModelError, match="did you mean 'gpt-4o'"):
        session.call_query("models", {"name": ["gpt4o"]})
    with pytest.raises(UnknownModelError, match="did you mean 'gpt-4o'"):
        session.call_json("count_tokens", {"text": "hello", "model": "gpt4o"})
    outcome = session.call_json(
        "count_tokens", {"text": "hello", "model": "gpt4o", "allow_unknown_model": True}
    )
    assert outcome.result.to_dict()["files"] or outcome.result.to_dict()


def test_every_command_that_takes_a_model_takes_the_way_past_the_check() -> None:
    taking = [c for c in commands().values() if any(s.param.names_model for s in c.specs())]
    assert {c.name for c in taking} >= {"models", "packet", "tokens", "anatomy", "replay"}
    for cmd in taking:
        assert "allow_unknown_model" in {s.name for s in cmd.specs()}, cmd.name

    seen: list[str | None] = []

    def probe(model: str | None = None) -> str:
        seen.append(model)
        return "ran"

    probe.__annotations__["model"] = __import__("typing").Annotated[
        str | None, Param("a model", names_model=True)
    ]
    declared = Command("probe-model", "a probe", probe)  # implied by names_model, not written
    assert [s.name for s in declared.specs()] == ["model", "allow_unknown_model"]
    with pytest.raises(UnknownModelError):
        declared.run({"model": "no-such-model-anywhere"})
    assert declared.run({"model": "no-such-model-anywhere", "allow_unknown_model": True}) == "ran"
    assert seen == ["no-such-model-anywhere"]  # the function never sees the flag


def test_known_names_pass_and_errors_are_usage_errors() -> None:
    for name in ("gpt-4o", "claude-opus-4-6", "gpt-4.1-mini", "llama-3.1-8b", "o3"):
        check_model_name(name)
    with pytest.raises(UsageError):
        check_model_name("gpt4o")


def test_the_default_claude_model_is_a_current_row_named_once() -> None:
    resolved = get_registry().get(DEFAULT_ANTHROPIC_MODEL)
    assert resolved.source == "prefix" and resolved.matched == DEFAULT_ANTHROPIC_MODEL
    assert DEFAULT_ANTHROPIC_MODEL in {k.prefix for k in BUILTIN_MODELS}
    assert resolved.prices is not None and resolved.prices.cache_read_per_mtok is not None
    # retired on 2026-06-15 / announced end-of-life 2026-11-30 (Anthropic's deprecations page)
    assert not re.match(r"claude-sonnet-4-(5|2025)", DEFAULT_ANTHROPIC_MODEL)
    source = (REPO / "ctx_lab" / "tokens" / "_anthropic.py").read_text()
    assert '"claude-' not in source  # the counter takes the one default, never its own
    # the notebook's own code takes the one default; the recordings it reads name their own
    # models (a Claude Code 2.1 session of claude-sonnet-4-5), which its outputs show
    import json

    cells = json.loads((REPO / "notebooks" / "08_context_anatomy.ipynb").read_text())["cells"]
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert "claude-sonnet-4-5" not in code and "DEFAULT_ANTHROPIC_MODEL" in code
    readme = (REPO / "README.md").read_text()
    assert "claude-sonnet-4-5" not in readme and DEFAULT_ANTHROPIC_MODEL in readme


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("claude-sonet-4-5", "claude-sonnet-4-5"),
        ("anthropic/claude-sonet-4-5", "claude-sonnet-4-5"),
        ("claude-opsu-4-6", "claude-opus-4-6"),
    ],
)
def test_a_typo_inside_a_family_is_refused_with_the_model_meant(run_cli, typed, meant) -> None:
    """Only the family's row matched (its limits, no price): before, the answer was Claude's
    defaults with exit 0; now the name it misspells, exit 2, on every surface."""
    code, out, err = run_cli("models", typed)
    assert code == 2 and not out
    assert f"unknown model '{typed}'; did you mean '{meant}'" in err
    with pytest.raises(UnknownModelError, match=f"did you mean '{meant}'"):
        Session(root=REPO).call_query("models", {"name": [typed]})


def test_a_newer_member_of_a_family_is_not_a_typo(run_cli) -> None:
    """Other version numbers name another model (one the table does not have yet): the
    family's limits, said, and exit 0."""
    code, out, _ = run_cli("models", "claude-sonnet-4-9")
    assert code == 0 and "claude-sonnet-4-9" in out
    assert "family's design limits" in out
    check_model_name("claude-sonnet-4-5")  # its own row


def test_a_mistyped_adapter_command_is_found(run_cli) -> None:
    """``capture`` and ``mcp`` are served before the parser; a typo of either is still named."""
    code, _, err = run_cli("captur")
    assert code == 2 and "did you mean 'capture'?" in err
    code, _, err = run_cli("mpc")
    assert code == 2 and "did you mean 'mcp'?" in err
