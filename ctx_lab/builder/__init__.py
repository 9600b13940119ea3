"""The context builder: blocks, four compression policies, priority degradation to a budget."""

from ._blocks import POLICIES, ContentBlock, default_policy, default_priority
from ._build import (
    DEFAULT_BUILD_BUDGET,
    BlockOutcome,
    BuildResult,
    build_context,
    render_prompt,
    resolve_build_budget,
)
from ._compress import Compressed, apply_policy, structural
from ._data_skeleton import data_skeleton
from ._memory import ContextMemory, MemorySource
from ._plots import plot_blocks, plot_policy_sweep
from ._preview import CompressPreview, preview_compression
from ._summarize import reference, summarize
from ._sweep import policy_sweep
from .skeletons import python_skeleton, treesitter_skeleton

__all__ = [
    "DEFAULT_BUILD_BUDGET",
    "POLICIES",
    "BlockOutcome",
    "BuildResult",
    "CompressPreview",
    "Compressed",
    "ContentBlock",
    "ContextMemory",
    "MemorySource",
    "apply_policy",
    "build_context",
    "data_skeleton",
    "default_policy",
    "default_priority",
    "plot_blocks",
    "plot_policy_sweep",
    "policy_sweep",
    "preview_compression",
    "python_skeleton",
    "reference",
    "render_prompt",
    "resolve_build_budget",
    "structural",
    "summarize",
    "treesitter_skeleton",
]
