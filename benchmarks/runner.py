"""Running one measurement in a fresh interpreter (``python -m benchmarks.child``) and reading its result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Environment every child gets on top of ours (main() points the caches into --out).
CHILD_ENV: dict[str, str] = {}


def run_child(task: dict, timeout: float | None = None, env: dict[str, str] | None = None) -> dict | None:
    """Run one measurement in a fresh interpreter; None if it hit ``timeout``.

    ``env`` is added to the environment (after :data:`CHILD_ENV`) for this child only.
    subtle: the child gets a session (process group) of its own, so a timeout stops its forked
    workers too, not only the child itself (they would go on using the cores the next run needs);
    being in its own session, it no longer sees the terminal's Ctrl-C, so an interrupt here stops it.
    """
    full_env = {**os.environ, **CHILD_ENV, **(env or {})}
    with subprocess.Popen([sys.executable, "-m", "benchmarks.child", json.dumps(task)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, env=full_env, start_new_session=True) as child:
        try:
            stdout, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(child)
            return None
        except BaseException:
            _stop(child)
            raise
    if child.returncode != 0:
        raise RuntimeError(f"benchmark task {task['task']} failed:\n{stderr[-3000:]}")
    return json.loads(stdout.strip().splitlines()[-1])


def _stop(child: subprocess.Popen) -> None:
    """Kill the child's whole process group (the child and the workers it forked) and reap the child."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.communicate()
