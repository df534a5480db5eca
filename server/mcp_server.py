"""MCP at `/mcp` (streamable HTTP, the official `mcp` SDK): the env's sessions as MCP tools.

Every tool goes through the same `EnvService` as the REST routes, so a session started over
MCP is an ordinary leased session (same capacity, TTL, store, crash recovery) and can be
driven over REST too, and the other way round. State lives in coevo's session ids, not in the
MCP connection, so the transport runs stateless: any MCP session, or none, may name any coevo
session.

Tools: `list_tasks`, `start_episode`, `act`, `fork_episode`, `expert_hint`, `close_episode`,
and for tool-calling envs `list_episode_tools` / `call_episode_tools`: an episode's own
functions (a function-calling benchmark's functions, a tool-use env's APIs or tools) with their JSON
Schemas, called by name. They are per episode (episodes differ in their functions, multi-turn
ones may gain some mid-episode), while an MCP tool list is per server, so they are listed and called through
these two tools rather than added to the server's tool list. A call is one ordinary step: the
env turns it into its own action text (`Env.tool_calls_action`), which the result reports.

Results are structured content (the wire models' JSON, schemas in each tool's
`outputSchema`) with the same JSON as text. Errors are tool results with `isError` and the
REST error body plus the HTTP status the same request would have had over REST.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from fastapi import FastAPI
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from coevo import __version__
from coevo.envs.base import ToolCall
from coevo.server.errors import InvalidRequest, classify
from coevo.server.service import EnvService
from coevo.wire import (
    MAX_INT64,
    MAX_TASKS_PAGE,
    ClosedResponse,
    CreateSessionRequest,
    ErrorDetail,
    ExpertActionResponse,
    SessionResponse,
    StepResponse,
    TaskListResponse,
)

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
#: Most episode-tool calls one `call_episode_tools` step may carry (each becomes action text,
#: which the action cap bounds again).
MAX_TOOL_CALLS = 64
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


# ---------------------------------------------------------------------------- arguments
class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListTasksArgs(_Args):
    split: str | None = Field(None, description="Split; the env's default if omitted")
    offset: int = Field(0, ge=0, le=MAX_INT64, description="Index of the first task to list")
    limit: int = Field(100, ge=1, le=MAX_TASKS_PAGE, description="Most tasks to list")


class SessionArgs(_Args):
    session_id: str = Field(description="A session id from start_episode or fork_episode")


class ActArgs(SessionArgs):
    action: str = Field(description="The action text")


class ToolCallArgs(_Args):
    name: str = Field(description="An episode tool's name, from list_episode_tools")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Its arguments")


class CallToolsArgs(SessionArgs):
    calls: list[ToolCallArgs] = Field(
        min_length=1, max_length=MAX_TOOL_CALLS, description="Calls made together in one step"
    )


# ---------------------------------------------------------------------------- results
class EpisodeToolSchema(BaseModel):
    name: str
    description: str
    input_schema: dict[str, Any] = Field(description="JSON Schema of the arguments")


class EpisodeStarted(SessionResponse):
    tools: list[EpisodeToolSchema] = Field(
        default_factory=list, description="The episode's own functions (tool-calling envs)"
    )


class EpisodeTools(BaseModel):
    session_id: str
    tools: list[EpisodeToolSchema]


class ToolCallsStep(StepResponse):
    action: str = Field(description="The action text the calls became (the step's action)")


class ToolError(BaseModel):
    error: ErrorDetail
    status: int = Field(description="The HTTP status the same request would have had over REST")


# ---------------------------------------------------------------------------- tools
@dataclass(frozen=True)
class _Tool:
    definition: types.Tool
    arguments: type[BaseModel]
    run: Callable[[Any], Awaitable[BaseModel]]


class McpTools:
    """The MCP tool set of one env server, bound to its service."""

    def __init__(self, service: EnvService) -> None:
        self.service = service
        cls = service.runtime.env_cls
        self.env_name = service.env_name
        thought, example = cls.action_example
        action_help = f"The action, in this env's format: {cls.action_format}."
        if example:
            action_help += f" Example: {example}"
        splits = ", ".join(f"{name} ({count})" for name, count in service.runtime.catalog.splits().items())
        start_help = (
            f"Start an episode of {self.env_name} in a new leased session; returns its session_id, "
            f"first observation, info and (tool-calling envs) the episode's functions. Splits: "
            f"{splits}; default {cls.default_split}. A seed alone picks the task: the same "
            f"arguments always start the same episode. At most {cls.max_steps} steps an episode."
        )
        self._tools: dict[str, _Tool] = {}
        self._add(
            "list_tasks",
            "One page of a split's task ids with each task's metadata.",
            ListTasksArgs,
            self._list_tasks,
            TaskListResponse,
        )
        self._add("start_episode", start_help, CreateSessionRequest, self._start, EpisodeStarted)
        self._add(
            "act",
            f"Take one step of the episode. {action_help}",
            ActArgs,
            self._act,
            StepResponse,
            action_help=action_help,
        )
        self._add(
            "fork_episode",
            "A new session in the identical state (same task, seed, history).",
            SessionArgs,
            self._fork,
            SessionResponse,
        )
        self._add(
            "expert_hint",
            "The env's expert's next action from the current state (null if none).",
            SessionArgs,
            self._expert,
            ExpertActionResponse,
        )
        self._add(
            "close_episode",
            "Release the session now (its episode stays in the store).",
            SessionArgs,
            self._close,
            ClosedResponse,
        )
        self._add(
            "list_episode_tools",
            "The running episode's own functions with JSON Schemas (tool-calling envs; empty "
            "for text envs). They can change during an episode (multi-turn function calling adds some).",
            SessionArgs,
            self._episode_tools,
            EpisodeTools,
        )
        self._add(
            "call_episode_tools",
            "Call episode functions by name: one step of the episode, in the env's own action "
            "format (reported as `action`). Several calls go into one step where the env takes "
            "them together (parallel function calls). Text replies go through `act`.",
            CallToolsArgs,
            self._call_tools,
            ToolCallsStep,
        )

    def _add(
        self,
        name: str,
        description: str,
        arguments: type[BaseModel],
        run: Callable[[Any], Awaitable[BaseModel]],
        result: type[BaseModel],
        action_help: str | None = None,
    ) -> None:
        schema = arguments.model_json_schema()
        schema.pop("title", None)
        if action_help is not None:
            schema["properties"]["action"]["description"] = action_help
        output = result.model_json_schema()
        definition = types.Tool(name=name, description=description, input_schema=schema, output_schema=output)
        self._tools[name] = _Tool(definition, arguments, run)

    @property
    def definitions(self) -> list[types.Tool]:
        return [t.definition for t in self._tools.values()]

    # ------------------------------------------------------------------ dispatch
    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        tool = self._tools.get(name)
        try:
            if tool is None:
                raise InvalidRequest(f"unknown tool {name!r}; tools: {', '.join(self._tools)}")
            try:
                args = tool.arguments.model_validate(arguments or {})
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
                raise InvalidRequest(f"{where}: {first.get('msg', 'invalid')}") from None
            result = await tool.run(args)
        except Exception as exc:
            status, code, message, _ = classify(exc)
            self.service.metrics.error(status, code)
            error = ToolError(error=ErrorDetail(code=code, message=message), status=status)
            return self._result(error, is_error=True)
        return self._result(result)

    @staticmethod
    def _result(model: BaseModel, *, is_error: bool = False) -> types.CallToolResult:
        data = model.model_dump(mode="json")
        text = json.dumps(data, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=data, is_error=is_error
        )

    # ------------------------------------------------------------------ the tools
    async def _list_tasks(self, args: ListTasksArgs) -> BaseModel:
        page = await self.service.tasks(args.split, args.offset, args.limit)  # the REST route's cached JSON
        return TaskListResponse.model_validate_json(page)

    async def _start(self, args: CreateSessionRequest) -> BaseModel:
        lease, resp = await self.service.create(args.task_id, args.split, args.seed)
        tools = self._tool_schemas(lease.env.episode_tools())
        return EpisodeStarted(session_id=resp.session_id, observation=resp.observation, info=resp.info, tools=tools)

    async def _act(self, args: ActArgs) -> BaseModel:
        return await self.service.step(args.session_id, args.action)

    async def _fork(self, args: SessionArgs) -> BaseModel:
        return await self.service.fork(args.session_id)

    async def _expert(self, args: SessionArgs) -> BaseModel:
        action = await self.service.expert(args.session_id)
        return ExpertActionResponse(session_id=args.session_id, action=action)

    async def _close(self, args: SessionArgs) -> BaseModel:
        await self.service.close(args.session_id)
        return ClosedResponse(session_id=args.session_id)

    async def _episode_tools(self, args: SessionArgs) -> BaseModel:
        lease = await self.service.lease(args.session_id)
        async with lease.lock:
            if lease.closed:
                raise self.service.leases.not_found(args.session_id)
            tools = lease.env.episode_tools()
        return EpisodeTools(session_id=args.session_id, tools=self._tool_schemas(tools))

    async def _call_tools(self, args: CallToolsArgs) -> BaseModel:
        lease = await self.service.lease(args.session_id)
        calls = [ToolCall(c.name, c.arguments) for c in args.calls]
        async with lease.lock:
            if lease.closed:
                raise self.service.leases.not_found(args.session_id)
            action = lease.env.tool_calls_action(calls)
        step = await self.service.step(args.session_id, action)
        return ToolCallsStep(**step.model_dump(), action=action)

    @staticmethod
    def _tool_schemas(tools: list[Any]) -> list[EpisodeToolSchema]:
        return [EpisodeToolSchema(name=t.name, description=t.description, input_schema=t.parameters) for t in tools]


def _security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection on a loopback bind, as the SDK's own app factory sets it."""
    if host not in _LOOPBACK:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


