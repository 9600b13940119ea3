"""Prompt caching simulated from the providers' rules (``ctx-lab cache``): on the real long
sessions the predicted read and write match the reported ones and every miss has its cause;
each rule pinned on a hand-built session, with its source named in the data."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from paths import SHARED

from ctx_lab.conversation import Message
from ctx_lab.models import CACHE_RULES, cache_rule
from ctx_lab.recordings import simulate_cache
from ctx_lab.recordings.transcripts import Call, Transcript, Usage, load_transcript

REAL = SHARED / "real-data" / "transcripts"
LONG = sorted((REAL / "marot__spotter" / "long").glob("*.jsonl")) if REAL.is_dir() else []
WITH_USAGE = sorted(REAL.rglob("*.json*")) if REAL.is_dir() else []


@pytest.mark.skipif(not LONG, reason="../shared/real-data is not beside the checkout")
@pytest.mark.parametrize("path", LONG, ids=lambda p: p.name[:8])
def test_the_long_sessions_predicted_within_2_percent(path) -> None:
    report = simulate_cache(load_transcript(path))
    assert report.matched is not None and report.matched() >= 0.95
    causes = {c.miss_cause for c in report.calls if c.miss_cause}
    assert "compaction" in causes  # the recorded compaction, named
    cost = report.cost
    assert cost.ideal <= cost.actual < cost.no_cache  # caching saves; ideal saves most


@pytest.mark.skipif(not WITH_USAGE, reason="../shared/real-data is not beside the checkout")
def test_every_drop_of_the_read_has_a_named_cause() -> None:
    """A call that reads more than 10 % less than the previous call left cached is explained
    in every recorded session, in the engine's one vocabulary; a read that equals an earlier
    call's cached prefix (not the previous one's) is "several entries", never a change of the
    hidden prefix; routing only where nothing in the file explains the read."""
    from ctx_lab.recordings import CACHE_CAUSES

    for path in WITH_USAGE:
        transcript = load_transcript(path)
        if not transcript.has_usage:
            continue
        report = simulate_cache(transcript)
        judged = [c for c in report.calls if c.reported is not None]
        left = []
        for before, call in itertools.pairwise(judged):
            cached = before.reported.cache_read + before.reported.cache_write
            if call.reported.cache_read < 0.9 * cached and call.model == before.model:
                assert call.miss_cause in CACHE_CAUSES and call.miss_reason, (path, call.call)
            left.append(cached)
            read = call.reported.cache_read
            earlier = [
                k for k, size in enumerate(left[:-1]) if read and abs(size - read) <= 0.002 * read
            ]
            written = (cache_rule(call.model or "") or CACHE_RULES[-1]).breakpoints > 0
            if (
                written
                and earlier
                and abs(cached - read) > 0.02 * read
                and call.model == before.model
            ):
                assert call.miss_cause == "several entries", (path, call.call)


@pytest.mark.skipif(not WITH_USAGE, reason="../shared/real-data is not beside the checkout")
def test_counted_sizes_predict_the_read_within_10_percent() -> None:
    """``--sizes counts``: ctx_lab's counts of what each call sent, calibrated on the session,
    with what the file lacks inferred from usage, predict the reported read within 10 % on at
    least 90 % of the calls whose read the rules predict from the reported sizes (what is left
    is the counts' error, not the cache's routing) — all sessions together, and each long
    session on its own."""
    close = judged = 0
    for path in WITH_USAGE:
        transcript = load_transcript(path)
        if not any(c.usage and c.usage.cache_read_input_tokens for c in transcript.calls):
            continue
        by_usage = {
            c.call
            for c in simulate_cache(transcript).calls
            if c.reported is not None
            and abs(c.cache_read - c.reported.cache_read) <= 0.02 * max(c.reported.cache_read, 1)
        }
        report = simulate_cache(transcript, sizes="counts")
        mine = [c for c in report.calls if c.reported is not None and c.call in by_usage]
        near = [
            c
            for c in mine
            if abs(c.cache_read - c.reported.cache_read) <= 0.1 * max(c.reported.cache_read, 1)
        ]
        close, judged = close + len(near), judged + len(mine)
        if path in LONG:
            assert len(near) >= 0.9 * len(mine), path
            assert report.counted_with and "calibrated on this session" in report.counted_with
            kinds = {p.what for p in report.inferred}
            assert {"hidden prefix", "re-attached after compaction"} <= kinds, path
    assert judged > 300 and close >= 0.9 * judged, (close, judged)


def test_counted_sizes_infer_what_the_file_lacks() -> None:
    """The hidden prefix from the first call's usage, the full size of thinking sent back from
    the next call's growth (its summary a lower bound), a compaction's re-attached files from
    the first call after it; each named with the call it was inferred from."""
    from ctx_lab.conversation import ContextManager
    from ctx_lab.recordings.cache._cache_sizes import counted_sizes
    from ctx_lab.tokens import get_counter

    counter = get_counter("bytes/4")
    model = "claude-opus-4-6"
    messages = (
        Message.user("a" * 400),
        Message.assistant("b" * 400),
        Message.user("c" * 400),
        Message.assistant("d" * 40),
        Message.user("f" * 80),
        Message.user("summary " * 50),  # what the compaction wrote
        Message.assistant("e" * 40),
    )
    c = [ContextManager(model, counter=counter).count(m) for m in messages]
    hidden, thought, reattached = 9_000, 700, 5_000
    totals = [
        hidden + c[0],
        hidden + sum(c[:3]),
        hidden + sum(c[:5]) + thought,  # the thinking of call 2, sent back in full
        hidden + reattached + c[5],
    ]
    usage = [
        Usage(3, 5, t - 3 - r, r) for t, r in zip(totals, (0, *totals[:2], hidden), strict=True)
    ]
    calls = tuple(
        Call(i, answer, model, None, u, sent)
        for i, (sent, answer, u) in enumerate(zip((1, 3, 5, 6), (2, 4, 5, 7), usage, strict=True))
    )
    transcript = Transcript(
        "claude-code", messages, calls, compactions=(5,), recorded_summaries=(5,),
        thinking=((1, "t" * 400),),  # a 100-token summary of 700 tokens of thinking
    )  # fmt: skip
    sizes = counted_sizes(transcript, counter, calibrated=False)
    assert [sizes.totals[i] for i in range(4)] == totals
    assert [(p.call, p.tokens, p.what) for p in sizes.inferred] == [
        (1, hidden, "hidden prefix"),
        (3, thought, "thinking beyond its summary"),
        (4, reattached, "re-attached after compaction"),
    ]
    without = Transcript(
        "claude-code", messages[:5], tuple(replace(k, usage=None) for k in calls[:3]),
        thinking=((1, "t" * 400),),
    )  # fmt: skip
    counted = counted_sizes(without, counter, calibrated=False)
    assert counted.inferred == [] and counted.totals[2] == sum(c[:5]) + 100  # the summary


def _session(*calls: tuple[str, str, int, int, int], compaction_before: int | None = None):
    """A session of calls ``(model, time, fresh, read, write)`` (each call one message)."""
    messages = []
    made = []
    for i, (model, stamp, fresh, read, write) in enumerate(calls):
        messages += [Message.user(f"question {i}"), Message.assistant(f"answer {i}")]
        made.append(
            Call(i, len(messages), model, stamp, Usage(fresh, 10, write, read), len(messages) - 1)
        )
    compactions = () if compaction_before is None else (2 * compaction_before,)
    return Transcript("claude-code", tuple(messages), tuple(made), compactions=compactions)


def _t(minute: float) -> str:
    return f"2026-06-15T09:{int(minute):02d}:{int(minute % 1 * 60):02d}Z"


def test_everything_cached_by_a_call_is_read_by_the_next() -> None:
    report = simulate_cache(
        _session(
            ("claude-sonnet-4-5", _t(0), 3, 0, 5000), ("claude-sonnet-4-5", _t(1), 3, 5000, 400)
        )
    )
    second = report.calls[1]
    assert (second.cache_read, second.cache_write, second.miss_cause) == (5000, 400, None)


def test_a_prefix_idle_past_its_lifetime_is_gone() -> None:
    """Anthropic's default lifetime is 5 minutes (refreshed by every hit)."""
    report = simulate_cache(
        _session(("claude-sonnet-4-5", _t(0), 3, 0, 5000), ("claude-sonnet-4-5", _t(6), 3, 0, 5400))
    )
    assert report.calls[1].miss_cause == "lifetime expired" and report.calls[1].cache_read == 0


