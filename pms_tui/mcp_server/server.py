"""The MCP server: the SDK's low-level ``Server`` with pms-tui's tools, notes as resources
and instructions written from the live index, over stdio (``serve_stdio``) or streamable
HTTP (``http.serve_http``).

Every failure of a call ends as one sentence: a tool's as an error result (``isError``), a
resource's as a JSON-RPC error. The SDK's low-level server checks no arguments: they are
checked here (``arguments.check``), with a sentence that names the argument and never
quotes its value back.

The SDK (2.x) serves every protocol revision from one server: a client that starts with
``initialize`` gets the revision it asks for among 2024-11-05 to 2025-11-25 (the newest of
them when it asks for another), one that starts with ``server/discover`` gets 2026-07-28.
"""

from __future__ import annotations

import io
from importlib.metadata import PackageNotFoundError, version

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from ..core.errors import PmsError, describe
from ..core.safe_text import one_line
from . import arguments, budget, instructions, limits, resources, tools
from ..core.results import NOTE_URI_TEMPLATE

MAX_NAME_SHOWN = 80
MAX_URI_SHOWN = 300
# "Resource not found" (MCP specification, server/resources, "Error Handling")
RESOURCE_NOT_FOUND = -32002


def _version() -> str:
    try:
        return version("pms-tui")
    except PackageNotFoundError:
        return "0"


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


class PmsServer(Server):
    """The low-level server, whose instructions are written when a client connects: at the
    ``initialize`` handshake (protocol revisions up to 2025-11-25) or at ``server/discover``
    (2026-07-28, where every request stands alone)."""

    def __init__(self, runner) -> None:
        self.runner = runner
        self.offered = tools.offered(runner.allow_writes)
        super().__init__(
            "pms-tui", version=_version(),
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_resources=self._list_resources, on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
            # the schema of the tool called, so the SDK need not list every tool to check a call's headers
            get_tool_input_schema=self._schema,
        )
        self.add_request_handler("server/discover", types.RequestParams, self._discover)

    def _describe(self) -> str:
        try:
            return instructions.write(self.runner.kb, self.runner.allow_writes)
        except Exception as exc:  # noqa: BLE001 - a connection still starts; status will say
            return f"pms-tui: the index could not be described ({describe(exc)})"

    def create_initialization_options(self, *args, **kwargs):
        self.instructions = self._describe()
        return super().create_initialization_options(*args, **kwargs)

    async def _discover(self, ctx: ServerRequestContext, params: types.RequestParams | None) -> types.DiscoverResult:
        self.instructions = await self.runner.read(self._describe)
        return types.DiscoverResult(
            supported_versions=list(MODERN_PROTOCOL_VERSIONS),
            capabilities=self.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=self.instructions,
        )

    def _schema(self, name: str) -> dict | None:
        spec = self.offered.get(name)
        return spec.schema if spec is not None else None

    async def call(self, name: str, args: object) -> types.CallToolResult:
        """One tool call, answered with data or one sentence."""
        spec = self.offered.get(name)
        if spec is None:
            shown = one_line(name)[:MAX_NAME_SHOWN]
            return _error(tools.off_reason(name) or
                          f"There is no tool {shown!r}; the tools are: {', '.join(self.offered)}.")
        try:
            checked = arguments.check(name, spec.schema, args, limits.of(name))
            run = self.runner.write if spec.writes else self.runner.read
            data = await run(spec.run, self.runner, checked)
        except PmsError as exc:
            return _error(str(exc))
        except Exception as exc:  # noqa: BLE001 - the last line of defence: a sentence, not a crash
            return _error(describe(exc))
        return budget.as_result(data if name in budget.OWN_BUDGET else budget.fit_lists(data))

    async def _call_tool(self, ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        info = getattr(ctx.session.client_params, "client_info", None)  # who writes, for the write journal
        self.runner.client = getattr(info, "name", None)
        return await self.call(params.name, params.arguments)

    async def _list_tools(self, ctx: ServerRequestContext,
                          params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(
                name=spec.name, title=spec.title or None, description=spec.description, input_schema=spec.schema,
                annotations=types.ToolAnnotations(
                    title=spec.title or None, read_only_hint=not spec.writes, destructive_hint=False,
                    idempotent_hint=not spec.writes, open_world_hint=spec.name == "clip",
                ),
            )
            for spec in self.offered.values()
        ])

    async def _list_resources(self, ctx: ServerRequestContext,
                              params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        cursor = params.cursor if params else None
        try:
            listed, following = await self.runner.read(resources.page, self.runner.kb, cursor)
        except PmsError as exc:  # a cursor this server never gave
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        return types.ListResourcesResult(
            resources=[types.Resource(uri=uri, name=name, mime_type="text/markdown") for uri, name in listed],
            next_cursor=following,
        )

    async def _list_templates(self, ctx: ServerRequestContext,
                              params: types.PaginatedRequestParams | None) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template=NOTE_URI_TEMPLATE, name="note", mime_type="text/markdown",
                                   description="An indexed note by collection and path inside it.")])

    async def _read_resource(self, ctx: ServerRequestContext,
                             params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            text = await self.runner.read(resources.read, self.runner.kb, uri)
        except PmsError as exc:  # no such note (or not one to read): the spec's "resource not found"
            raise MCPError(RESOURCE_NOT_FOUND, str(exc), {"uri": uri[:MAX_URI_SHOWN]}) from None
        except Exception as exc:  # noqa: BLE001 - one sentence as the JSON-RPC error
            raise MCPError(types.INTERNAL_ERROR, describe(exc)) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text,
                                                                             mime_type="text/markdown")])


async def serve_stdio(server: PmsServer, stdout: io.TextIOWrapper) -> None:
    """Serve one client over stdin and ``stdout`` (``command.protocol_stdout``)."""
    from mcp.server.stdio import stdio_server

    async with stdio_server(stdout=anyio.wrap_file(stdout)) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
