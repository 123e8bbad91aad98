"""Ctrl-C stops a long Monte-Carlo call quickly; a forked child can still compute.

Both run in a subprocess so that the signal and the fork cannot disturb the test runner.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests._sigint import assert_interrupts


@pytest.mark.parametrize("mode", ["projected", "full"])
def test_ctrl_c_interrupts_within_half_a_second(mode: str) -> None:
    assert_interrupts(
        f'rl.rff.estimate(q, k, D=10**6, trials=10**6, seed=0, mode="{mode}", nthreads=2)',  # ~minutes
        setup="q = np.array([0.3, 0.1, -0.2, 0.4]); k = np.array([0.1, 0.5, 0.2, -0.1])",
        after='print("after", rl.rff.estimate(q, k, D=8, trials=3, seed=1).shape)',  # still usable
        expected_after="(3,)",
    )


FORK = textwrap.dedent(
    """
    import os
    import numpy as np
    import ropelab as rl

    q = np.array([0.3, 0.1]); k = np.array([0.1, 0.5])
    ref = rl.rff.estimate(q, k, D=64, trials=2000, seed=5, nthreads=2)
    pid = os.fork()
    if pid == 0:
        child = rl.rff.estimate(q, k, D=64, trials=2000, seed=5, nthreads=2)
        os._exit(0 if np.array_equal(child, ref) else 3)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status))
    """
)


def test_fork_after_threaded_call() -> None:
    out = subprocess.run([sys.executable, "-c", FORK], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "child 0"


MEMORY = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    import ropelab as rl

    q = np.linspace(-0.2, 0.3, 16); k = np.linspace(0.1, -0.1, 16)
    rl.rff.estimate(q, k, 32, trials=10, mode="{mode}")  # warm up: imports, thread start-up
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = rl.rff.estimate(q, k, 32, trials=int(sys.argv[1]), mode="{mode}", seed=1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((peak - base) * 1024 - out.nbytes)
    """
)


@pytest.mark.parametrize(("mode", "trials"), [("projected", 2_000_000), ("full", 200_000)])
def test_monte_carlo_memory_is_flat_in_trials(mode: str, trials: int) -> None:
    """Peak memory beyond the output array does not grow with trials (a trials×D×d array of ω would
    be 8·trials·32·16 bytes: 0.8–8 GB here)."""

    def extra(n: int) -> int:
        r = subprocess.run(
            [sys.executable, "-c", MEMORY.replace("{mode}", mode), str(n)], capture_output=True, text=True, timeout=300
        )
        assert r.returncode == 0, r.stderr
        return int(r.stdout.strip())

    small, large = extra(1000), extra(trials)
    # generous bound: 32 MB of allocator noise, far below the 0.8 GB a per-trial ω store would need
    assert large - small < 32 * 2**20, (small, large)
