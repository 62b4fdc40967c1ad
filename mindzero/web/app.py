"""The Starlette application of ``mindzero serve``: a JSON API and the static page that uses it.

API (every error is JSON ``{"error": message}`` with a 4xx status, never a 500, for any input):

- ``GET  /api/info``: domain, reasoners, actions, which modes are on;
- ``POST /api/play`` ``{"reasoner", "episode"?, "seed"?}``: a new episode, its ``session`` id;
- ``GET  /api/play/{id}``, ``POST /api/play/{id}/act`` ``{"action"}``, ``DELETE /api/play/{id}``;
- ``POST /api/study`` ``{"participant"}``: join or continue a study; ``POST /api/study/{id}/next``;
- ``GET  /api/runs``, ``GET /api/runs/episodes?path=``, ``GET /api/replay?path=&row=``: the viewer.

A tick with a model-free helper (exact, oracle, ...) takes well under a millisecond and runs on the
event loop; a model-backed helper's tick (seconds) runs in a worker thread. Each session serialises
its own ticks, and sessions share no state.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.reasoner import Reasoner
from mindzero.domains import get_domain
from mindzero.web.games import VIEWS, BadMove, PlaySession, ReasonerFactory
from mindzero.web.gridworld import GridWorldView
from mindzero.web.household import HouseholdView
from mindzero.web.replay import list_episodes, list_runs, replay, run_path
from mindzero.web.sessions import SessionStore, StoreFull
from mindzero.web.study import SOLO, StudyLogs, StudySettings

STATIC = Path(__file__).parent / "static"
#: Domains the page can play (importing their views registered them in ``VIEWS``).
PLAYABLE = (GridWorldView.domain, HouseholdView.domain)
#: Largest request body accepted (bytes): every valid request is a few dozen.
MAX_BODY = 16 * 1024
#: Seeds a client may pick (numpy accepts any non-negative int; a bound keeps logs tidy).
MAX_SEED = 2**31 - 1

log = logging.getLogger("mindzero.web")

if TYPE_CHECKING:  # Starlette is imported by create_app alone: the other verbs run without the web stack
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response


def web_stack_error(err: ImportError) -> UserError:
    """The one-line error of ``mindzero serve`` when the web stack (Starlette, uvicorn) is missing."""
    return UserError(f"mindzero serve needs {err.name}: pip install starlette uvicorn")


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx) and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class ServeSettings:
    """What ``mindzero serve`` offers. ``make_reasoner(name, seed)``: the helper of a condition
    (None for ``solo``); ``llm(seed)``: the model reasoner for replays of ``llm`` runs, if loaded;
    ``max_steps``: tick limit of a played episode; ``session_ttl`` in seconds."""

    make_reasoner: ReasonerFactory
    reasoners: tuple[str, ...]
    episode_config: dict = field(default_factory=dict)
    domain: str = "gridworld"
    human: HumanParams = field(default_factory=HumanParams)
    max_steps: int = 100
    max_sessions: int = 1000
    session_ttl: float = 1800.0
    show_posterior: bool = True
    runs: Path | None = None
    study: StudySettings | None = None
    llm: Callable[[int], Reasoner] | None = None


@dataclass
class Slot:
    """A stored session: the episode being played and, in study mode, where it sits in the plan."""

    play: PlaySession
    participant: str | None = None
    order: int = 0
    step: int = 0
    task: int = 0
    logged: bool = False


#: Deepest nesting of brackets a request body may have (the API's objects are flat).
MAX_DEPTH = 8


async def body_json(request: Request, required: bool = True) -> dict:
    """The request's JSON object, checked before parsing: size (413), a JSON content type (415),
    not empty unless ``required`` is False, nesting depth (400); invalid JSON is a 400."""
    try:
        length = int(request.headers.get("content-length") or 0)
    except ValueError:
        raise ApiError(400, "content-length is not a number") from None
    if length > MAX_BODY:
        raise ApiError(413, f"request body over {MAX_BODY} bytes")
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ApiError(413, f"request body over {MAX_BODY} bytes")
    if not raw.strip():
        if required:
            raise ApiError(400, "request body is empty; send a JSON object (Content-Type: application/json)")
        return {}
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, f"request body must be application/json, got {kind[:60] or 'no content type'}")
    if depth(raw) > MAX_DEPTH:
        raise ApiError(400, f"request body nests deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ApiError(400, f"request body is not valid JSON ({str(err)[:120]})") from None
    if not isinstance(value, dict):
        raise ApiError(400, f"request body must be a JSON object, got {type(value).__name__}")
    return value


def depth(raw: bytes) -> int:
    """Deepest bracket nesting of a JSON text, outside strings (counted before parsing, so that a
    body of 5,000 "[" costs a scan, not a recursion)."""
    deepest = level = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # closing quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            level += 1
            deepest = max(deepest, level)
        elif byte in (0x5D, 0x7D):
            level -= 1
    return deepest


def int_field(body: dict, name: str, low: int, high: int, default: int) -> int:
    """``body[name]`` as an int in [low, high] (``default`` when absent)."""
    value = body.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ApiError(400, f"field {name!r} must be an integer in [{low}, {high}], got {json.dumps(value)}")
    return value


def str_field(body: dict, name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise ApiError(400, f"field {name!r} must be a string, got {json.dumps(value)}")
    return value


def create_app(settings: ServeSettings) -> Starlette:
    """The application; every piece of state (sessions, logs, episodes) belongs to it alone."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    view, domain = VIEWS[settings.domain], get_domain(settings.domain)
    runs = view.episodes(settings.episode_config)
    store = SessionStore(settings.max_sessions, settings.session_ttl)
    logs = StudyLogs(settings.study) if settings.study is not None else None
    study_posterior = settings.study is not None and settings.study.show_posterior

    def new_play(condition: str, episode: int, seed: int, show: bool) -> PlaySession:
        reasoner = None if condition == SOLO else settings.make_reasoner(condition, seed)
        return PlaySession(
            view, domain, runs[episode], settings.human, reasoner, seed, settings.max_steps, show_posterior=show
        )

    def answer(sid: str, slot: Slot) -> dict:
        out = {"session": sid, **slot.play.snapshot(), "study": None}
        if slot.participant is not None:
            plan = settings.study.plan(slot.order)
            out["study"] = {"participant": slot.participant, "step": slot.step, "steps": len(plan), "task": slot.task}
        return out

    def slot(sid: str) -> Slot:
        try:
            return store.get(sid)
        except KeyError:
            raise ApiError(404, "no such session (it may have expired); start a new one") from None

    async def info(request: Request) -> Response:
        return JSONResponse(
            {
                "domain": settings.domain,
                "reasoners": [SOLO, *settings.reasoners],
                "actions": list(view.actions),
                "episodes": len(runs),
                "max_steps": settings.max_steps,
                "show_posterior": settings.show_posterior,
                "study": settings.study is not None,
                "viewer": settings.runs is not None,
            }
        )

    async def play_new(request: Request) -> Response:
        body = await body_json(request)
        condition = body.get("reasoner", SOLO)
        if condition != SOLO and condition not in settings.reasoners:
            raise ApiError(400, f"reasoner must be one of {', '.join([SOLO, *settings.reasoners])}; got {condition!r}")
        seed = int_field(body, "seed", 0, MAX_SEED, secrets.randbelow(MAX_SEED))
        episode = int_field(body, "episode", 0, len(runs) - 1, seed % len(runs))
        play = await run_in_threadpool(new_play, condition, episode, seed, settings.show_posterior)
        new = Slot(play)
        return JSONResponse(answer(store.add(new), new))

    async def play_get(request: Request) -> Response:
        sid = request.path_params["sid"]
        return JSONResponse(answer(sid, slot(sid)))

    async def play_act(request: Request) -> Response:
        sid = request.path_params["sid"]
        body = await body_json(request)
        action = str_field(body, "action")
        current = slot(sid)
        if current.play.blocking:
            await run_in_threadpool(current.play.act, action)
        else:  # under a millisecond: a thread hand-off would cost more than the tick
            current.play.act(action)
        if current.participant is not None and current.play.done and not current.logged:
            current.logged = True
            record = current.play.record()
            await run_in_threadpool(
                logs.log_task, current.participant, current.order, current.step, current.task, record
            )
        return JSONResponse(answer(sid, current))

    async def play_delete(request: Request) -> Response:
        store.remove(request.path_params["sid"])
        return Response(status_code=204)

    def study_slot(participant: str, order: int, step: int) -> Slot | None:
        plan = settings.study.plan(order)
        if step >= len(plan):
            return None
        task, condition = plan[step]
        seed = order * 1000 + step  # the helper's random stream: fixed by participant number and step
        play = new_play(condition, task, seed, study_posterior)
        return Slot(play, participant, order, step, task)

    async def study_join(request: Request) -> Response:
        if logs is None:
            raise ApiError(404, "study mode is off; start `mindzero serve --study-logs DIR`")
        body = await body_json(request)
        participant = str_field(body, "participant")
        order, step = await run_in_threadpool(logs.join, participant)
        new = await run_in_threadpool(study_slot, participant, order, step)
        if new is None:
            return JSONResponse({"finished": True, "participant": participant})
        return JSONResponse(answer(store.add(new), new))

    async def study_next(request: Request) -> Response:
        if logs is None:
            raise ApiError(404, "study mode is off; start `mindzero serve --study-logs DIR`")
        sid = request.path_params["sid"]
        current = slot(sid)
        if current.participant is None:
            raise ApiError(409, "this session is not part of a study")
        if not current.play.done:
            raise ApiError(409, "finish the current task first")
        new = await run_in_threadpool(study_slot, current.participant, current.order, current.step + 1)
        if new is None:
            store.remove(sid)
            return JSONResponse({"finished": True, "participant": current.participant})
        store.replace(sid, new)
        return JSONResponse(answer(sid, new))

    def runs_root() -> Path:
        if settings.runs is None:
            raise ApiError(404, "the viewer is off; start `mindzero serve --runs DIR`")
        return settings.runs

    def samples_path(request: Request) -> Path:
        rel = request.query_params.get("path")
        if not rel:
            raise ApiError(400, "missing query parameter 'path'")
        try:
            return run_path(runs_root(), rel)
        except FileNotFoundError:
            raise ApiError(404, f"no run {rel!r} under the runs folder") from None

    async def runs_list(request: Request) -> Response:
        return JSONResponse({"runs": await run_in_threadpool(list_runs, runs_root())})

    async def runs_episodes(request: Request) -> Response:
        return JSONResponse({"episodes": await run_in_threadpool(list_episodes, samples_path(request))})

    async def replay_get(request: Request) -> Response:
        path = samples_path(request)
        text = request.query_params.get("row", "")
        if not text.isdigit():
            raise ApiError(400, f"query parameter 'row' must be a non-negative integer, got {text!r}")
        try:
            return JSONResponse(await run_in_threadpool(replay, path, int(text), settings.llm))
        except LookupError as err:
            raise ApiError(404, str(err)) from None

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    def error(status: int) -> Callable[[Request, Exception], Response]:
        def handle(request: Request, exc: Exception) -> Response:
            return JSONResponse({"error": str(exc)}, status_code=getattr(exc, "status", status))

        return handle

    def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    def server_error(request: Request, exc: Exception) -> Response:
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"error": f"internal error ({type(exc).__name__}); see the server log"}, status_code=500)

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/play", play_new, methods=["POST"]),
        Route("/api/play/{sid}", play_get),
        Route("/api/play/{sid}", play_delete, methods=["DELETE"]),
        Route("/api/play/{sid}/act", play_act, methods=["POST"]),
        Route("/api/study", study_join, methods=["POST"]),
        Route("/api/study/{sid}/next", study_next, methods=["POST"]),
        Route("/api/runs", runs_list),
        Route("/api/runs/episodes", runs_episodes),
        Route("/api/replay", replay_get),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers: dict[Any, Callable] = {
        ApiError: error(400),
        UserError: error(400),
        BadMove: error(409),
        StoreFull: error(503),
        HTTPException: http_error,
        Exception: server_error,
    }
    return Starlette(routes=routes, exception_handlers=handlers)
