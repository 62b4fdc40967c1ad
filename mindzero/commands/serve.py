"""``mindzero serve``: the browser app — play GridWorld or Household with a live helper, run a study,
replay runs."""

from __future__ import annotations

import argparse
import threading
from dataclasses import dataclass, field
from pathlib import Path

from mindzero.commands.llm_options import AssistLLMOptions
from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.reasoner import Reasoner
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig
from mindzero.domains.gridworld.reasoners import BASELINE_REASONERS as GRIDWORLD_REASONERS
from mindzero.domains.household.smc import REASONERS as HOUSEHOLD_REASONERS
from mindzero.envs.household.episodes import EPISODE_TICKS, SPLITS
from mindzero.inference.llm import LLMReasoner
from mindzero.web.app import PLAYABLE, ServeSettings, create_app, web_stack_error
from mindzero.web.games import SerialReasoner
from mindzero.web.study import SOLO, StudySettings

#: Every helper of either domain (serve_settings checks the --domain's).
ALL_REASONERS = tuple(dict.fromkeys((*GRIDWORLD_REASONERS, "llm", *HOUSEHOLD_REASONERS)))
#: Helpers offered when --reasoner is not given, per domain.
DEFAULT_REASONERS = {"gridworld": ["exact", "oracle", "none"], "household": ["smc", "oracle", "none"]}
#: Tick limit of a played episode when --max-steps is not given, per domain.
DEFAULT_MAX_STEPS = {"gridworld": 100, "household": EPISODE_TICKS}


@dataclass
class ServeConfig(AssistLLMOptions, EpisodeConfig):
    """``mindzero serve``: where to listen, which domain and helpers to offer, study and viewer folders."""

    host: str = field(
        default="127.0.0.1", metadata={"help": "address to listen on (0.0.0.0 exposes it to the network)"}
    )
    port: int = field(default=8000, metadata={"help": "TCP port (0 = any free port)", "ge": 0, "le": 65535})
    domain: str = field(default="gridworld", metadata={"help": "what is played", "choices": PLAYABLE})
    split: str = field(
        default="test",
        metadata={"help": "household: the bundled apartments played (--episodes each)", "choices": tuple(SPLITS)},
    )
    reasoner: list[str] | None = field(
        default=None,
        metadata={
            "help": "helpers offered in play (llm needs --model SPEC); None = exact,oracle,none in gridworld, "
            "smc,oracle,none in household",
            "choices": ALL_REASONERS,
        },
    )
    human: HumanParams = field(
        default_factory=HumanParams,
        metadata={"help": "the human model of inference; in household a value left at its default takes Household's"},
    )
    max_steps: int | None = field(
        default=None,
        metadata={
            "help": "tick limit of a played episode; None = 100 (gridworld), 250 (household)",
            "ge": 1,
            "le": 10_000,
        },
    )
    max_sessions: int = field(
        default=1000, metadata={"help": "sessions held at once (memory bound)", "ge": 1, "le": 100_000}
    )
    session_ttl: float = field(default=1800.0, metadata={"help": "seconds before an unused session expires", "gt": 0})
    hide_posterior: bool = field(default=False, metadata={"help": "never send the helper's goal distribution"})
    runs: str | None = field(default="runs", metadata={"help": "folder of assistance runs for the episode viewer"})
    study_logs: str | None = field(default=None, metadata={"help": "turn on study mode, logging to this folder"})
    study_tasks: int = field(
        default=4, metadata={"help": "tasks (episodes 0..N-1) per participant", "ge": 1, "le": 1_000}
    )
    study_conditions: list[str] = field(
        default_factory=lambda: [SOLO, "exact"],
        metadata={"help": "conditions each task is played under", "choices": (SOLO, *ALL_REASONERS)},
    )
    study_show_posterior: bool = field(default=False, metadata={"help": "show the goal panel in study mode"})


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser(
        "serve",
        help="browser app: play with a live helper, run a study, replay assistance runs",
        description="Start a local web app (http://HOST:PORT/): play GridWorld with the keyboard (or "
        "Household, --domain household, with contextual buttons) while a helper acts on the chosen reasoner's "
        "goal distribution; --study-logs DIR turns on study mode "
        "(counterbalanced solo/helped tasks, JSONL logs for `mindzero report study`); the viewer replays "
        "any assistance run's samples.jsonl under --runs.",
    )
    add_dataclass_flags(parser, ServeConfig)
    parser.set_defaults(func=cmd_serve)