def test_an_hour_written_prefix_outlives_five_minutes() -> None:
    session = _session(
        ("claude-sonnet-4-5", _t(0), 3, 0, 5000), ("claude-sonnet-4-5", _t(30), 3, 5000, 400)
    )
    first = session.calls[0]
    hour = Usage(3, 10, 5000, 0, cache_write_1h=5000)
    session = Transcript(
        session.format,
        session.messages,
        (
            Call(0, first.context, first.model, first.timestamp, hour, first.prompt),
            session.calls[1],
        ),
    )
    assert simulate_cache(session).calls[1].cache_read == 5000


def test_a_cache_serves_only_the_model_that_wrote_it() -> None:
    report = simulate_cache(
        _session(("claude-sonnet-4-5", _t(0), 3, 0, 5000), ("claude-haiku-4-5", _t(1), 3, 0, 5400))
    )
    assert report.calls[1].miss_cause == "model switched" and report.calls[1].cache_write == 5400


def test_a_prefix_below_the_minimum_is_never_cached() -> None:
    """Claude Sonnet 4.5 caches from 1,024 tokens; Opus 4.6 and Haiku 4.5 from 4,096."""
    report = simulate_cache(
        _session(("claude-opus-4-6", _t(0), 3, 0, 2000), ("claude-opus-4-6", _t(1), 3, 0, 2400))
    )
    assert report.calls[1].miss_cause == "prefix below the minimum"
    assert cache_rule("claude-sonnet-4-5").minimum == 1024
    assert cache_rule("claude-opus-4-6").minimum == 4096


