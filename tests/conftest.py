"""Shared pytest configuration: a report header with the versions and threads in use, and the
hypothesis profile."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

# Property tests draw the same examples on every run, so CI is reproducible and a red run can be
# replayed; no example database is kept. HYPOTHESIS_PROFILE=explore draws new examples each run.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The Ctrl-C tests send SIGINT to this process and to child processes. A shell that starts a job in
# the background without job control (`make test &`, nohup) starts it with SIGINT ignored, and an
# ignored signal stays ignored across fork and exec, so those tests would fail (and a child would
# never stop). Python's handler here makes the children start with the default action again.
signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_report_header(config: object) -> list[str]:
    import ropelab

    lines = [f"ropelab {ropelab.__version__}, numpy {np.__version__}"]
    try:
        import scipy

        lines.append(f"scipy {scipy.__version__}")
    except ImportError:  # pragma: no cover
        pass
    lines.append(f"cores: {os.cpu_count()}, ROPELAB_NUM_THREADS={os.environ.get('ROPELAB_NUM_THREADS', '(unset)')}")
    lines.append(f"SIMD path: {ropelab.simd.isa()} (available: {', '.join(ropelab.simd.available())})")
    return lines


# `make test-fast` runs `pytest -m "not slow"`: these modules (notebook execution, mypy and stub
# generation, the headless browser, the wide property sweeps, new virtual environments, CMake
# configure runs, subprocess and signal tests: the Ctrl-C latency tests each start a process), the
# tests named below (processes, Dask clusters, PNG rendering) and every hypothesis test are slow.
# `make test` runs them all.
SLOW_MODULES = frozenset(
    {
        "test_notebooks",
        "test_typing",
        "test_docs_browser",
        "test_docs_code",
        "test_properties",
        "test_properties_all",
        "test_public_registry",
        "test_doctests",
        "test_closed_forms_mpmath",
        "test_interrupt_fork",
        "test_reliability_processes",
        "test_plugins",
        "test_build_deps",
        "test_reliability_store",
        "test_cli_unix",
        "test_plot",
        "test_report",
        "test_interrupt_single_pass",
        "test_interrupt_detached",
    }
)
#: (module, test function) pairs that start processes, clusters or long computations.
SLOW_TESTS = frozenset(
    {
        ("test_sweep", "test_sigkill_mid_sweep_loses_only_the_cell_in_flight"),
        ("test_sweep", "test_arbitrary_arguments_raise_only_value_or_type_errors"),
        ("test_sweep", "test_valid_sweeps_run_and_give_finite_outputs"),
        ("test_sweep", "test_without_the_optional_packages"),
        ("test_sweep", "test_kernel_family_is_part_of_the_sweep"),
        ("test_sweep", "test_dask_backend_without_a_client"),
        ("test_sweep", "test_local_and_dask_give_identical_tables"),
        ("test_cli_sweep", "test_rff_mse_on_a_local_cluster"),
        ("test_attention", "test_memory_is_not_T_D_dv"),
        ("test_attention", "test_ctrl_c_interrupts"),
        ("test_rotary", "test_parity_angle_error_up_to_1e7"),
        ("test_recurrence", "test_long_call_answers_ctrl_c"),
        ("test_simd", "test_environment_variable_selects_the_path"),
        ("test_cli", "test_mse_curve_writes_png"),
        ("test_cli", "test_module_entry_point"),
        ("test_harris_table", "test_cli_table_formats"),
        ("test_reliability_values", "test_plan_cache_is_bounded"),
        ("test_sweep", "test_a_dask_sweep_stores_and_a_local_run_resumes_it"),
        ("test_sweep", "test_local_thread_count_and_batch_size_do_not_matter"),
        ("test_sweep", "test_store_rejects_another_sweep_and_a_second_writer"),
        ("test_sweep", "test_a_cluster_without_workers_is_an_error_after_a_wait"),
        ("test_sweep", "test_a_closed_client_is_rejected"),
        ("test_cli_sweep", "test_rff_mse_table_store_and_plot"),
        ("test_cli_sweep", "test_unreachable_scheduler_is_a_clear_error"),
        ("test_cli_sweep", "test_json_is_exact_and_string_axes_plot"),
        ("test_sweep", "test_dask_workers_check_the_numerics"),
        ("test_sweep", "test_dask_backend_by_name_uses_the_default_client"),
        # every built-in claim evaluated (ropelab verify): the fast set keeps the registry checks
        ("test_claims", "test_computed_verdict_is_expected"),
        ("test_claims", "test_counterexample_values_in_report"),
        # Monte-Carlo means over many threaded draws, and a dense eigensolver at N = 300
        ("test_attention", "test_per_pair_sigma_means"),
        ("test_attention", "test_numerator_and_denominator_unbiased"),
        ("test_windows_scipy", "test_dpss_against_dense_eigensolver"),
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        mod = getattr(item, "module", None)
        module = mod.__name__.rsplit(".", 1)[-1] if mod is not None else ""
        function = getattr(getattr(item, "function", None), "__name__", "")
        hypothesis_test = getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
        # every claim checked twice, before and after its perturbation (tests/test_claims_<section>.py)
        perturbation = module.startswith("test_claims_") and function == "test_perturbation_flips_verdict"
        if module in SLOW_MODULES or (module, function) in SLOW_TESTS or hypothesis_test or perturbation:
            item.add_marker(pytest.mark.slow)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m "not slow"`` (make test-fast) the slow modules are not even imported: importing
    them (nbclient/jsonschema, mypy's helpers, ...) costs more than the fast tests themselves."""
    markexpr = " ".join(str(config.getoption("markexpr", "") or "").split())
    if markexpr == "not slow" and collection_path.suffix == ".py" and collection_path.stem in SLOW_MODULES:
        return True
    return None