def serve_settings(config: ServeConfig) -> ServeSettings:
    """The app's settings from the flags; loads the model when ``llm`` is offered. Checks every
    option before the server starts."""
    domain = get_domain(config.domain)
    reasoners = config.reasoner or DEFAULT_REASONERS[config.domain]
    human = domain.human(config.human)
    episode_config = {k: getattr(config, k) for k in EpisodeConfig.__dataclass_fields__}
    if config.domain == "household":
        if config.layouts is not None or config.family is not None:
            raise UserError("--layouts and --family choose GridWorld layouts; household plays the --split apartments")
        episode_config = {"split": config.split, "episodes": config.episodes, "episode_seed": config.episode_seed}
    apartments = len(SPLITS[config.split]) if config.domain == "household" else 1
    conditions = config.study_conditions
    if config.study_logs is not None:
        if len(set(conditions)) != len(conditions) or SOLO not in conditions or len(conditions) < 2:
            raise UserError("--study-conditions needs solo and at least one helper, each once (e.g. solo,exact)")
        if config.study_tasks > config.episodes * apartments:
            per = f" x {apartments} apartments" if config.domain == "household" else ""
            raise UserError(f"--study-tasks {config.study_tasks} exceeds --episodes {config.episodes}{per}")
    helpers = set(reasoners) | (set(conditions) - {SOLO} if config.study_logs is not None else set())
    unknown = sorted(helpers - {*domain.reasoners, "llm"})
    if unknown:
        offered = ", ".join((*domain.reasoners, "llm"))
        raise UserError(f"{config.domain} has no reasoner {', '.join(unknown)}; choose from {offered}")
    for name in sorted(helpers & {"exact", "smc"}):
        if human.epsilon == 0:
            raise UserError(f"a person may take any move: {name} inference needs --human-epsilon > 0")
    llm = None
    if "llm" in helpers:
        llm_settings = config.assist_settings(domain.prompt_styles)
        backend = config.backend()
        lock = threading.Lock()

        def llm(seed: int) -> Reasoner:
            return SerialReasoner(LLMReasoner(domain, backend, llm_settings, seed), lock)

    def make_reasoner(name: str, seed: int) -> Reasoner:
        if name == "llm":
            return llm(seed)
        return domain.reasoner(name, seed, human)

    study = None
    if config.study_logs is not None:
        study = StudySettings(Path(config.study_logs), config.study_tasks, conditions, config.study_show_posterior)
    return ServeSettings(
        make_reasoner=make_reasoner,
        reasoners=tuple(reasoners),
        episode_config=episode_config,
        domain=config.domain,
        human=human,
        max_steps=config.max_steps or DEFAULT_MAX_STEPS[config.domain],
        max_sessions=config.max_sessions,
        session_ttl=config.session_ttl,
        show_posterior=not config.hide_posterior,
        runs=Path(config.runs) if config.runs is not None else None,
        study=study,
        llm=llm,
    )


def cmd_serve(args: argparse.Namespace) -> int:
    try:  # before any option is read or model loaded; no other verb imports the web stack
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as err:
        raise web_stack_error(err) from None

    config = config_from_args(ServeConfig, args)
    if "runs" in vars(args) and config.runs is not None and not Path(config.runs).is_dir():
        raise UserError(f"--runs {config.runs[:200]}: no such folder (the episode viewer reads assistance runs there)")
    app = create_app(serve_settings(config))
    # A player may think for a while between keys: keep their connection (uvicorn's default is 5 s).
    uvicorn_config = uvicorn.Config(app, host=config.host, port=config.port, log_level="warning", timeout_keep_alive=75)
    server = uvicorn.Server(uvicorn_config)
    print(f"mindzero serve: http://{config.host}:{config.port}/  (Ctrl-C stops)", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn hands Ctrl-C on after its clean shutdown
        pass
    print("mindzero serve: stopped")
    return 0