def test_a_compaction_leaves_only_the_hidden_prefix() -> None:
    session = _session(
        ("claude-sonnet-4-5", _t(0), 3, 0, 9000),
        ("claude-sonnet-4-5", _t(1), 3, 8500, 2500),
        compaction_before=1,
    )
    report = simulate_cache(session)
    assert report.calls[1].miss_cause == "compaction"
    assert report.calls[1].cache_read == report.hidden_prefix  # inferred from the first call


def test_openai_caches_in_128_token_steps() -> None:
    """OpenAI: automatic caching from 1,024 tokens, in 128-token increments."""
    session = _session(("gpt-4o", _t(0), 2000, 0, 0), ("gpt-4o", _t(1), 300, 0, 0))
    calls = list(session.calls)
    calls[0] = Call(0, 2, "gpt-4o", _t(0), Usage(2000, 10, 0, 0), 1)
    calls[1] = Call(1, 4, "gpt-4o", _t(1), Usage(300, 10, 0, 1900), 3)
    report = simulate_cache(Transcript("openai-chat", session.messages, tuple(calls)))
    assert report.calls[1].cache_read % 128 == 0
    assert cache_rule("gpt-4o").step == 128 and cache_rule("gpt-4o").minimum == 1024


def _openai(model: str, *calls: tuple[float, int, int, int]) -> Transcript:
    """An OpenAI Chat session of ``model``: calls ``(minute, fresh, read, write)``."""
    messages, made = [], []
    for i, (minute, fresh, read, write) in enumerate(calls):
        messages += [Message.user(f"question {i}"), Message.assistant(f"answer {i}")]
        usage = Usage(fresh, 10, write, read)
        made.append(Call(i, len(messages), model, _t(minute), usage, len(messages) - 1))
    return Transcript("openai-chat", tuple(messages), tuple(made), system="You help.")


def test_openai_retention_by_model() -> None:
    """gpt-5.5 keeps a prefix 24 h (the only retention it supports); the models with extended
    retention default to 24 h; gpt-4o's in-memory cache is gone after minutes idle."""
    for model, expired in (("gpt-4o", True), ("gpt-5.1-codex", False), ("gpt-5.5", False)):
        report = simulate_cache(_openai(model, (0, 2000, 0, 0), (20, 2220, 0, 0)))
        assert (report.calls[1].miss_cause == "lifetime expired") is expired, model
        assert (report.calls[1].cache_read == 0) is expired, model
    assert cache_rule("gpt-5.5").lifetimes == (86400,)
    assert "prompt_cache_retention" in cache_rule("gpt-5.5").source


def test_openai_bills_writes_from_gpt_5_6() -> None:
    """GPT-5.6 and later: up to 4 breakpoints a request, a 30-minute lifetime, writes billed at
    1.25× input; earlier models write for free."""
    from ctx_lab.models import ModelPrices, cache_prices

    rule = cache_rule("gpt-5.6")
    assert (rule.breakpoints, rule.lifetimes, rule.write) == (4, (1800,), (1.25,))
    assert cache_prices("gpt-5.6", ModelPrices(5, 30, 0.5)).write == 6.25
    report = simulate_cache(_openai("gpt-5.6", (0, 0, 0, 2000), (1, 300, 1920, 80)))
    assert report.calls[1].cache_write > 0  # a write, not fresh input
    assert cache_rule("gpt-5.5").write == (1.0,) and cache_rule("gpt-5.5").breakpoints == 0


