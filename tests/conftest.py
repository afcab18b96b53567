import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# LightGBM sums its metrics over OpenMP partial sums, so the last bits of its values depend on
# the thread count; the bit-for-bit reference tests compare with its single-thread value.
# (libgomp reads this when lightgbm is first imported, which happens after conftest.)
os.environ.setdefault("OMP_NUM_THREADS", "1")



import pytest  # noqa: E402


def _fail_missing_reference(report) -> None:
    """On CI (``CI`` set, as it is when ``.ci/run`` runs), a test skipped because a reference
    library is not installed fails instead: ``make test`` installs every reference, so such a
    skip means the set-up is broken, and a silent skip would hide every check behind it."""
    if os.environ.get("CI") and report.skipped and "not installed" in str(report.longrepr):
        report.outcome = "failed"
        report.longrepr = f"a reference library is missing on CI: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_missing_reference(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_missing_reference(outcome.get_result())
