"""Rich display: versioned MIME payloads, escaped self-contained HTML and plain text."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from ctx_lab.display import PAYLOAD_VERSION, escape, mime_type, text_table
from ctx_lab.models import describe_model, list_models
from ctx_lab.tokens import TextInput, count_texts

HOSTILE = '<img src=x onerror=alert(1)> & "quotes"'


def test_bundle_has_three_representations() -> None:
    result = describe_model("gpt-4o")
    bundle = result._repr_mimebundle_()
    assert set(bundle) == {mime_type("model"), "text/html", "text/plain"}
    payload = bundle["application/vnd.ctx-lab.model+json"]
    assert payload["version"] == PAYLOAD_VERSION
    assert {k: v for k, v in payload.items() if k != "version"} == result.to_dict()
    json.dumps(payload)  # JSON-serialisable
    assert bundle["text/plain"] == result.to_text()


def test_include_and_exclude() -> None:
    result = describe_model("gpt-4o")
    assert set(result._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}
    assert "text/html" not in result._repr_mimebundle_(exclude=["text/html"])


def test_user_content_is_escaped_in_html() -> None:
    report = count_texts([TextInput(HOSTILE, "x")], "bytes/4", warnings=[HOSTILE])
    html = report.to_html()
    assert "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;" in html
    model_html = describe_model(HOSTILE).to_html()
    assert "<img" not in model_html


def test_html_is_self_contained_and_tagged() -> None:
    html = list_models().to_html()
    assert html.startswith('<div class="ctx-lab ctx-lab-models" data-ctx-kind="models">')
    assert "<style>" in html and "<script" not in html and "http" not in html.split("</style>")[0]


def test_text_table_aligns_numbers() -> None:
    table = text_table(["name", "n"], [["a", 1], ["bbb", 100]])
    lines = table.splitlines()
    assert lines[1].endswith("  1") and lines[2].endswith("100")


def test_titles_show_as_text_and_dates_do_not_wrap() -> None:
    from ctx_lab.display import html_table, plain_title

    assert plain_title("**Money** is `Decimal`, __never__ float") == "Money is Decimal, never float"
    table = html_table(["date", "title"], [["2026-06-02", "a-b-c"]])
    assert '<td style="white-space:nowrap">2026-06-02</td>' in table
    assert "<td>a-b-c</td>" in table


@given(st.text() | st.integers() | st.none())
def test_escape_is_html_escape_with_quotes(value: object) -> None:
    """``escape`` no longer imports ``html`` (its 2,000 named entities cost every command's
    start): the same text as ``html.escape(str(value), quote=True)``, None as empty."""
    import html

    expected = "" if value is None else html.escape(str(value), quote=True)
    assert escape(value) == expected
