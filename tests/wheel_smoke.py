"""Smoke test of an installed wheel, run in a clean environment by ``make wheel-check`` and by
cibuildwheel (``python tests/wheel_smoke.py``): the compiled kernels load from the installed
package, numba is not needed, the bundled data is in the wheel, and the two kernels, the TREC
reader and the command line give the documented numbers."""

from __future__ import annotations


def main() -> None:
    import importlib.util
    import pathlib
    import subprocess
    import sys

    import numpy as np

    import skrank
    from skrank.datasets import load_lambdarank_example
    from skrank.metrics._kernels import _arrays, _ranking, ranking

    site = pathlib.Path(skrank.__file__).parent
    for mod in (_ranking, _arrays, ranking):
        path = pathlib.Path(mod.__file__)
        assert path.suffix in (".so", ".pyd") and site in path.parents, path
    assert importlib.util.find_spec("numba") is None, "numba should not be installed"

    y = [2, 0, 1, 0, 0, 1]
    s = [0.9, 0.5, 0.5, 0.3, 0.8, 0.8]
    q = [1, 1, 1, 2, 2, 2]
    res = skrank.evaluate(y, s, q, metrics=["ndcg@2", "rr"])  # the one-pass kernel
    assert round(res["ndcg@2"].value, 4) == 0.7286, res
    assert res["rr"].per_query.tolist() == [1.0, 0.5], res
    general = skrank.evaluate(y, s, q, metrics=["ndcg@2", "rr"], doc_id=np.arange(6))
    assert general["ndcg@2"].value == res["ndcg@2"].value

    data = load_lambdarank_example()
    val = skrank.ndcg(data.y_test, data.X_test[:, 26], data.qid_test, k=10)
    assert round(val.value, 4) == 0.4728, val

    script = pathlib.Path(sys.executable).parent / "skrank"
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True)

    # TREC files through the compiled reader (skrank.io._runreader), without pyarrow
    import tempfile

    from skrank.io import _runreader

    assert pathlib.Path(_runreader.__file__).suffix in (".so", ".pyd"), _runreader.__file__
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = pathlib.Path(tmp, "qrels"), pathlib.Path(tmp, "run")
        qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
        run.write_text("1 Q0 b 1 0.9 t\n1 Q0 a 2 0.9 t\n2 Q0 c 1 0.1 t\n")
        trec = subprocess.run([str(script), "eval", "--preset", "trec_eval", "-m", "map",
                               "--format", "trec", str(qrels), str(run)],
                              capture_output=True, text=True, check=True).stdout
    assert trec.split()[-1] == "0.7500", trec  # the tie: docno "b" ranks before "a"
    variant = skrank.metrics._kernels.VARIANT
    print(out.stdout.strip(), f"(kernels: {variant}) - wheel smoke test passed")


if __name__ == "__main__":
    main()
