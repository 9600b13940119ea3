"""The ``ctx-lab`` command line: the shared front door plus printing and exit codes.

Exit codes: 0 success, 1 runtime error, 2 usage error. Errors are printed without a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .commands import Invocation, invoke
from .display import terminal_safe
from .errors import CtxLabError, ParserExit, as_native_error, from_os_error, native_failure
from .files import write_output

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ctx-lab`` with ``argv`` (default ``sys.argv[1:]``) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["mcp"]:  # a long-running adapter, not a command returning a result
        from .mcp_server.cli import main as mcp_main

        return mcp_main(args[1:])
    if args[:1] == ["capture"]:  # likewise: the recording proxy
        from .capture.cli import main as capture_main

        return capture_main(args[1:])
    try:
        outcome = invoke(args, Invocation(stdin=sys.stdin, surface="cli"))
        for warning in outcome.warnings:
            print(f"ctx-lab: warning: {warning}", file=sys.stderr)
        if outcome.output:
            made = outcome.result.file_output(outcome.output, outcome.format)
            write_output(outcome.output, _shown(made, outcome.format))
        else:
            # a result that streams (an OTLP export) is written as made, never held whole
            result, fmt = outcome.result, outcome.format
            streamed = getattr(result, "render_chunks", None)
            for chunk in streamed(fmt) if streamed else [result.render(fmt)]:
                sys.stdout.write(terminal_safe(chunk, fmt))
            sys.stdout.flush()
        if outcome.result.exit_code:
            return outcome.result.exit_code
    except ParserExit as exc:
        return exc.status
    except CtxLabError as exc:
        print(f"{exc.prog or 'ctx-lab'}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("ctx-lab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a refusal no check caught first: typed, never a traceback
        error = from_os_error(exc)
        print(f"ctx-lab: error: {error}", file=sys.stderr)
        return error.exit_code
    except BaseException as exc:  # native code that panicked (not an Exception): typed too
        if not native_failure(exc):
            raise
        print(f"ctx-lab: error: {as_native_error(exc)}", file=sys.stderr)
        return 1
    return 0


def _shown(made: str | bytes, fmt: str) -> str | bytes:
    """Text with a session's control characters shown, never obeyed by a terminal (binary
    outputs, Parquet, as they are)."""
    return made if isinstance(made, bytes) else terminal_safe(made, fmt)


if __name__ == "__main__":
    sys.exit(main())