def test_an_openai_read_that_falls_short_is_routing() -> None:
    """OpenAI routes by a hash of the prefix and a hit is best effort: a read far below what
    the rules leave cached, with no rule to explain it, is named as routing (a real Codex
    rollout misses a quarter of its calls this way)."""
    report = simulate_cache(_openai("gpt-5.5", (0, 2000, 0, 0), (0.2, 2300, 0, 0)))
    assert report.calls[1].miss_cause == "routing (best effort)"


def test_every_rule_names_its_source() -> None:
    for rule in CACHE_RULES:
        assert rule.source.startswith("https://") and rule.as_of and rule.lifetimes
    anthropic = cache_rule("claude-sonnet-4-5")
    assert anthropic.breakpoints == 4 and anthropic.lifetimes == (300, 3600)
    assert anthropic.write == (1.25, 2.0) and anthropic.read == 0.1
    assert cache_rule("gpt-4o").read is None  # OpenAI's cached price differs by model
    assert anthropic.render_order == ("tools", "system", "messages")


def test_the_report_plots_and_tabulates_every_call() -> None:
    from ctx_lab.recordings import CacheReport

    report = simulate_cache(
        _session(("claude-sonnet-4-5", _t(0), 3, 0, 5000), ("claude-haiku-4-5", _t(1), 3, 0, 5400))
    )
    figure = report.plot()
    assert [t.get_text() for t in figure.axes[0].texts] == ["model switched"]
    frame = report.frame()
    assert frame["miss_cause"].isna().tolist() == [True, False]
    assert CacheReport.from_dict(report.to_dict()) == report


def test_replay_and_the_cache_price_alike() -> None:
    """One pricing of the cache: a registry's prices first, a rule's documented multipliers
    where the registry has none (Claude), unknown where prices differ by model (OpenAI)."""
    from ctx_lab.models import ModelPrices, cache_prices

    listed = cache_prices("claude-sonnet-4-5", ModelPrices(3, 15, 0.3, 3.75))
    assert (listed.input, listed.read, listed.write, listed.write_hour) == (3, 0.3, 3.75, 6.0)
    derived = cache_prices("claude-opus-4-6", ModelPrices(15, 75))
    assert (derived.read, derived.write, derived.write_hour) == (1.5, 18.75, 30.0)
    assert cache_prices("gpt-4o", ModelPrices(2.5, 10)).read is None


@pytest.mark.skipif(not LONG, reason="../shared/real-data is not beside the checkout")
@pytest.mark.parametrize("registry", ["builtin", "models-dev"])
def test_anatomy_prices_a_session_as_the_cache_report_does(registry) -> None:
    """One pricing of the cache: every call's anatomy carries the price of its reported split,
    and over a session they add up to what ``ctx-lab cache`` reports as the actual cost."""
    from ctx_lab.anatomy import anatomy_of

    path = LONG[-1]
    session = anatomy_of(path, session=True, registry=registry)
    report = simulate_cache(load_transcript(path), registry=registry)
    costs = [c.cost_usd for c in session.calls]
    assert None not in costs and report.cost.actual is not None
    assert sum(costs) == pytest.approx(report.cost.actual, abs=1e-3)
    assert all(r["cost_usd"] == c for r, c in zip(session.rows(), costs, strict=True))
    assert f"input cost ${sum(costs):.4f}" in session.to_text()


def test_counted_sizes_infer_what_a_full_request_file_still_lacks() -> None:
    """A file that holds the system prompt and tools (a Codex rollout, an API log) may still
    lack what the agent injected: the first call's usage says how much, and every later call
    carries it (here 5,000 tokens the file does not hold)."""
    from ctx_lab.recordings.cache._cache_sizes import counted_sizes
    from ctx_lab.tokens import get_counter

    counter = get_counter("bytes/4")
    model = "gpt-5.5"
    messages = tuple(
        m
        for i in range(4)
        for m in (Message.user("q" * 800 * (i + 1)), Message.assistant("a" * 40))
    )
    from ctx_lab.recordings.calibration._delta import message_counts

    overhead, counts = message_counts(
        Transcript("codex", messages, system="You are Codex."), counter, model
    )
    calls = []
    for i in range(4):
        sent = 2 * i + 1
        total = 5_000 + overhead + sum(counts[:sent])
        calls.append(Call(i, sent + 1, model, None, Usage(total - 1000, 10, 0, 1000), sent))
    transcript = Transcript("codex", messages, tuple(calls), system="You are Codex.")
    sizes = counted_sizes(transcript, counter, calibrated=False)
    assert [(p.call, p.tokens, p.what) for p in sizes.inferred] == [(1, 5_000, "hidden prefix")]
    assert [sizes.totals[i] for i in range(4)] == [c.usage.reported_input for c in calls]
