"""The context builder: blocks, four compression policies, priority degradation to a budget."""

from .blocks import POLICIES, ContentBlock, default_policy, default_priority
from .build import (
    DEFAULT_BUILD_BUDGET,
    BlockOutcome,
    BuildResult,
    build_context,
    render_prompt,
    resolve_build_budget,
)
from .compress import Compressed, apply_policy, structural
from .data_skeleton import data_skeleton
from .memory import ContextMemory, MemorySource
from .plots import plot_blocks, plot_policy_sweep
from .preview import CompressPreview, preview_compression
from .skeletons import python_skeleton, treesitter_skeleton
from .summarize import reference, summarize
from .sweep import policy_sweep

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
