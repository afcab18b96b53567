import pytest


@pytest.fixture(scope="session")
def dask_client():
    """One distributed.LocalCluster of two single-threaded workers for the whole session
    (threads of this process: quick to start; the shuffle (p2p) and the tasks are the real
    ones). Not the default client: a test takes it with ``client.as_current()``, the others
    run on Dask's local scheduler."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield client
