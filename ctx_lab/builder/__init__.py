"""The context builder: blocks, four compression policies, priority degradation to a budget."""

from .blocks import POLICIES, ContentBlock, default_policy, default_priority
from .build import (
    DEFAULT_BUILD_BUDGET,
    BlockOutcome,
    BuildResult,
    ExactContentTooLarge,
    build_context,
    render_prompt,
    resolve_build_budget,
)
from .code_skeleton import SkeletonError, python_skeleton, treesitter_skeleton
from .compress import Compressed, apply_policy, structural
from .data_skeleton import data_skeleton
from .memory import ContextMemory, MemorySource
from .summarize import reference, summarize
from .sweep import policy_sweep

__all__ = [
    "DEFAULT_BUILD_BUDGET",
    "POLICIES",
    "BlockOutcome",
    "BuildResult",
    "Compressed",
    "ContentBlock",
    "ContextMemory",
    "ExactContentTooLarge",
    "MemorySource",
    "SkeletonError",
    "apply_policy",
    "build_context",
    "data_skeleton",
    "default_policy",
    "default_priority",
    "policy_sweep",
    "python_skeleton",
    "reference",
    "render_prompt",
    "resolve_build_budget",
    "structural",
    "summarize",
    "treesitter_skeleton",
]
