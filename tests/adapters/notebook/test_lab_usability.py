"""The notebook surfaces as a person uses them: %ctx completion and "did you mean", a clear
message for empty input, reasons that name the comparison, history ranges, an explorer whose
bars stay readable after a model choice, and API errors that never show the server's root."""

from __future__ import annotations

import json
from dataclasses import replace

from ctx_lab.conversation import ContextManager, Message
from ctx_lab.conversation._report import history_report
from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW
from ctx_lab.notebook import BudgetExplorer
from ctx_lab.notebook._completion import complete_line


def completions(ip, text: str) -> list[str]:  # type: ignore[no-untyped-def]
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return [c.text for c in ip.Completer.completions(text, len(text))]


def test_completion_through_ipython(ip) -> None:
    ip.run_line_magic("load_ext", "ctx_lab")
    assert "packet" in completions(ip, "%ctx pa")
    counters = completions(ip, "%ctx packet --counter ")
    assert {"o200k", "cl100k", "bytes/4", "model"} <= set(counters)
    assert "ctx-0.8" in completions(ip, "%ctx packet --profile ")
    assert "--budget" in completions(ip, "%ctx packet --bu")


def test_completion_of_cursors_and_policies() -> None:
    """``--cursor`` offers @last and the kernel's variables that hold a cursor (a read or a
    cursor string), nothing else; ``--policy`` the policy names, then a policy's parameters."""

    class Read:
        next_cursor = "eyJ2IjoxfQ.c2lnbmF0dXJlMTIz"

    namespace = {"r": Read(), "c": Read.next_cursor, "n": 3, "text": "hello", "_hidden": Read()}
    assert complete_line("read doc.md --cursor ", namespace) == ["@last", "@c", "@r"]
    assert complete_line("read doc.md --cursor @l", namespace) == ["@last"]
    names = complete_line("policies s.jsonl --policy ")
    assert "observation-masking" in names and "claude-code" in names and len(names) == 10
    assert complete_line("policies s.jsonl --policy claude-code:") == [
        "claude-code:reserve=",
        "claude-code:summary=",
        "claude-code:pct=",
    ]
    assert complete_line("policies s.jsonl --policy observation-masking:keep=3,ba") == [
        "observation-masking:keep=3,batch="
    ]


def test_completion_of_values_and_flags() -> None:
    assert complete_line("pa") == ["packet", "page"]
    assert "gpt-4o" in complete_line("packet --model gpt-4")
    assert complete_line("nonsense --") == []


def test_did_you_mean(ip, capsys) -> None:
    ip.run_line_magic("load_ext", "ctx_lab")
    assert ip.run_line_magic("ctx", "pakcet --example") is None
    assert "did you mean 'packet'?" in capsys.readouterr().err
    assert ip.run_line_magic("ctx", "packet --example --budgt 5") is None
    assert "did you mean --budget?" in capsys.readouterr().err


def test_empty_tokens_input_is_a_clear_message(ip, capsys) -> None:
    ip.run_line_magic("load_ext", "ctx_lab")
    assert ip.run_line_magic("ctx", "tokens") is None
    assert "nothing to count" in capsys.readouterr().err


def test_help_examples_use_magic_syntax(ip, capsys) -> None:
    ip.run_line_magic("load_ext", "ctx_lab")
    ip.run_line_magic("ctx", "packet --help")
    out = capsys.readouterr().out
    assert "%ctx packet --example --budget 2000" in out and "ctx-lab packet" not in out


def test_entries_reasons_name_the_comparison() -> None:
    from ctx_lab.commands import entries

    rows = entries(example=True, budget=1200).packet.ledger_rows
    full = next(r for r in rows if r.section == "decisions" and r.action == "full")
    assert "needs" in full.reason and "left of 80 %" in full.reason
    summary = next(r for r in rows if r.action == "summary")
    assert "in full it needs" in summary.reason and "left of" in summary.reason
    counted = next(r for r in rows if r.action == "counted" and r.section == "decisions")
    assert "its title needs" in counted.reason and "left" in counted.reason


def test_history_payload_and_renderer_use_ranges() -> None:
    manager = ContextManager("gpt-4", counter="bytes/4")
    for i in range(6):
        manager.push_message(Message.user(f"message {i}"))
    report = history_report(manager, "h.json")
    summary = {"kind": "summary", "ids": [*range(76), 80], "tokens": 12}
    data = replace(report, segments=[summary], to_summarize=[1, 2, 3, 7]).to_dict()
    assert data["segments"][0]["range"] == "0–75, 80"
    assert data["to_summarize_range"] == "1–3, 7"
    assert json.loads(json.dumps(data))["segments"][0]["ids"][-1] == 80
    assert type(report).from_dict(data).segments == [summary]  # the range is derived


def test_explorer_keeps_bars_readable_after_a_model_choice() -> None:
    explorer = BudgetExplorer(EXAMPLE_DIR, budget=1500, now=EXAMPLE_NOW)
    explorer.model.value = "gpt-4o"
    packet = explorer.packet
    assert explorer.budget.value == packet.budget == 106_036  # the slider shows it
    fig = packet.plot()
    axis = fig.axes[0]
    assert axis.get_xlim()[1] < packet.budget / 3  # zoomed to the packet, bars visible
    assert any("budget 106,036" in t.get_text() for t in axis.texts)
    assert "data-ctx-ledger-scroll" in explorer.table.value
    assert "NaN" not in explorer.table.value


def test_completion_offers_no_python_names_on_ctx_lines(ip) -> None:
    """`%ctx ` lists commands, not `and, if, in …`; a flag position lists the command's flags,
    not builtins; other lines complete as Python still."""
    ip.run_line_magic("load_ext", "ctx_lab")
    commands_only = completions(ip, "%ctx ")
    assert commands_only[:2] == ["anatomy", "budget"] and "and" not in commands_only
    flags = completions(ip, "%ctx packet --")
    assert flags and all(f.startswith("--") for f in flags) and "--abs" not in flags
    assert completions(ip, "%ctx packet --co") == ["--compare", "--counter"]
    assert completions(ip, "%%ctx tokens --co") == ["--counter"]
    ip.user_ns["ctx_lab_probe_value"] = 1
    assert "ctx_lab_probe_value" in completions(ip, "ctx_lab_probe_v")
