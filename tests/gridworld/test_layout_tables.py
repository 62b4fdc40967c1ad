"""Layout tables (moves, neighbours, all-pairs distances, delta patterns) against plain-Python BFS."""

from __future__ import annotations

from collections import deque

import numpy as np

from mindzero.envs.gridworld.layout import MOVE_DELTAS, PATTERN_DIGITS, UNREACHABLE, Layout


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
    disconnected = 0
    for layout in random_layouts(150):
        n = layout.n_cells
        for i in range(n):
            x, y = layout.cell(i)
            for m, (dx, dy) in enumerate(MOVE_DELTAS):
                nxt = (x + dx, y + dy)
                ok = layout.inside(nxt) and nxt not in layout.obstacles
                assert layout.next_cell[i, m] == (layout.index(nxt) if ok else i)
            free_moves = [layout.index((x + dx, y + dy)) for dx, dy in MOVE_DELTAS[1:]]
            free_moves = [j for j, m in zip(free_moves, range(1, 5)) if layout.next_cell[i, m] == j != i]
            assert list(layout.neighbors[i]) == free_moves + [-1] * (4 - len(free_moves))
        expected = np.full((n, n), UNREACHABLE)
        for i in range(n):
            if layout.cell(i) not in layout.obstacles:
                for cell, d in bfs(layout, layout.cell(i)).items():
                    expected[i, layout.index(cell)] = d
        np.testing.assert_array_equal(layout.distance, expected)
        disconnected += not layout.is_connected
        free = [i for i in range(n) if layout.cell(i) not in layout.obstacles]
        for c in free:
            for i in free:
                if expected[c, i] < UNREACHABLE:
                    deltas = [expected[c, layout.next_cell[i, m]] - expected[c, i] for m in range(1, 5)]
                    assert layout.delta_pattern[c, i] == sum(int(g) * (d + 1) for g, d in zip(PATTERN_DIGITS, deltas))
            for j, nb in enumerate(layout.neighbors[c]):
                assert layout.neighbor_distance[free[0], c, j] == (expected[free[0], nb] if nb >= 0 else UNREACHABLE)
    assert disconnected > 10  # the sample covers disconnected layouts too
