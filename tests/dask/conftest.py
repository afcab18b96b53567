import pytest


@pytest.fixture(scope="session")
def dask_client():
    """One distributed.LocalCluster of two single-threaded worker processes for the whole
    session (about 3 seconds to start): the p2p shuffle, the pickled plan and the tasks are
    the real ones, across processes. Not the default client: a test takes it with
    ``client.as_current()``, the others run on Dask's local scheduler."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield client
