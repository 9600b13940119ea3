"""The MCP server's handlers, as one object over a :class:`~._server.CtxLabMCP` state, and
:func:`build_server`: the SDK's low-level server made from a table of them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import ctx_lab.mcp_server._server as limits  # MAX_SUBSCRIPTIONS, read when used

from .. import commands
from .._version import __version__
from ..display import error_payload
from ..errors import CtxLabError, as_native_error, native_failure
from ..files import hide_root
from ._server import CONTEXT_URI, PACKET_URI, TOOLS, CtxLabMCP

__all__ = ["Handlers", "build_server"]

INSTRUCTIONS = (
    "ctx-lab: read large files, web pages and PDFs in chunks (read: call again with "
    "next_cursor until truncated is false), page stored artifacts under a quota (page, "
    "budget), get the project's budgeted context packet (packet, or the "
    "ctx-lab://packet resource), build a prompt that fits (build), count tokens."
)

MAX_LISTENERS = 256  # subscriptions/listen streams open at once, all connections together


def listed_only(handler: Any, state: CtxLabMCP, invalid: int) -> Any:
    """``subscriptions/listen`` for listed resources only, at most ``MAX_SUBSCRIPTIONS`` a
    stream: a client cannot park megabytes of invented URIs in the server."""

    async def listen(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        wanted = list(getattr(params.notifications, "resource_subscriptions", None) or ())
        if wanted:
            if len(wanted) > limits.MAX_SUBSCRIPTIONS:
                raise MCPError(
                    code=invalid,
                    message=(
                        f"a listen stream may name at most {limits.MAX_SUBSCRIPTIONS} resources"
                    ),
                )
            import anyio

            listed = {PACKET_URI, *await anyio.to_thread.run_sync(state.context_files)}
            unknown = [uri for uri in wanted if str(uri) not in listed]
            if unknown:
                raise MCPError(
                    code=invalid, message=f"no resource {str(unknown[0])[:200]!r} to listen to"
                )
        return await handler(ctx, params)

    return listen


def connection_of(ctx: Any) -> Any:
    """The SDK connection a request arrived on (the session object is per request; its
    connection outlives it on stateful transports). The SDK 2.3 exposes it only privately."""
    return getattr(ctx.session, "_connection", None) or ctx.session


def hidden(text: str, structured: dict[str, Any] | None, root: Path) -> tuple[str, Any]:
    """What a client gets back, with the server's root written relative to itself."""
    if structured is not None:
        shown = json.dumps(structured, ensure_ascii=False)
        if (hid := hide_root(shown, root)) != shown:  # parsed again only when it changed
            structured = json.loads(hid)
    return hide_root(text, root), structured


def tool_payload(outcome: commands.Outcome) -> tuple[str, dict[str, Any]]:
    """The text an agent reads (a packet or build as Markdown unless it asked for JSON) and
    the structured content of a tool's result."""
    data = outcome.result.payload()  # what the tool's output schema describes
    if outcome.format == "json":
        return json.dumps(data, ensure_ascii=False), data
    return outcome.result.render(outcome.format), data


