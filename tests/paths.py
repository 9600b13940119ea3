"""Where the tests find things, wherever a test module sits under ``tests/``."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
# Real sessions shipped with ctx_lab (the notebooks teach with them; held back from fitting)
RECORDED = REPO / "ctx_lab" / "examples" / "recorded"
SHARED = REPO.parent / "shared"  # ../shared beside the checkout (real data, design docs)
