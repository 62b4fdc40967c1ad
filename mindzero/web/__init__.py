"""The browser surface (``mindzero serve``): human play with a live helper, study mode with
interaction logs, and a viewer that replays recorded assistance episodes.

Framework-free game logic lives in :mod:`~mindzero.web.games` (generic over domains),
:mod:`~mindzero.web.gridworld` and :mod:`~mindzero.web.household` (each domain's actions and JSON);
:mod:`~mindzero.web.sessions` bounds memory, :mod:`~mindzero.web.study` plans, logs and analyses
studies, :mod:`~mindzero.web.replay` re-runs recorded episodes, and :mod:`~mindzero.web.app` is the
Starlette application.
"""
