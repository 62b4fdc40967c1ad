"""End to end in a real headless Chromium (Playwright): whole GridWorld episodes played with the
keyboard, solo and helped, a blind study task, the viewer replaying a recorded run, and a Household
episode played with the buttons; screenshots are checked for the agents and objects and for the
posterior panel's bars.

Needs a Chromium executable (Debian: ``apt-get install chromium``; or set $MINDZERO_CHROMIUM);
without one these tests skip, saying so. ``MINDZERO_SCREENSHOTS=docs`` also saves the
README's pictures there (``serve-play.png``, ``serve-viewer.png``, ``serve-household.png``).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from conftest import LiveServer, settings
from PIL import Image

from mindzero.domains import get_domain
from mindzero.envs.gridworld.render import HELPER_RGB, HUMAN_RGB
from mindzero.envs.household.episodes import world_of
from mindzero.envs.household.human import HOUSEHOLD_HUMAN
from mindzero.envs.household.render import AGENT_RGB
from mindzero.web.app import create_app
from mindzero.web.games import PlaySession
from mindzero.web.household import HouseholdView

#: The Chromium executable: $MINDZERO_CHROMIUM, else Debian's `chromium`.
CHROMIUM = os.environ.get("MINDZERO_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium executable: apt-get install chromium (or set MINDZERO_CHROMIUM)"
)

#: Fill colour of the posterior bars (style.css ``.bar .fill``).
BAR_RGB = (59, 111, 209)
MOVES = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
KEYS = {"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight", "pick": "p", "put": "d"}
KEYS["stay"] = "s"


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


def open_page(browser):
    """A new page, and after the test: no script error on it."""
    page = browser.new_page(viewport={"width": 1100, "height": 760})
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    page.close()
    assert not errors, errors


@pytest.fixture
def page(browser, live):
    yield from open_page(browser)


@pytest.fixture(scope="module")
def live_household():
    """A live server playing Household (test apartments, 2 episodes each) with oracle and smc helpers."""
    with LiveServer(create_app(settings(domain="household", episodes=2, reasoner=["oracle", "smc"]))) as server:
        yield server


@pytest.fixture
def household_page(browser, live_household):
    yield from open_page(browser)


def step_towards(state: dict, me: tuple[int, int], targets: set[tuple[int, int]]) -> str:
    """First move of a shortest path from ``me`` to the nearest of ``targets`` (obstacles block)."""
    blocked = {tuple(c) for c in state["obstacles"]}
    first = {me: None}
    queue = deque([me])
    while queue:
        cell = queue.popleft()
        if cell in targets:
            return first[cell]
        for name, (dx, dy) in MOVES.items():
            nxt = (cell[0] + dx, cell[1] + dy)
            if 0 <= nxt[0] < state["width"] and 0 <= nxt[1] < state["height"] and nxt not in blocked:
                if nxt not in first:
                    first[nxt] = first[cell] or name
                    queue.append(nxt)
    raise AssertionError(f"no path from {me} to {targets}")


def next_action(snap: dict) -> str:
    """A player who knows the goal: fetch the nearer goal object, carry it next to the other one."""
    state, goal = snap["state"], snap["goal"]["hypothesis"]
    objects, me, held = state["objects"], tuple(state["human"]["cell"]), state["human"]["holding"]
    ground = {tuple(o["cell"]) for o in objects if o["held_by"] is None}
    if held in goal:
        other = objects[goal[0] if goal[1] == held else goal[1]]
        if other["held_by"] is not None:
            return "stay"  # the helper is bringing it
        x, y = other["cell"]
        targets = {(x + dx, y + dy) for dx, dy in MOVES.values()} - ground - {tuple(c) for c in state["obstacles"]}
        targets = {c for c in targets if 0 <= c[0] < state["width"] and 0 <= c[1] < state["height"]}
        return "put" if me in targets else step_towards(state, me, targets)
    free = [k for k in goal if objects[k]["held_by"] is None]
    if any(tuple(objects[k]["cell"]) == me for k in free):
        return "pick"
    return step_towards(state, me, {tuple(objects[k]["cell"]) for k in free})


def play_episode(page, pause_at: int | None = None, check=None) -> list[dict]:
    """Play the page's episode to its end with the keyboard; the snapshots after each key.
    ``check(snapshot)`` runs once the episode reaches tick ``pause_at``."""
    snaps = [page.evaluate("window.mz.snapshot")]
    while not snaps[-1]["done"]:
        if snaps[-1]["t"] == pause_at:
            check(snaps[-1])
        t = snaps[-1]["t"]
        page.keyboard.press(KEYS[next_action(snaps[-1])])
        page.wait_for_function(f"window.mz.snapshot.t === {t + 1} && !window.mz.busy")
        snaps.append(page.evaluate("window.mz.snapshot"))
    assert page.locator("#error").inner_text() == ""
    return snaps


#: Screenshots that the README shows, saved under $MINDZERO_SCREENSHOTS when it is set.
DOC_SHOTS = ("play", "viewer", "household")


def screenshot(page, name: str) -> np.ndarray:
    png = page.screenshot()
    if os.environ.get("MINDZERO_SCREENSHOTS") and name in DOC_SHOTS:
        Path(os.environ["MINDZERO_SCREENSHOTS"], f"serve-{name}.png").write_bytes(png)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def pixels(image: np.ndarray, page, selector: str, rgb: tuple[int, int, int], tol: int = 6) -> int:
    """Pixels of colour ``rgb`` (± ``tol`` per channel) inside the element ``selector``."""
    box = page.locator(selector).bounding_box()
    x0, y0 = int(box["x"]), int(box["y"])
    crop = image[y0 : y0 + int(box["height"]), x0 : x0 + int(box["width"])].astype(int)
    return int((np.abs(crop - np.array(rgb)).max(axis=2) <= tol).sum())


def start(page, url: str, reasoner: str, episode: int, seed: int) -> None:
    page.goto(f"{url}/#play")
    page.wait_for_function("window.mz.ready === true")
    page.select_option("#play-reasoner", reasoner)
    page.fill("#play-episode", str(episode))
    page.fill("#play-seed", str(seed))
    page.click("#play-start")
    page.wait_for_function("window.mz.snapshot !== null")


def check_grid(page, image: np.ndarray, snap: dict) -> None:
    """The SVG has every cell, obstacle and ground object; both robots show in the picture."""
    state = snap["state"]
    assert page.locator("#grid rect.cell").count() == state["width"] * state["height"]
    assert page.locator("#grid rect.obstacle").count() == len(state["obstacles"])
    on_ground = sum(o["held_by"] is None for o in state["objects"])
    assert page.locator("#grid .object").count() == on_ground
    assert pixels(image, page, "#grid", HUMAN_RGB) > 100
    assert pixels(image, page, "#grid", HELPER_RGB) > 100
    for o in state["objects"]:  # every object's colour is drawn (ground or carried)
        assert pixels(image, page, "#grid", tuple(o["rgb"]), tol=3) > 20, o["label"]


def test_solo_episode_played_with_the_keyboard(page, live) -> None:
    start(page, live.url, "solo", episode=1, seed=5)
    page.keyboard.press("p")  # nothing lies on a start cell: refused with a message, no tick spent
    page.wait_for_function("document.getElementById('error').textContent !== ''")
    assert page.locator("#error").inner_text() == "there is no object here to pick up"
    assert page.evaluate("window.mz.snapshot.t") == 0
    snaps = play_episode(page)
    final = snaps[-1]
    assert final["success"] and final["condition"] == "solo"
    assert final["t"] == len(snaps) - 1 < final["max_steps"]
    assert {s["state"]["helper"]["cell"] == snaps[0]["state"]["helper"]["cell"] for s in snaps} == {True}
    image = screenshot(page, "solo")
    check_grid(page, image, final)
    assert page.locator("#posterior .bar").count() == 0
    assert "alone" in page.locator("#posterior").inner_text()
    assert pixels(image, page, "#panel", BAR_RGB) == 0
    assert "Goal reached" in page.locator("#status").inner_text()


def test_helped_episode_shows_the_posterior(page, live) -> None:
    start(page, live.url, "exact", episode=0, seed=7)
    first = page.evaluate("window.mz.snapshot")
    bars = page.locator("#posterior .bar:not(.other)")
    assert bars.count() == 10
    assert float(bars.first.get_attribute("data-p")) == pytest.approx(1 / 28)  # the uniform prior

    def mid_episode(snap: dict) -> None:
        shown = [float(b.get_attribute("data-p")) for b in page.locator("#posterior .bar:not(.other)").all()]
        assert shown == pytest.approx([b["p"] for b in snap["posterior"]["bars"]])
        assert shown[0] > 1 / 28  # the belief has moved off the uniform prior
        image = screenshot(page, "play")
        check_grid(page, image, snap)
        # The top bar's fill is drawn at its probability's share of the track, in the bar colour.
        fill = page.locator("#posterior .bar .fill").first.bounding_box()["width"]
        track = page.locator("#posterior .bar .track").first.bounding_box()["width"]
        assert fill / track == pytest.approx(shown[0], abs=0.02)
        assert pixels(image, page, "#panel", BAR_RGB) > fill * 10 * 0.8

    snaps = play_episode(page, pause_at=6, check=mid_episode)
    final = snaps[-1]
    assert final["success"] and final["condition"] == "exact" and final["t"] > 6
    assert any(s["state"]["helper"]["cell"] != first["state"]["helper"]["cell"] for s in snaps)  # the helper acted
    truth = [b for b in final["posterior"]["bars"] if b["true"]]
    assert truth and truth[0]["p"] > 1 / 28  # inference moved towards the true goal
    check_grid(page, screenshot(page, "play-end"), final)
    page.click("#toggle-posterior")  # hidden for a blind session: no bar on screen
    assert not page.locator("#posterior").is_visible()
    assert pixels(screenshot(page, "hidden"), page, "#panel", BAR_RGB) == 0


def test_blind_study_task_in_the_browser(page, live) -> None:
    page.goto(f"{live.url}/#study")
    page.wait_for_function("window.mz.ready === true")
    page.fill("#study-participant", "browser-p1")
    page.click("#study-start")
    page.wait_for_function("window.mz.snapshot !== null")
    assert page.locator("#posterior .bar").count() == 0  # study mode is blind: the server sends no posterior
    snaps = play_episode(page)
    assert snaps[-1]["success"] and snaps[-1]["study"]["step"] == 0
    assert "done" in page.locator("#study-status").inner_text()
    rows = [json.loads(line) for line in (live.logs / "browser-p1.jsonl").read_text().splitlines()]
    assert [r["event"] for r in rows] == ["start", "task"]
    assert rows[1]["ticks"] == snaps[-1]["t"] and len(rows[1]["actions"]) == snaps[-1]["t"]
    page.click("#study-next")
    page.wait_for_function("window.mz.snapshot.study.step === 1")
    assert page.evaluate("window.mz.snapshot.t") == 0


def test_viewer_replays_a_recorded_episode(page, live, runs) -> None:
    recorded = [json.loads(line) for line in (runs / "exact" / "samples.jsonl").read_text().splitlines()]
    page.goto(f"{live.url}/#viewer")
    page.wait_for_function("document.querySelectorAll('#viewer-episode option').length === 2")
    page.select_option("#viewer-episode", "1")
    page.click("#viewer-load")
    page.wait_for_function("window.mz.replay !== null && window.mz.replay.frames.length > 0")
    replay = page.evaluate("window.mz.replay")
    assert replay["mismatch"] is None and len(replay["frames"]) == recorded[1]["t_helped"] + 1
    assert page.locator("#viewer-step").inner_text() == f"step 0 / {recorded[1]['t_helped']}"
    for k in range(1, 6):  # step with the keyboard: the grid follows the recorded frames
        page.keyboard.press("ArrowRight")
        assert page.locator("#viewer-step").inner_text() == f"step {k} / {recorded[1]['t_helped']}"
        assert page.evaluate("window.mz.frame") == k
    frame = replay["frames"][5]
    assert f"human: {frame['human_action']}" in page.locator("#status").inner_text()
    image = screenshot(page, "viewer")
    check_grid(page, image, frame)
    shown = [float(b.get_attribute("data-p")) for b in page.locator("#posterior .bar:not(.other)").all()]
    assert shown == pytest.approx([b["p"] for b in frame["posterior"]["bars"]])
    assert pixels(image, page, "#panel", BAR_RGB) > 0
    page.click("#viewer-last")
    assert f"goal reached after {recorded[1]['t_helped']} ticks" in page.locator("#status").inner_text()


def test_household_episode_with_the_oracle_helper(household_page, live_household) -> None:
    """The simulated human's actions clicked one by one (walks one step each) give its episode with
    the oracle helper; goal progress and the posterior panel follow. Then "walk all the way": one
    click walks to the sofa, one tick per cell, beside the smc helper."""
    page, view, domain = household_page, HouseholdView(), get_domain("household")
    episode = view.episodes({"split": "test", "episodes": 2})[1]
    mirror = PlaySession(view, domain, episode, HOUSEHOLD_HUMAN, domain.reasoner("oracle", 1, HOUSEHOLD_HUMAN), 1, 250)
    human_rng, names = np.random.default_rng([1, 0]), []
    while not mirror.done:
        names.append(view.action_name(episode, mirror.world.human_action(mirror.state, human_rng)))
        mirror.act(names[-1])
    start(page, live_household.url, "oracle", episode=1, seed=1)
    assert page.locator("#progress").inner_text().startswith("Goal progress: 0 / 3")
    truth = page.locator("#posterior .bar.true")
    assert truth.count() == 1 and "★ 1 chips, 2 condimentbottle → coffeetable" in truth.inner_text()
    assert truth.locator(".value").inner_text() == "100%"
    page.uncheck("#autowalk")
    for t, name in enumerate(names):
        page.click(f'#pad button[data-action="{name}"]')
        page.wait_for_function(f"window.mz.snapshot.t === {t + 1} && !window.mz.busy")
    final = page.evaluate("window.mz.snapshot")
    assert final["success"] and final["t"] == mirror.ticks == len(names) == 30
    assert f"Goal reached in {mirror.ticks} ticks" in page.locator("#status").inner_text()
    assert page.locator("#progress").inner_text().startswith("Goal progress: 3 / 3")
    assert page.locator("#pad button:not([disabled])").count() == 0
    assert page.locator("#error").inner_text() == ""

    start(page, live_household.url, "smc", episode=1, seed=1)
    page.wait_for_function("window.mz.snapshot.condition === 'smc'")
    page.check("#autowalk")
    first = page.evaluate("window.mz.snapshot")
    sofa = next(f for f in first["state"]["furniture"] if f["name"] == "sofa")
    apartment = episode.apartment
    cell = apartment.cells.index(tuple(first["state"]["human"]["cell"]))
    ticks = apartment.dist[int(sofa["id"][1:])][cell]
    page.click(f'#pad button[data-action="walk {sofa["id"]}"]')
    page.wait_for_function("window.mz.walk === null && !window.mz.busy")
    snap = page.evaluate("window.mz.snapshot")
    assert snap["t"] == ticks > 1 and snap["state"]["human"]["near"] == sofa["id"]
    assert page.locator("#hh-where").inner_text() == "You are in the livingroom, at the sofa. You hold nothing."
    world = world_of(apartment)
    assert page.locator("#in-view li").count() == sum(f["in_view"] for f in snap["state"]["furniture"]) > 0
    assert page.locator("#grid .furniture").count() == world.F
    shown = [float(b.get_attribute("data-p")) for b in page.locator("#posterior .bar:not(.other)").all()]
    assert len(shown) > 1 and shown == pytest.approx([b["p"] for b in snap["posterior"]["bars"]])
    page.evaluate("window.scrollTo(0, 0)")  # the buttons clicked lie below the fold
    image = screenshot(page, "household")
    assert pixels(image, page, "#grid", AGENT_RGB[0]) > 100 and pixels(image, page, "#grid", AGENT_RGB[1]) > 100
    assert pixels(image, page, "#panel", BAR_RGB) > 0
    page.click("#toggle-posterior")
    assert not page.locator("#posterior").is_visible()
