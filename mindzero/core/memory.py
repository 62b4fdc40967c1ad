"""Memory a run will need, estimated before it starts and compared with what the machine has free,
so that a run too big for the machine is a one-line error, not the kernel's OOM killer an hour in.

Each option has its own upper bound (its ``le``); this is for combinations of options that are each
within bounds but together too big (a wide and deep scratch model, many sessions of a large grid)."""

from __future__ import annotations

import os

from mindzero.core.errors import UserError

GIB = 1024**3


def available_bytes() -> int:
    """Memory the machine can give a new allocation now (``MemAvailable`` of /proc/meminfo; elsewhere
    the physical memory). ``MINDZERO_MEMORY_BYTES`` overrides it (tests, or a share of a shared node)."""
    if "MINDZERO_MEMORY_BYTES" in os.environ:
        return int(os.environ["MINDZERO_MEMORY_BYTES"])
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def require_memory(needed: int, what: str) -> None:
    """Refuse, before any work, a run whose estimate ``needed`` (bytes) exceeds the memory available;
    ``what`` says what the estimate counts."""
    free = available_bytes()
    if needed > free:
        raise UserError(
            f"this run needs about {needed / GIB:,.1f} GiB ({what}), more than the {free / GIB:,.1f} GiB "
            "available; make it smaller"
        )
