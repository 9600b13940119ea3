"""The %ctx magic: in an in-process IPython shell and in a real kernel through nbclient."""

from __future__ import annotations

import nbformat
import pytest

from ctx_lab.models import ModelInfo
from ctx_lab.tokens import TokenReport


def test_line_magic_returns_result_object(ip) -> None:
    result = ip.run_line_magic("ctx", "models gpt-4o")
    assert isinstance(result, ModelInfo)
    assert result.to_dict()["effective_input_budget"] == 106_036


def test_cell_magic_counts_the_cell(ip) -> None:
    result = ip.run_cell_magic("ctx", "tokens --counter bytes/4", "abcdefgh")
    assert isinstance(result, TokenReport)
    assert result.files[0].path == "<cell>" and result.files[0].counts == {"bytes/4": 2}


def test_magic_shows_errors_without_raising(ip, capsys) -> None:
    assert ip.run_line_magic("ctx", "tokens --counter nope") is None
    assert "unknown counter 'nope'" in capsys.readouterr().err
    assert ip.run_line_magic("ctx", "frobnicate") is None
    assert ip.run_line_magic("ctx", "--help") is None
    assert "tokens" in capsys.readouterr().out


@pytest.mark.kernel
def test_magic_in_a_real_kernel() -> None:
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext ctx_lab"),
        nbformat.v4.new_code_cell("%ctx models gpt-4o"),
        nbformat.v4.new_code_cell("%%ctx tokens --counter bytes/4\nabcd"),
    ]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    [out] = [o for o in nb.cells[1].outputs if o["output_type"] == "execute_result"]
    payload = out["data"]["application/vnd.ctx-lab.model+json"]
    assert payload["effective_input_budget"] == 106_036 and payload["version"] == 1
    assert "106,036" in out["data"]["text/html"]
    [cell_out] = [o for o in nb.cells[2].outputs if o["output_type"] == "execute_result"]
    assert cell_out["data"]["application/vnd.ctx-lab.tokens+json"]["total"] == {"bytes/4": 1}
