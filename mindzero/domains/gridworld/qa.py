"""GridWorld question answering (paper §5.1, App. B.2): binary questions about the human's goal.

Per episode, three questions, labelled by exact inference on the observed action prefix:

- type 1 (before the pick): given the object the human will place next to, which will it pick?
- type 2 (before the pick): given the object it will pick, which will it place it next to?
- type 3 (while holding):   which object will it place the held object next to?

Option A is the most likely object (conditional probability ≥ 0.3), option B an object with
probability < 0.01; their order is shuffled. Each option implies a goal pair (``choice_goals``), so
a reward can score the observed actions under the goal an answer implies.

Splits: ``train``; test ``unseen_layout`` (training colors and shapes), ``unseen_color`` (a goal
object has a held-out color), ``unseen_shape`` (a goal object has a held-out shape).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.outputs import OutputFolder, RowStream, atomic_path
from mindzero.core.posterior import Posterior
from mindzero.core.reasoner import Reasoner
from mindzero.core.results import read_jsonl
from mindzero.domains.gridworld.reasoners import ExactGoalInference, role_joint
from mindzero.envs.gridworld.episodes import Episode, generate_episode, load_episodes, rollout_alone
from mindzero.envs.gridworld.human import HumanModel, human_first_object
from mindzero.envs.gridworld.layout import COLORS, SHAPES, parse_layout
from mindzero.envs.gridworld.render import anchored_view, path_window, relative_view, render_rgb, save_png, transcript
from mindzero.envs.gridworld.world import ACTION_NAMES, Action, Observation, WorldState, step

TRAIN_COLORS, HELDOUT_COLORS = COLORS[:8], COLORS[8:]
TRAIN_SHAPES, HELDOUT_SHAPES = SHAPES[:4], SHAPES[4:]
TEST_SPLITS = ("unseen_layout", "unseen_color", "unseen_shape")
LIKELY, UNLIKELY = 0.3, 0.01
ANSWER_INSTRUCTION = "Answer with (a) or (b) only."
#: The human whose episodes the questions are about and whose exact posterior labels them
#: (noise-free, as the paper's data).
DATA_HUMAN = HumanParams(epsilon=0.0)
#: How prompts show an episode: the paper's transcript, short prose for SmolLM2-size models, or
#: per-object numbers for small models trained from scratch — offsets (``relative``) or distances
#: anchored at the start and the last pick (``anchored``; see :func:`qa_prompt`).
PROMPT_STYLES = ("full", "compact", "relative", "anchored")
#: styles for models trained from scratch: per-object numbers, particles answered as letters.
LETTER_STYLES = ("relative", "anchored")


#: The fields of a question row (``train.jsonl``, ``test.jsonl``) that answering it reads.
QUESTION_FIELDS = {
    "id": str,
    "split": str,
    "question_type": int,
    "answer": str,
    "question": str,
    "layout": str,
    "goal": list,
    "actions": list,
    "given_object": int,
    "choice_goals": list,
}


@dataclass
class QADataConfig:
    """Defaults of ``mindzero gridworld qa-data`` (paper: 800 train / 100 test episodes)."""

    train_episodes: int = field(
        default=800, metadata={"help": "training episodes (3 questions each)", "ge": 1, "le": 100_000}
    )
    test_episodes: int = field(
        default=100, metadata={"help": "test episodes, split over the 3 test splits", "ge": 1, "le": 100_000}
    )
    seed: int = field(default=0, metadata={"help": "generator seed", "ge": 0})
    episodes_file: str | None = field(
        default=None,
        metadata={
            "help": "JSONL of episodes (layout_text + goal per line): train questions come from its first "
            "half, test questions (split unseen_layout) from its second half, instead of generated episodes"
        },
    )
    images: bool = field(default=True, metadata={"help": "render a PNG per question"})


def _palette(split: str) -> tuple[tuple[str, ...], tuple[str, ...], set[str]]:
    """(colors, shapes, held-out words a goal object must carry) for a split."""
    if split == "unseen_color":
        return COLORS, TRAIN_SHAPES, set(HELDOUT_COLORS)
    if split == "unseen_shape":
        return TRAIN_COLORS, SHAPES, set(HELDOUT_SHAPES)
    return TRAIN_COLORS, TRAIN_SHAPES, set()


def _describe(episode: Episode, state: WorldState, k: int) -> str:
    x, y = episode.layout.cell(state.objects[k])
    return f"{episode.layout.objects[k].label} at ({x},{y})"


def _choose_options(probs: np.ndarray, exclude: set[int], rng: np.random.Generator) -> tuple[int, int] | None:
    """(likely, unlikely) object indices, or None when the posterior offers no clean pair."""
    order = [k for k in np.argsort(-probs, kind="stable") if k not in exclude]
    unlikely = [k for k in order if probs[k] < UNLIKELY]
    if not order or probs[order[0]] < LIKELY or not unlikely:
        return None
    return int(order[0]), int(unlikely[int(rng.integers(len(unlikely)))])


def episode_questions(episode: Episode, rng: np.random.Generator, human: HumanParams = DATA_HUMAN) -> list[dict] | None:
    """The three questions of an episode, or None when it cannot pose all three."""
    states, actions = rollout_alone(episode, HumanModel(episode.layout, **asdict(human)), rng)
    if Action.PICK not in actions or Action.PUT not in actions:
        return None
    pick_t, put_t = actions.index(Action.PICK), actions.index(Action.PUT)
    inference = ExactGoalInference(human)
    posteriors = [inference.reset(episode)]
    for t, a in enumerate(actions):
        posteriors.append(inference.update(Observation(states[t], a)))
    first, other = human_first_object(states[0], episode.layout, episode.goal)
    questions = []
    for qtype, times in ((1, range(1, pick_t + 1)), (2, range(1, pick_t + 1)), (3, range(pick_t + 1, put_t + 1))):
        for t in rng.permutation(np.array(list(times), dtype=np.int64)):
            t = int(t)
            joint = role_joint(posteriors[t], states[t], episode.layout)
            given = other if qtype == 1 else first
            probs = joint[:, given] if qtype == 1 else joint[given, :]
            if probs.sum() <= 0:
                continue
            options = _choose_options(probs / probs.sum(), {given}, rng)
            if options is not None:
                questions.append(_make_question(episode, states, actions, t, qtype, given, options, rng))
                break
        else:
            return None
    return questions


def _make_question(
    episode: Episode,
    states: list[WorldState],
    actions: list[int],
    t: int,
    qtype: int,
    given: int,
    options: tuple[int, int],
    rng: np.random.Generator,
) -> dict:
    likely, unlikely = options
    order = [likely, unlikely] if rng.random() < 0.5 else [unlikely, likely]
    state = states[t]
    given_text = _describe(episode, state, given)
    if qtype == 1:
        question = (
            f"Given that the Human intends to place an object next to the {given_text}, "
            "which object is the Human more likely to pick up next?"
        )
        choice_goals = [sorted((k, given)) for k in order]
    elif qtype == 2:
        question = (
            f"Given that the Human intends to pick up the {given_text}, "
            "which object is the Human more likely to place it next to?"
        )
        choice_goals = [sorted((given, k)) for k in order]
    else:
        question = (
            f"The Human is holding the {episode.layout.objects[given].label}. "
            "Which object is the Human more likely to place it next to?"
        )
        choice_goals = [sorted((given, k)) for k in order]
    question += f" (a) {_describe(episode, state, order[0])}. (b) {_describe(episode, state, order[1])}."
    return {
        "question_type": qtype,
        "t": t,
        "question": question,
        "choices": [episode.layout.objects[k].label for k in order],
        "choice_goals": choice_goals,
        "answer": "a" if order[0] == likely else "b",
        "given_object": given,
        "layout": episode.layout.to_text(),
        "goal": list(episode.goal),
        "episode_id": episode.episode_id,
        "actions": [ACTION_NAMES[a] for a in actions[:t]],
    }


def split_questions(
    split: str, seed: int, k: int = 0, source: Callable[[str, int, int], Episode] | None = None
) -> Iterator[tuple[int, list[dict]]]:
    """``(next k, questions)`` for each episode k, k + 1, ... of a split (``source(split, seed, k)``,
    generated by default) that can pose all three questions (the others are skipped); ``next k``
    is where a resumed run continues."""
    while True:
        episode = (source or _one_episode)(split, seed, k)
        k += 1
        questions = episode_questions(episode, np.random.default_rng([seed, 99, k]))
        if questions is None:
            continue
        for q in questions:
            q["split"] = split
            q["id"] = f"{episode.episode_id}-q{q['question_type']}"
        yield k, questions


def build_split(split: str, n_episodes: int, seed: int, progress: bool = True) -> list[dict]:
    """Rows of one split: episodes that cannot pose all three questions are replaced by new ones."""
    episodes = islice(split_questions(split, seed), n_episodes)
    bar = tqdm(episodes, total=n_episodes, desc=f"qa-data[{split}]", disable=not progress, leave=False)
    return [row for _, questions in bar for row in questions]


def _one_episode(split: str, seed: int, k: int) -> Episode:
    """Episode ``k`` of a split; depends only on (seed, split, k)."""
    colors, shapes, heldout = _palette(split)
    rng = np.random.default_rng([seed, ("train", *TEST_SPLITS).index(split), k])
    for _ in range(1000):
        ep = generate_episode(rng, colors=colors, shapes=shapes, episode_id=f"{split}-{seed}-{k:04d}")
        words = {w for g in ep.goal for w in (ep.layout.objects[g].color, ep.layout.objects[g].shape)}
        if not heldout or words & heldout:
            return ep
    raise UserError(f"could not draw an episode for split {split}")


@dataclass(frozen=True)
class FileEpisodes:
    """A split's episodes from an episodes file: train reads its first half, test its second, so no
    episode poses both train and test questions."""

    path: str
    episodes: list[Episode]

    def __call__(self, split: str, seed: int, k: int) -> Episode:
        half = (len(self.episodes) + 1) // 2
        start, stop = (0, half) if split == "train" else (half, len(self.episodes))
        if start + k >= stop:
            part = "first" if split == "train" else "second"
            raise UserError(
                f"{self.path}: its {part} half ({stop - start} episodes) runs out before the {split} split "
                f"has its questions; use fewer --{'train' if split == 'train' else 'test'}-episodes or a longer file"
            )
        return self.episodes[start + k]


def replay(row: dict) -> tuple[Episode, list[WorldState], list[int]]:
    """Rebuild a question's episode and its observed states/actions (the helper stands still)."""
    layout = parse_layout(row["layout"])
    episode = Episode(layout, tuple(row["goal"]), row.get("episode_id", ""))  # type: ignore[arg-type]
    try:
        actions = [ACTION_NAMES.index(a) for a in row["actions"]]
    except ValueError as err:
        raise UserError(f"question {row.get('id')}: unknown action ({err})") from None
    states = [episode.initial_state()]
    for a in actions:
        states.append(step(layout, states[-1], a, Action.STAY))
    return episode, states, actions


