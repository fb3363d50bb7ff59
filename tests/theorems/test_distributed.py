"""The explorer on a dask cluster: the same CSV, byte for byte, as ``--jobs 1``.

Needs the ``distributed`` extra (installed by ``pip install -e ".[test]"``, so it runs in CI);
skipped with the reason when dask.distributed is absent."""

import pytest

from theorems.cli import main as cli_main


distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed: pip install 'perceptron-margins[distributed]'")


def _run(out, *extra):
    argv = ["bounds", "snkp", "--family", "planted", "--family", "moons", "--seeds", "2", "--search", "--budget", "16",
            "--out", str(out), "--no-plot", "--no-progress", *extra]
    assert cli_main(argv) == 0
    return (out / "snkp.csv").read_bytes()


def test_sweep_on_a_local_dask_cluster_gives_the_csv_of_jobs_1(tmp_path):
    serial = _run(tmp_path / "serial", "--jobs", "1")
    rows = serial.count(b"\n") - 1
    assert rows > 20 and b",search," in serial  # sweep and search rows
    assert _run(tmp_path / "other", "--jobs", "1", "--seed", "1") != serial  # the comparison can fail
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2  # two worker processes
            address = cluster.scheduler_address.replace("tcp://", "dask://")
            with distributed.get_task_stream(client) as stream:
                on_dask = _run(tmp_path / "dask", "--executor", address)
    assert len(stream.data) == rows  # every row was evaluated on the cluster
    assert on_dask == serial


def test_executor_address_is_checked(capsys):
    assert cli_main(["bounds", "snkp", "--quick", "--executor", "localhost:8786"]) == 2
    assert "dask://HOST:PORT" in capsys.readouterr().err
