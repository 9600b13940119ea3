"""The policy lab: context policies replayed open-loop over real sessions and priced with the
cache model — the recorded policy reproduces what was sent, Claude Code's auto-compaction fires
where the recording's did, never trimming overflows the window; probes are mined from the
messages and followed through each policy; users' own policies plug in."""

from __future__ import annotations

import pytest
from paths import SHARED
from shared_recordings import with_usage

from ctx_lab.conversation import Message
from ctx_lab.errors import UsageError
from ctx_lab.recordings import POLICIES, mine_probes, parse_policy, run_policies
from ctx_lab.recordings.transcripts import Call, Transcript, load_transcript

REAL = SHARED / "real-data" / "transcripts"
LONG = sorted((REAL / "marot__spotter" / "long").glob("*.jsonl")) if REAL.is_dir() else []
needs_real = pytest.mark.skipif(not LONG, reason="../shared/real-data is not beside the checkout")


@pytest.fixture(scope="module")
def long_reports():
    return {p.name[:8]: (load_transcript(p), run_policies(load_transcript(p))) for p in LONG}


WITH_USAGE = with_usage()


@needs_real
@pytest.mark.parametrize("path", WITH_USAGE, ids=lambda p: p.name[:16])
def test_recorded_is_the_bill(path) -> None:
    """``recorded`` on a recording with usage is the bill: each call's input equals its
    reported input within 1 % (here: exactly), its split is the reported one, its cost is
    ``cache``'s actual cost, and its causes are ``cache``'s, call by call."""
    from ctx_lab.recordings import simulate_cache

    transcript = load_transcript(path)
    report = run_policies(transcript, ["recorded"])
    recorded = report.policy("recorded")
    cache = simulate_cache(transcript)
    by_call = {c.call: c for c in cache.calls}
    for mine, call in zip(recorded.calls, transcript.calls, strict=True):
        if call.usage is None:
            continue
        reported = call.usage.reported_input
        assert abs(mine.input - reported) <= 0.01 * reported and mine.billed, (path, mine.call)
        assert (mine.fresh, mine.cache_read, mine.cache_write) == (
            call.usage.input_tokens,
            call.usage.cache_read_input_tokens,
            call.usage.cache_creation_input_tokens,
        )
        assert mine.miss_cause == by_call[mine.call].miss_cause, (path, mine.call)
    assert recorded.cost == cache.cost.actual
    assert list(recorded.compactions) == [c + 1 for c in transcript.compaction_calls()]


def _automatic(path) -> bool:
    text = path.read_text(encoding="utf-8")
    return '"trigger":"auto"' in text.replace(" ", "")


AUTO = [p for p in WITH_USAGE if _automatic(p)]


@needs_real
@pytest.mark.parametrize("path", AUTO, ids=lambda p: p.name[:16])
def test_claude_code_compacts_where_the_recording_did(path) -> None:
    """Claude Code's auto-compaction fires within one call of every recorded automatic
    compaction — 2.1.x (the window less 33,000 tokens: 8463c716 after call 71 at 167,731) and
    2.0.x (less 45,000: session-624a4a58 after call 37 at 155,979) — on sizes anchored to the
    recording's usage."""
    transcript = load_transcript(path)
    report = run_policies(transcript, ["claude-code"])
    recorded = [c + 1 for c in transcript.compaction_calls()]
    fired = report.policy("claude-code").compactions
    assert len(fired) == len(recorded) >= 1, (path.name, fired, recorded)
    assert all(abs(f - r) <= 1 for f, r in zip(fired, recorded, strict=True)), (fired, recorded)


def test_claude_code_keeps_its_versions_buffer() -> None:
    from ctx_lab.recordings import claude_code_reserve

    assert claude_code_reserve("2.0.76") == 45_000 and claude_code_reserve("2.1.39") == 33_000
    assert claude_code_reserve("") == 33_000  # a recording that does not say: today's
    assert parse_policy("claude-code").params["reserve"] is None  # by the recording
    assert parse_policy("claude-code:reserve=40000").params["reserve"] == 40_000


@needs_real
def test_never_trimming_overflows_the_window_the_recording_kept(long_reports) -> None:
    _transcript, report = long_reports["8463c716"]
    none, recorded = report.policy("none"), report.policy("recorded")
    assert none.over_window > 0 and recorded.over_window == 0
    assert none.peak > report.window >= recorded.peak
    assert none.probes.lost == 0 and none.probes.kept == report.probes


@needs_real
def test_masking_and_clearing_lower_the_peak_and_say_what_they_dropped(long_reports) -> None:
    """Observation masking and Anthropic's tool-result clearing keep the peak input below the
    recording's; the loss table lists what they dropped and what was read again. (Their cost
    under prompt caching is a finding, not a given: a rolling mask rewrites the cache after the
    masked result every call — see notebook 10.)"""
    for name, (_, report) in long_reports.items():
        recorded = report.policy("recorded")
        assert report.probes >= 20, name
        for policy in ("observation-masking", "clear-tool-uses"):
            result = report.policy(policy)
            assert result.peak < recorded.peak, (name, policy)
            assert result.probes.lost > 0 and result.refetched, (name, policy)
            assert result.cost is not None and result.cost_split is not None
            split = result.cost_split
            assert split.read + split.write + split.fresh == pytest.approx(result.cost, abs=0.01)


