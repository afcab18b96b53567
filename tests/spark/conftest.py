import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession for the whole session: few shuffle partitions, no UI, and
    Arrow batches of 7 rows, so that batch boundaries cut queries. The Python workers run
    this interpreter (the one where skrank is installed)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]")
               .appName("skrank-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "3")
               .config("spark.default.parallelism", "4")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "7")
               .config("spark.sql.session.timeZone", "UTC")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
