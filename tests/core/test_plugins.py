"""Counters and model sources installed as packages (entry points) show up everywhere a name is
accepted: the Python API, the CLI (in-process and as a real process), the magic."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_helpers import PLUGIN_COUNTER, dist_info

from ctx_lab import commands
from ctx_lab.tokens import count_tokens, counter_info, counter_names, get_counter


def test_the_plugin_is_discovered(counter_plugin) -> None:
    assert PLUGIN_COUNTER in counter_names()
    assert get_counter(PLUGIN_COUNTER).name == PLUGIN_COUNTER
    assert count_tokens("three little words", PLUGIN_COUNTER) == 3
    info = {c.name: c for c in counter_info()}[PLUGIN_COUNTER]
    assert info.available and not info.exact


def test_the_plugin_is_forgotten_when_uninstalled(counter_plugin) -> None:
    assert PLUGIN_COUNTER in counter_names()


def test_no_plugin_without_install() -> None:
    assert PLUGIN_COUNTER not in counter_names()


def test_cli_lists_and_uses_the_plugin(counter_plugin, run_cli, tmp_path: Path) -> None:
    code, out, _ = run_cli("counters", "--format", "json")
    listed = {c["name"]: c for c in json.loads(out)["counters"]}
    assert code == 0 and listed[PLUGIN_COUNTER]["available"]
    (tmp_path / "a.txt").write_text("one two three four")
    code, out, _ = run_cli(
        "tokens", str(tmp_path / "a.txt"), "--counter", "all", "--format", "json"
    )
    assert code == 0 and json.loads(out)["total"][PLUGIN_COUNTER] == 4


def test_a_real_cli_process_sees_the_plugin(counter_plugin, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two three")
    done = subprocess.run(
        [sys.executable, "-m", "ctx_lab", "tokens", str(tmp_path / "a.txt"), "--counter", "all"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0]
    assert PLUGIN_COUNTER in header


def test_the_magic_sees_the_plugin(counter_plugin, ip) -> None:
    listing = ip.run_line_magic("ctx", "counters")
    assert PLUGIN_COUNTER in [c.name for c in listing.counters]
    report = ip.run_cell_magic("ctx", f"tokens --counter {PLUGIN_COUNTER}", "a b c d e")
    assert report.total[PLUGIN_COUNTER] == 5


def test_a_broken_plugin_is_listed_unavailable(tmp_path: Path, monkeypatch) -> None:
    from ctx_lab.tokens import discover_counters

    site = tmp_path / "site"
    dist_info(site, "broken-counter", "ctx_lab.counters", "broken = no_such_module:make")
    monkeypatch.syspath_prepend(str(site))
    try:
        discover_counters(refresh=True)
        info_row = {c.name: c for c in commands.counters().counters}["broken"]
        assert not info_row.available and "no_such_module" in info_row.reason
        with pytest.raises(Exception, match="unavailable"):
            count_tokens("x", "broken")
    finally:
        monkeypatch.undo()
        discover_counters(refresh=True)
    assert "broken" not in counter_names()


def test_a_model_source_plugin(tmp_path: Path, monkeypatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "tiny_models.py").write_text(
        "from ctx_lab.models import ModelRegistry\n"
        "def make():\n"
        "    return ModelRegistry({'house-model': (32000, 4000)})\n"
    )
    dist_info(site, "tiny-models", "ctx_lab.model_sources", "house = tiny_models:make")
    monkeypatch.syspath_prepend(str(site))
    from ctx_lab.models import _registry as model_registry
    from ctx_lab.models import registry_names

    try:
        result = commands.models("house-model", registry="house")
        assert result.to_dict()["context_window"] == 32000
        assert "house" in registry_names()
    finally:
        model_registry._registries.pop("house", None)


def test_a_scaled_built_in_reads_no_entry_points(monkeypatch) -> None:
    """Resolving ``bytes/4*{…}`` (what every calibrated session counts with) must not scan the
    installed packages' entry points: the scaling syntax is never a plugin's name."""
    from importlib import metadata

    from ctx_lab.tokens import _lookup

    monkeypatch.setattr(_lookup, "_discovered", False)
    read: list[str] = []
    real = metadata.entry_points
    monkeypatch.setattr(metadata, "entry_points", lambda **kw: read.append("x") or real(**kw))
    counter = get_counter("bytes/4*{prose:1.25,code:1.5,tool:12}")
    assert counter.count("a" * 40) > 0 and get_counter("bytes/4*1.5").count("a" * 40) == 15
    assert read == [] and not _lookup._discovered


def test_a_scaled_plugin_still_finds_its_base(counter_plugin) -> None:
    from ctx_lab.tokens import _lookup

    _lookup._discovered = False  # as in a fresh process: the base is not yet known
    _lookup._registry.pop(PLUGIN_COUNTER, None)
    assert get_counter(f"{PLUGIN_COUNTER}*2").count("three little words") == 6


def test_a_plugin_named_in_the_scaling_syntax_is_not_taken(tmp_path: Path, monkeypatch) -> None:
    from ctx_lab.tokens import discover_counters

    site = tmp_path / "site"
    dist_info(site, "odd-counter", "ctx_lab.counters", "bytes/4*2 = nowhere:make")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert "bytes/4*2" not in discover_counters(refresh=True)
        assert get_counter("bytes/4*2").count("a" * 40) == 20
    finally:
        monkeypatch.undo()
        discover_counters(refresh=True)
