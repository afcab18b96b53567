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
