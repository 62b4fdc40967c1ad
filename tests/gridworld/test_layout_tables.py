"""Layout tables (moves, neighbours, distances: lazy rows and all pairs) against plain-Python BFS."""

from __future__ import annotations

from collections import deque

import numpy as np

from mindzero.envs.gridworld.layout import MOVE_DELTAS, UNREACHABLE, Layout


def random_layouts(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        w, h = int(rng.integers(2, 9)), int(rng.integers(2, 9))
        cells = [(x, y) for x in range(w) for y in range(h)]
        order = rng.permutation(len(cells))
        n_obstacles = int(rng.integers(0, len(cells) - 1))
        obstacles = frozenset(cells[i] for i in order[:n_obstacles])
        free = [cells[i] for i in order[n_obstacles:]]
        yield Layout(w, h, obstacles, (), (), free[0], free[-1])


def bfs(layout: Layout, start: tuple[int, int]) -> dict[tuple[int, int], int]:
    seen, queue = {start: 0}, deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in MOVE_DELTAS[1:]:
            nxt = (x + dx, y + dy)
            if layout.inside(nxt) and nxt not in layout.obstacles and nxt not in seen:
                seen[nxt] = seen[(x, y)] + 1
                queue.append(nxt)
    return seen


def test_tables_match_plain_bfs_on_random_layouts():
    rng = np.random.default_rng(1)
    disconnected = 0
    for layout in random_layouts(150):
        n = layout.n_cells
        for i in range(n):
            x, y = layout.cell(i)
            for m, (dx, dy) in enumerate(MOVE_DELTAS):
                nxt = (x + dx, y + dy)
                ok = layout.inside(nxt) and nxt not in layout.obstacles
                assert layout.next_cell[i, m] == (layout.index(nxt) if ok else i)
                if m > 0:
                    assert layout.neighbors[i, m - 1] == (layout.index(nxt) if ok else -1)
        expected = np.full((n, n), UNREACHABLE)
        for i in range(n):
            if layout.cell(i) not in layout.obstacles:
                for cell, d in bfs(layout, layout.cell(i)).items():
                    expected[i, layout.index(cell)] = d
        # Rows on demand, a few at a time (padding -1 and obstacle cells included), before any full matrix.
        for _ in range(3):
            sources = rng.integers(-1, n, size=(2, 3))
            targets = rng.integers(0, n, size=3)
            want = np.where(sources >= 0, expected[sources, targets], UNREACHABLE)
            np.testing.assert_array_equal(layout.dist(sources, targets), want)
        np.testing.assert_array_equal(layout.distance, expected)
        np.testing.assert_array_equal(layout.distance, layout.distance.T)  # what callers of dist rely on
        free = [i for i in range(n) if layout.cell(i) not in layout.obstacles]
        assert layout.is_connected == bool((expected[free[0], free] < UNREACHABLE).all())
        disconnected += not layout.is_connected
    assert disconnected > 10  # the sample covers disconnected layouts too
