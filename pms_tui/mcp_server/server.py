"""The MCP server: the SDK's low-level ``Server`` with pms-tui's tools, notes as resources
and instructions written from the live index, over stdio (``serve_stdio``) or streamable
HTTP (``http.serve_http``).

Every failure of a call ends as one sentence: a tool's as an error result (``isError``), a
resource's as a JSON-RPC error. Arguments are checked here (``arguments.check``), not by
the SDK, whose messages quote the offending value back.
"""

from __future__ import annotations

import io
import json
import logging
from importlib.metadata import PackageNotFoundError, version

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.shared.exceptions import McpError

from ..core.errors import PmsError, describe
from ..core.safe_text import one_line
from . import arguments, instructions, resources, tools
from .uris import TEMPLATE

MAX_NAME_SHOWN = 80
# the SDK logs a warning for every call of a tool it has not listed; the caller gets our sentence
logging.getLogger("mcp.server.lowlevel.server").setLevel(logging.ERROR)


def _version() -> str:
    try:
        return version("pms-tui")
    except PackageNotFoundError:
        return "0"


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


def _json(data) -> str:
    """Compact JSON, one line: what the agent reads costs it context, and spaces are tokens."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def _as_result(data: dict) -> types.CallToolResult:
    """The data as structured content, and as text for clients that only read text. A note's
    text (get) comes as a block of its own, as written, after its metadata as JSON."""
    if isinstance(data.get("text"), str):
        blocks = [_json({k: v for k, v in data.items() if k != "text"}), data["text"]]
    else:
        blocks = [_json(data)]
    return types.CallToolResult(content=[types.TextContent(type="text", text=b) for b in blocks],
                                structuredContent=data)


class PmsServer(Server):
    """The low-level server, whose instructions are written when a client connects."""

    def __init__(self, runner):
        super().__init__("pms-tui", version=_version())
        self.runner = runner
        self.offered = tools.offered(runner.allow_writes)
        self._register()

    def create_initialization_options(self, *args, **kwargs):
        try:
            self.instructions = instructions.write(self.runner.kb, self.runner.allow_writes)
        except Exception as exc:  # noqa: BLE001 - a connection still starts; status will say
            self.instructions = f"pms-tui: the index could not be described ({describe(exc)})"
        return super().create_initialization_options(*args, **kwargs)

    async def call(self, name: str, args: object) -> types.CallToolResult:
        """One tool call, answered with data or one sentence."""
        spec = self.offered.get(name)
        if spec is None:
            shown = one_line(name)[:MAX_NAME_SHOWN]
            return _error(tools.off_reason(name) or
                          f"There is no tool {shown!r}; the tools are: {', '.join(self.offered)}.")
        try:
            checked = arguments.check(name, spec.schema, args)
            run = self.runner.write if spec.writes else self.runner.read
            data = await run(spec.run, self.runner, checked)
        except PmsError as exc:
            return _error(str(exc))
        except Exception as exc:  # noqa: BLE001 - the last line of defence: a sentence, not a crash
            return _error(describe(exc))
        return _as_result(data)

    def _register(self) -> None:
        runner = self.runner

        @self.list_tools()
        async def list_tools() -> list[types.Tool]:
            return [
                types.Tool(
                    name=spec.name, title=spec.title or None, description=spec.description, inputSchema=spec.schema,
                    annotations=types.ToolAnnotations(
                        title=spec.title or None, readOnlyHint=not spec.writes, destructiveHint=False,
                        idempotentHint=not spec.writes, openWorldHint=spec.name == "clip",
                    ),
                )
                for spec in self.offered.values()
            ]

        @self.call_tool(validate_input=False)
        async def call_tool(name: str, args: dict) -> types.CallToolResult:
            return await self.call(name, args)

        @self.list_resources()
        async def list_resources(request: types.ListResourcesRequest) -> types.ListResourcesResult:
            cursor = request.params.cursor if request.params else None
            listed, following = await runner.read(resources.page, runner.kb, cursor)
            return types.ListResourcesResult(
                resources=[types.Resource(uri=uri, name=name, mimeType="text/markdown") for uri, name in listed],
                nextCursor=following,
            )

        @self.list_resource_templates()
        async def list_templates() -> list[types.ResourceTemplate]:
            return [types.ResourceTemplate(uriTemplate=TEMPLATE, name="note", mimeType="text/markdown",
                                           description="An indexed note by collection and path inside it.")]

        @self.read_resource()
        async def read_resource(uri) -> list[ReadResourceContents]:
            try:
                text = await runner.read(resources.read, runner.kb, str(uri))
            except Exception as exc:  # noqa: BLE001 - one sentence as the JSON-RPC error
                raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=describe(exc))) from None
            return [ReadResourceContents(content=text, mime_type="text/markdown")]


async def serve_stdio(server: PmsServer, stdout: io.TextIOWrapper) -> None:
    """Serve one client over stdin and ``stdout`` (``command.protocol_stdout``)."""
    from mcp.server.stdio import stdio_server

    async with stdio_server(stdout=anyio.wrap_file(stdout)) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