class _IdleLimitedStreams:
    """GET event streams end after `idle_s`: stateless, the server never sends on them, so a
    client could otherwise hold one (and its task) forever. The stream is ended cleanly (its
    last chunk sent), so the connection stays usable."""

    def __init__(self, app: Any, idle_s: float) -> None:
        self.app = app
        self.idle_s = idle_s

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("method") != "GET" or self.idle_s <= 0:
            await self.app(scope, receive, send)
            return
        started = ended = False

        async def tracking_send(message: Any) -> None:
            nonlocal started, ended
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                ended = True
            await send(message)

        with anyio.move_on_after(self.idle_s):
            await self.app(scope, receive, tracking_send)
        if started and not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


def install_mcp(app: FastAPI, service: EnvService) -> Callable[[], Any]:
    """Serve MCP at /mcp on `app`; returns the async context manager the app's lifespan enters."""
    tools = McpTools(service)

    async def list_tools(
        _ctx: ServerRequestContext[Any],
        _params: types.PaginatedRequestParams | None,
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools.definitions)

    async def call_tool(
        _ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
    ) -> types.CallToolResult:
        return await tools.call(params.name, params.arguments)

    cls = service.runtime.env_cls
    server: Server[Any] = Server(
        f"coevo-{service.env_name}",
        version=__version__,
        instructions=(
            f"Episodes of the {service.env_name} environment. Start one with start_episode, "
            f"then act until done. Action format: {cls.action_format}"
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        json_response=True,
        security_settings=_security(service.config.host),
        max_request_body_size=service.config.max_body_bytes,
    )
    # A plain route whose endpoint is an ASGI app (as the SDK mounts it): every method, no slash redirect.
    endpoint = _IdleLimitedStreams(StreamableHTTPASGIApp(manager), service.config.mcp_stream_idle_s)
    app.router.add_route(MCP_PATH, endpoint)  # type: ignore[arg-type]

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        """The session manager runs in a task of its own: entered around the app's lifespan, its
        task group would wrap whatever the lifespan's body raises in an ExceptionGroup (an app
        embedded in a test or a trainer would see ExceptionGroup instead of its ValueError)."""
        started, stop = asyncio.Event(), asyncio.Event()

        async def serve() -> None:
            async with manager.run():
                started.set()
                await stop.wait()

        task = asyncio.create_task(serve())
        waiter = asyncio.create_task(started.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():  # the manager failed to start: raise its error
            waiter.cancel()
            task.result()
        try:
            yield
        finally:
            stop.set()
            await task

    return running
