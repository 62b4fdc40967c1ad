"""Load test of ``mindzero serve`` on loopback: concurrent simulated players, each playing GridWorld
episodes with the exact-inference helper through the JSON API, for a bounded time.

    python benchmarks/bench_serve.py [--players 50] [--seconds 30] [--think 0.1]

The server runs in its own process (``python -m mindzero serve``) on a free 127.0.0.1 port, so the
players' client work does not share its interpreter. A player starts an episode, then sends one
action per response (a random move, or pick/put where possible) after ``--think`` seconds, like
a fast typist; an episode ends at the goal or at ``--max-steps`` ticks, and the player starts
another. Reports request latency percentiles (ms), requests/s, errors (any non-2xx answer or
failed request; the target is 0), the server's CPU time per request (independent of other load on
the machine) and its resident memory before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

MOVES = ("up", "down", "left", "right", "stay")


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` in seconds (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def choose(snap: dict, rng: random.Random) -> str:
    """A possible action: pick where an object lies, put where none does, else a random move."""
    state = snap["state"]
    me, held = state["human"]["cell"], state["human"]["holding"]
    here = any(o["cell"] == me and o["held_by"] is None for o in state["objects"])
    if held < 0 and here and rng.random() < 0.5:
        return "pick"
    if held >= 0 and not here and rng.random() < 0.2:
        return "put"
    return rng.choice(MOVES)


async def player(client: httpx.AsyncClient, k: int, until: float, think: float, stats: dict) -> None:
    rng = random.Random(k)

    async def call(method: str, url: str, body: dict) -> dict | None:
        start = time.perf_counter()
        try:
            response = await client.request(method, url, json=body)
        except httpx.HTTPError as err:
            stats["errors"].append(f"{type(err).__name__}: {err}")
            return None
        stats["latency"].append(time.perf_counter() - start)
        if response.status_code != 200:
            stats["errors"].append(f"{response.status_code}: {response.text[:200]}")
            return None
        return response.json()

    while time.monotonic() < until:
        snap = await call("POST", "/api/play", {"reasoner": "exact", "seed": rng.randrange(10**6)})
        if snap is None:
            return
        stats["episodes"] += 1
        while not snap["done"] and time.monotonic() < until:
            await asyncio.sleep(think)
            snap = await call("POST", f"/api/play/{snap['session']}/act", {"action": choose(snap, rng)})
            if snap is None:
                return


async def load(url: str, players: int, seconds: float, think: float) -> dict:
    stats: dict = {"latency": [], "errors": [], "episodes": 0}
    limits = httpx.Limits(max_connections=players, max_keepalive_connections=players)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:
        until = time.monotonic() + seconds
        start = time.perf_counter()
        await asyncio.gather(*(player(client, k, until, think, stats) for k in range(players)))
        stats["seconds"] = time.perf_counter() - start
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=50, help="concurrent simulated players")
    parser.add_argument("--seconds", type=float, default=30.0, help="duration of the load (s)")
    parser.add_argument("--think", type=float, default=0.1, help="pause between a response and the next action (s)")
    parser.add_argument("--max-steps", type=int, default=100, help="tick limit of an episode")
    args = parser.parse_args()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    command = [sys.executable, "-m", "mindzero", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--reasoner", "exact", "--max-steps", str(args.max_steps)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/api/info", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        rss_before, cpu_before = rss_mib(server.pid), cpu_seconds(server.pid)
        client_cpu = time.process_time()
        stats = asyncio.run(load(url, args.players, args.seconds, args.think))
        client_cpu = time.process_time() - client_cpu
        rss_after, cpu = rss_mib(server.pid), cpu_seconds(server.pid) - cpu_before
    finally:
        server.terminate()
        server.wait(timeout=30)
    ms = np.array(stats["latency"]) * 1000
    p50, p95, p99 = np.percentile(ms, [50, 95, 99])
    print(f"{args.players} players x {stats['seconds']:.1f} s, think {args.think * 1000:.0f} ms, exact helper")
    print(f"requests {len(ms)} ({len(ms) / stats['seconds']:.0f}/s), episodes started {stats['episodes']}")
    print(f"latency ms: p50 {p50:.1f}  p95 {p95:.1f}  p99 {p99:.1f}  max {ms.max():.1f}")
    print(f"errors {len(stats['errors'])}" + (f" (first: {stats['errors'][0]})" if stats["errors"] else ""))
    print(f"server CPU {1000 * cpu / len(ms):.2f} ms per request ({cpu / stats['seconds']:.2f} cores)")
    print(f"players' CPU {1000 * client_cpu / len(ms):.2f} ms per request ({client_cpu / stats['seconds']:.2f} cores)")
    print(f"server RSS MiB: {rss_before:.0f} before, {rss_after:.0f} after")
    if stats["errors"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