class Handlers:
    """Each MCP request the server answers, over one server state: tools (the commands),
    resources (the packet and the ``.context/`` files) and subscriptions to them."""

    def __init__(self, state: CtxLabMCP) -> None:
        import mcp_types as types
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        self.state, self.types = state, types
        self.bus = InMemorySubscriptionBus()
        self.listen = listed_only(
            ListenHandler(self.bus, max_subscriptions=MAX_LISTENERS), state, types.INVALID_PARAMS
        )

    async def notify(self, changed: set[str], listed: bool) -> None:
        """Tell listeners and subscribers which resources changed."""
        from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

        for uri in sorted(changed):
            await self.bus.publish(ResourceUpdated(uri=uri))
        if listed:
            await self.bus.publish(ResourcesListChanged())
        subscribers = self.state.subscribers
        for key, (session, uris) in list(subscribers.items()):
            try:
                for uri in sorted(changed & uris):
                    await session.send_resource_updated(uri)
            except Exception:  # a client that went away stops being told
                subscribers.pop(key, None)

    async def check(self) -> None:
        """Look at ``.context/`` again; notify when something changed."""
        import anyio

        changed, listed = await anyio.to_thread.run_sync(self.state.changes)
        if changed or listed:
            await self.notify(changed, listed)

    @asynccontextmanager
    async def lifespan(self, _: Any) -> AsyncIterator[dict[str, Any]]:
        """While the server runs: watch ``.context/`` every ``watch_interval`` seconds."""
        import anyio

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while True:
                    await anyio.sleep(self.state.watch_interval)
                    await self.check()

            if self.state.watch_interval > 0:
                group.start_soon(watch)
            yield {}
            group.cancel_scope.cancel()

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        """A tool's input schema, for the SDK to check arguments against."""
        found = TOOLS.get(name)
        return None if found is None else found.input_schema

    async def list_tools(self, ctx: Any, params: Any) -> Any:
        types = self.types
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=name,
                    description=tool.description,
                    input_schema=tool.input_schema,
                    output_schema=tool.output_schema,
                    annotations=types.ToolAnnotations(
                        read_only_hint=tool.annotations["readOnlyHint"],
                        destructive_hint=tool.annotations["destructiveHint"],
                        idempotent_hint=tool.annotations["idempotentHint"],
                        open_world_hint=tool.annotations["openWorldHint"],
                    ),
                )
                for name, tool in TOOLS.items()
            ]
        )

    async def call_tool(self, ctx: Any, params: Any) -> Any:
        """One command, on this connection's quota; an error is an error result, never a
        crashed server."""
        import anyio

        state = self.state
        # a connection's scratch state persists across its requests (SDK: Connection.state)
        connection = state.connection(getattr(connection_of(ctx), "state", {}))
        arguments = dict(params.arguments or {})
        structured: dict[str, Any] | None

        def work() -> tuple[Any, tuple[Any, Any]]:
            # the command and the look at .context/ after it, in one trip to a worker thread
            return state.call(params.name, arguments, connection), state.changes()

        seen: tuple[Any, Any] | None = None
        try:
            outcome, seen = await anyio.to_thread.run_sync(work)
            text, structured = tool_payload(outcome)
            is_error = False
        except BaseException as exc:  # the agent reads what went wrong (native panics too)
            if not isinstance(exc, Exception) and not native_failure(exc):
                raise
            error = exc if isinstance(exc, Exception) else as_native_error(exc)
            payload = error_payload(error, state.root)  # the same payload REST sends
            text, structured = f"{payload['type']}: {payload['message']}", {"error": payload}
            is_error = True
        else:
            text, structured = hidden(text, structured, state.root)
        if state.log is not None:
            log = state.log
            await anyio.to_thread.run_sync(
                lambda: log.record(connection.number, params.name, arguments, text, is_error)
            )
        if seen is None:
            await self.check()
        elif seen[0] or seen[1]:
            await self.notify(*seen)
        return self.types.CallToolResult(
            content=[self.types.TextContent(type="text", text=text)],
            structured_content=structured,
            is_error=is_error,
        )

    async def list_resources(self, ctx: Any, params: Any) -> Any:
        import anyio

        types = self.types
        files = await anyio.to_thread.run_sync(self.state.context_files)
        resources = [
            types.Resource(
                uri=PACKET_URI,
                name="packet",
                description="The project's context packet at the server's budget",
                mime_type="text/markdown",
            )
        ]
        resources += [
            types.Resource(uri=uri, name=uri.removeprefix(CONTEXT_URI), mime_type="text/markdown")
            for uri in files
        ]
        return types.ListResourcesResult(resources=resources)

    async def read_resource(self, ctx: Any, params: Any) -> Any:
        import anyio

        types, uri = self.types, str(params.uri)
        try:
            text, mime = await anyio.to_thread.run_sync(lambda: self.state.read_resource(uri))
        except CtxLabError as exc:
            from mcp.shared.exceptions import MCPError

            payload = error_payload(exc, self.state.root)
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"{payload['type']}: {payload['message']}"
            ) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)]
        )

    async def subscribe(self, ctx: Any, params: Any) -> Any:
        """``resources/subscribe`` (older clients): listed resources only, a bounded number."""
        import anyio
        from mcp.shared.exceptions import MCPError

        types, uri = self.types, str(params.uri)
        listed = uri == PACKET_URI or uri in await anyio.to_thread.run_sync(
            self.state.context_files
        )
        if not listed:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"no resource {uri[:200]!r} to subscribe to"
            )
        subscribers = self.state.subscribers
        key = id(connection_of(ctx))
        if key not in subscribers:
            subscribers[key] = (ctx.session, set())
        uris = subscribers[key][1]
        if uri not in uris and len(uris) >= limits.MAX_SUBSCRIPTIONS:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=(
                    f"a connection may subscribe to at most {limits.MAX_SUBSCRIPTIONS} resources"
                ),
            )
        uris.add(uri)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Any, params: Any) -> Any:
        found = self.state.subscribers.get(id(connection_of(ctx)))
        if found is not None:
            found[1].discard(str(params.uri))
        return self.types.EmptyResult()


# the SDK server's argument → the handler that answers it
SERVER_HANDLERS = {
    "lifespan": "lifespan",
    "get_tool_input_schema": "input_schema",
    "on_list_tools": "list_tools",
    "on_call_tool": "call_tool",
    "on_list_resources": "list_resources",
    "on_read_resource": "read_resource",
    "on_subscribe_resource": "subscribe",
    "on_unsubscribe_resource": "unsubscribe",
    "on_subscriptions_listen": "listen",
}


def build_server(state: CtxLabMCP) -> Any:
    """The MCP SDK's low-level server around ``state``: one handlers object, wired by
    :data:`SERVER_HANDLERS`."""
    from mcp.server import Server

    handlers = Handlers(state)
    wired = {argument: getattr(handlers, name) for argument, name in SERVER_HANDLERS.items()}
    return Server("ctx-lab", version=__version__, instructions=INSTRUCTIONS, **wired)