def test_probes_are_mined_from_hand_labelled_messages() -> None:
    messages = [
        Message.user(
            "Fix the flaky test in tests/test_api.py. Never push to main. "
            "You must keep the public API stable."
        ),
        Message.assistant("I'll use pytest-rerunfailures instead of sleeping. Let me look."),
        Message.tool_use("c1", "Read", {"file_path": "src/app/server_config.py"}),
        Message.tool_result(
            "c1", "Traceback (most recent call last):\nKeyError: 'timeout_seconds'\nport 8443"
        ),
        Message.assistant("The handler reads MAX_RETRIES from RetryPolicy; port is 8443."),
    ]
    probes = mine_probes(messages)
    found = {(p.kind, p.text, p.message) for p in probes}
    assert ("constraint", "Never push to main", 0) in found
    assert ("constraint", "You must keep the public API stable", 0) in found
    assert ("decision", "I'll use pytest-rerunfailures instead of sleeping", 1) in found
    assert ("path", "tests/test_api.py", 0) in found
    assert ("path", "src/app/server_config.py", 2) in found
    assert ("error", "KeyError: 'timeout_seconds'", 3) in found
    assert ("identifier", "timeout_seconds", 3) in found
    assert ("identifier", "RetryPolicy", 4) in found
    assert ("number", "8443", 3) in found
    assert [p.kind for p in probes][:3] == ["constraint", "constraint", "decision"]
    assert len({p.text for p in probes}) == len(probes)  # each probe once
    assert not [p for p in probes if "Let me look" in p.text]  # no constraint, no decision


def test_policies_are_data_with_cited_defaults() -> None:
    for spec in POLICIES.values():
        for key in spec.params:
            assert spec.sources.get(key), (spec.name, key)
    tuned = parse_policy("clear-tool-uses:trigger=50000,keep=5,exclude_tools=Read|Grep")
    assert tuned.params["trigger"] == 50_000 and tuned.params["keep"] == 5
    assert tuned.params["exclude_tools"] == ("Read", "Grep")
    assert parse_policy("codex:share=0.8").params["share"] == 0.8
    for bad, message in (
        ("nope", "unknown policy"),
        ("summary:size=3", "no parameter"),
        ("summary:threshold=-1", "must be an integer in"),
        ("codex:share=2", "not a valid float"),
        ("summary:threshold", "not key=value"),
    ):
        with pytest.raises(UsageError, match=message):
            parse_policy(bad)


def _session(results: int, size: int = 4000) -> Transcript:
    """A tool loop of ``results`` calls, each reading a file of ``size`` characters (the
    usage is made up, far below what the calls hold: counts decide, not the bill)."""
    messages = [Message.user("Refactor the parser. Never change tests/fixtures/a.json.")]
    calls = []
    for i in range(results):
        calls.append(
            Call(
                i,
                len(messages) + 1,
                "claude-sonnet-4-5",
                f"2026-06-15T09:{i:02d}:00Z",
                None,
                len(messages),
            )
        )
        messages += [
            Message.tool_use(f"c{i}", "Read", {"file_path": f"src/parser/module_{i}.py"}),
            Message.tool_result(f"c{i}", f"ValueError: bad token at {1000 + i}\n" + "x" * size),
        ]
    return Transcript("anthropic-messages", tuple(messages), tuple(calls), system="You code.")


def test_masking_keeps_the_last_results_and_breaks_the_cache_after_the_mask() -> None:
    report = run_policies(_session(15), ["none", "observation-masking:keep=3"])
    none, masked = report.policy("none"), report.policy("observation-masking")
    assert masked.peak < none.peak
    # once results age past the window, every call rewrites what follows the newly masked one
    late = masked.calls[-1]
    assert late.cache_write > none.calls[-1].cache_write
    assert masked.probes.lost > 0 and none.probes.lost == 0


def test_a_users_own_policy_plugs_in() -> None:
    class LastFour:
        name = "last-four"

        def select(self, call, history):
            return history[-4:]

    report = run_policies(_session(8), ["none", LastFour()])
    mine = report.policy("last-four")
    assert mine.peak < report.policy("none").peak
    assert [c.call for c in mine.calls] == list(range(1, 9))


def test_every_figure_says_it_is_open_loop() -> None:
    report = run_policies(_session(5), ["recorded", "summary:threshold=3000"])
    assert "open-loop" in report.to_text() and "open-loop" in report.html_body()
    figure = report.plot()
    assert "open-loop" in figure.axes[0].get_title()
    frame = report.frame()
    assert set(frame["policy"]) == {"recorded", "summary:threshold=3000"} and len(frame) == 10
    assert report.policy("summary").compactions  # 3,000 tokens are passed early
    from ctx_lab.recordings import PoliciesReport

    assert PoliciesReport.from_dict(report.to_dict()) == report


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("summary:threshold=" + "9" * 5000, "must be an integer in [1, 10,000,000]"),
        ("summary:threshold=0", "must be an integer in [1, 10,000,000]"),
        ("clear-tool-uses:keep=-3", "must be an integer in [0, 100,000]"),
        ("observation-masking:keep=1e9", "must be an integer"),
        ("codex:share=nan", "not a valid float"),
        ("codex:share=1e400", "not a valid float"),
        ("clear-tool-uses:exclude_tools=" + "|".join(f"t{i}" for i in range(500)), "not a valid"),
    ],
)
def test_policy_settings_out_of_their_range_are_usage_errors(text: str, needle: str) -> None:
    from ctx_lab.cli import main

    with pytest.raises(UsageError) as info:
        parse_policy(text)
    assert needle in str(info.value)
    assert parse_policy("summary:threshold=120000").params["threshold"] == 120_000
    assert main(["policies", "-", "--policy", text]) == 2
