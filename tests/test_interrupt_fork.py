"""Ctrl-C stops a long Monte-Carlo call quickly; a forked child can still compute.

Both run in a subprocess so that the signal and the fork cannot disturb the test runner.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

INTERRUPT = textwrap.dedent(
    """
    import os, signal, threading, time
    import numpy as np
    import ropelab as rl

    q = np.array([0.3, 0.1, -0.2, 0.4]); k = np.array([0.1, 0.5, 0.2, -0.1])
    sent = {}
    def fire():
        time.sleep(1.0)
        sent["t"] = time.perf_counter()
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()
    try:
        rl.rff.estimate(q, k, D=10**6, trials=10**6, seed=0, mode="{mode}", nthreads=2)  # ~minutes
        print("NOT INTERRUPTED")
    except KeyboardInterrupt:
        print("latency", time.perf_counter() - sent["t"])
    # the module is still usable afterwards
    print("after", rl.rff.estimate(q, k, D=8, trials=3, seed=1).shape)
    """
)


@pytest.mark.parametrize("mode", ["projected", "full"])
def test_ctrl_c_interrupts_within_half_a_second(mode: str) -> None:
    out = subprocess.run([sys.executable, "-c", INTERRUPT.replace("{mode}", mode)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    assert "latency" in lines, out.stdout
    assert float(lines["latency"]) < 0.5
    assert lines["after"] == "(3,)"


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
