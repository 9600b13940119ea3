"""Past the text a build keeps in memory (``CTX_LAB_BUILD_TEXT_BYTES``), a file block keeps
where to read its text again, checked unchanged: a 40,000-file build held every text it read
(256 MB) until the prompt fitted. The same prompt and ledger either way."""

from __future__ import annotations

import email
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest

from ctx_lab.builder import ContentBlock, build_context
from ctx_lab.builder._build import _file_blocks
from ctx_lab.builder._compress import _CACHE, apply_policy
from ctx_lab.builder._fit import State
from ctx_lab.builder._held import Reread, digest, held_by, line_count, replaced
from ctx_lab.errors import InputFileError

TASK = "Fix how headers are parsed and folded in email messages"


@pytest.fixture()
def real_tree(tmp_path: Path) -> Path:
    """A real package: the standard library's email (about 40 modules, 600 KB)."""
    tree = tmp_path / "email"
    shutil.copytree(Path(email.__file__).parent, tree, ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def _build(tree: Path, budget: int) -> tuple[str, list[dict[str, object]]]:
    made = build_context(TASK, [str(tree)], budget=budget)
    return made.prompt, [asdict(b) for b in made.blocks]


@pytest.mark.parametrize("budget", [3000, 12000, 60000])
def test_held_texts_build_the_same_prompt_and_ledger(
    real_tree: Path, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = _build(real_tree, budget)
    monkeypatch.setenv("CTX_LAB_BUILD_TEXT_BYTES", "1")  # every file's text held
    assert _build(real_tree, budget) == kept


def test_texts_past_the_limit_are_held_and_the_first_ones_kept(
    real_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTX_LAB_BUILD_TEXT_BYTES", "60000")
    warnings: list[str] = []
    blocks = [b for b, _ in _file_blocks([str(real_tree)], real_tree, False, None, set(), warnings)]
    held = [b for b in blocks if held_by(b) is not None]
    kept = [b for b in blocks if held_by(b) is None]
    assert held and kept
    assert sum(len(b.text.encode()) for b in kept) <= 60000
    for block in held[:5]:
        where = held_by(block)
        assert where is not None and isinstance(vars(block)["text"], Reread)
        assert block.lines() == where.lines
        assert block.text == (real_tree / block.path).read_text(encoding="utf-8")
        assert where.lines == line_count(block.text)


def test_a_held_block_keeps_its_text_held_through_replaced(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def f():\n    return 1\n")
    data = path.read_bytes()
    block = ContentBlock.for_file("m.py", data.decode())
    held = replaced(block, text=Reread(str(path), "m.py", len(data), digest(data), 2))
    boosted = replaced(held, priority=75)
    assert held_by(boosted) is held_by(held) and boosted.priority == 75
    assert boosted.text == block.text and boosted.lines() == 2


def test_a_file_changed_after_its_first_read_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def f():\n    return 1\n")
    data = path.read_bytes()
    held = Reread(str(path), "m.py", len(data), digest(data), 2)
    path.write_text("def f():\n    return 2\n")  # the same size, other bytes
    with pytest.raises(InputFileError, match=r"m\.py: changed while the build read it"):
        held.text()
    path.write_text("def f():\n    return 1\n# and a line more\n")  # grown
    with pytest.raises(InputFileError, match="changed while the build read it"):
        held.text()
    path.unlink()
    with pytest.raises(InputFileError, match=r"m\.py: could not be read again"):
        held.text()


def _held_block(tmp_path: Path, text: str) -> ContentBlock:
    path = tmp_path / "big.py"
    path.write_text(text)
    data = path.read_bytes()
    block = ContentBlock.for_file("big.py", text)
    where = Reread(str(path), "big.py", len(data), digest(data), line_count(text))
    return replaced(block, text=where)


def test_a_held_blocks_long_forms_are_kept_compressed_while_fitted(tmp_path: Path) -> None:
    """The skeletons of 22,000 files formed at once held 136 MB in a 40,000-file build."""
    text = "".join(f"def f{i}(x: int) -> int:\n    return x * {i}\n\n" for i in range(400))
    held = _held_block(tmp_path, text)
    made = apply_policy(held, "structural")
    state = State(held, 0, None, made.policy, made.text, 100)
    assert isinstance(vars(state)["text"], bytes) and len(vars(state)["text"]) < len(made.text)
    assert state.text == made.text
    state.text = "short"
    assert vars(state)["text"] == "short" == state.text
    plain = State(ContentBlock.for_file("big.py", text), 0, None, made.policy, made.text, 100)
    assert vars(plain)["text"] is made.text  # a block whose text is kept: nothing packed


def test_forms_of_a_held_block_are_made_again_not_cached(tmp_path: Path) -> None:
    text = "".join(f"def g{i}(x: int) -> int:\n    return x + {i}\n\n" for i in range(50))
    held = _held_block(tmp_path, text)
    before = len(_CACHE)
    first = apply_policy(held, "structural")
    assert len(_CACHE) == before
    assert apply_policy(held, "structural") == first
    apply_policy(ContentBlock.for_file("big.py", text), "structural")
    assert len(_CACHE) == before + 1