def option_probs(row: Mapping[str, Any], reasoner: Reasoner) -> np.ndarray:
    """Probability behind each option after ``reasoner`` watched the question's actions."""
    episode, states, actions = replay(row)
    posterior = reasoner.reset(episode)
    for t, a in enumerate(actions):
        posterior = reasoner.update(Observation(states[t], a))
    return option_probs_from_posterior(row, posterior, states[-1], episode)


def option_probs_from_posterior(row: dict, posterior: Posterior, state: WorldState, episode: Episode) -> np.ndarray:
    """Probability mass behind each option, by the same role joint that made the labels."""
    joint = role_joint(posterior, state, episode.layout)
    given = row["given_object"]
    out = []
    for goal in row["choice_goals"]:
        k = goal[0] if goal[1] == given else goal[1]
        out.append(joint[k, given] if row["question_type"] == 1 else joint[given, k])
    return np.array(out)


def qa_source(config: QADataConfig) -> FileEpisodes | None:
    """The episodes of ``config.episodes_file`` (read and checked in full), or None to generate them."""
    return FileEpisodes(config.episodes_file, load_episodes(config.episodes_file)) if config.episodes_file else None


def write_qa_dataset(
    config: QADataConfig, folder: OutputFolder, progress: bool = True, source: FileEpisodes | None = None
) -> dict[str, int]:
    """Write ``train.jsonl`` and ``test.jsonl`` question by question, each with its prompt and
    (``images``) its PNG, resumably; then the parquet files and HF dataset when available. With a
    ``source`` (:func:`qa_source`), the episodes are its file's."""
    per_split = [config.test_episodes // 3 + (i < config.test_episodes % 3) for i in range(3)]
    files = {"train": [("train", config.train_episodes)], "test": list(zip(TEST_SPLITS, per_split))}
    if source is not None:
        files["test"] = [(TEST_SPLITS[0], config.test_episodes)]  # a file's objects are not held out
    images = folder.path / "images" if config.images else None
    for name, splits in files.items():
        with folder.stream(f"{name}.jsonl") as stream:
            if not stream.done:
                _write_splits(stream, splits, config.seed, images, progress, source)
    rows = {name: read_jsonl(folder.path / f"{name}.jsonl") for name in files}
    export_hf(folder.path, rows)
    return {name: len(split) for name, split in rows.items()}


def _write_splits(
    stream: RowStream,
    splits: list[tuple[str, int]],
    seed: int,
    images: Path | None,
    progress: bool,
    source: Callable[[str, int, int], Episode] | None = None,
) -> None:
    """The questions of ``(split, episodes)`` in order, continuing from the stream's state:
    (index of the split being written, its next episode k, its episodes written)."""
    first, start, written = stream.state or (0, 0, 0)
    for i, (split, n) in enumerate(splits[first:], start=first):
        start, written = (start, written) if i == first else (0, 0)
        bar = tqdm(total=n, initial=written, desc=f"qa-data[{split}]", disable=not progress, leave=False)
        for k, questions in islice(split_questions(split, seed, start, source), n - written):
            for row in questions:
                add_prompt(row, images)
                stream.write(row)
            written += 1
            bar.update(1)
            stream.checkpoint((i, k, written))
        bar.close()


def add_prompt(row: dict, image_dir: Path | None) -> None:
    """Attach the text prompt (paper Fig. 11 transcript + question) and, optionally, the image."""
    episode, states, actions = replay(row)
    text = transcript(episode.layout, states, actions, question=row["question"])
    row["prompt"] = f"{text}\n{ANSWER_INSTRUCTION}"
    if image_dir is not None:
        path = image_dir / f"{row['id']}.png"
        trail = [s.human for s in states]
        save_png(render_rgb(episode.layout, states[-1], trail=trail), path)
        row["image"] = str(path.relative_to(image_dir.parent))


def qa_prompt(row: dict, style: str = "full") -> str:
    """The question's prompt in one of :data:`PROMPT_STYLES`: ``full`` = the stored paper Fig. 11
    transcript prompt (rebuilt when absent); ``compact`` = the human's last distinct cells, what
    it holds and the question (about 130 tokens with a chat template, so a 135 M model trains on 2
    CPU cores); ``relative`` = question type, holding flag and the offsets of the given object and
    of each option from the human now and from where its recent path began (about 20 words: what
    a small model trained from scratch learns in minutes); ``anchored`` = the same with
    :func:`~mindzero.envs.gridworld.render.anchored_view`'s distances instead of offsets."""
    if style == "full":
        if "prompt" not in row:
            add_prompt(row, None)
        return row["prompt"]
    if style not in PROMPT_STYLES:
        raise UserError(f"unknown prompt style {style!r}; use one of {', '.join(PROMPT_STYLES)}")
    episode, states, actions = replay(row)
    now = states[-1]
    if style in LETTER_STYLES:
        given = row["given_object"]
        options = [g[0] if g[1] == given else g[1] for g in row["choice_goals"]]
        view = anchored_view if style == "anchored" else relative_view
        given_view, *option_views = view(episode.layout, states, [given, *options])
        hold = int(now.human_carry >= 0)
        return f"q{row['question_type']} h{hold} g {given_view} a {option_views[0]} b {option_views[1]}"
    path = path_window(episode.layout, states)
    holding = episode.layout.objects[now.human_carry].label if now.human_carry >= 0 else "nothing"
    walk = " ".join("({},{})".format(*c) for c in path)
    return f"Human's last moves: {walk}. Holding: {holding}.\n{row['question']}\n{ANSWER_INSTRUCTION}"


def export_hf(out: Path, splits: dict[str, list[dict]]) -> None:
    """Parquet files and a Hugging Face ``DatasetDict`` (needs the ``llm`` extra; skipped without),
    each written whole or not at all."""
    try:
        import datasets
    except ImportError:
        print("note: `datasets` is not installed (pip install 'mindzero[llm]'); wrote JSONL only")
        return
    dd = datasets.DatasetDict({name: datasets.Dataset.from_list(rows) for name, rows in splits.items()})
    for name, ds in dd.items():
        with atomic_path(out / f"{name}.parquet") as tmp:
            ds.to_parquet(str(tmp))
    with atomic_path(out / "hf") as tmp:
        dd.save_to_disk(str(tmp))
