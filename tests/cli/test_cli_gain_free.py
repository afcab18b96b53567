"""``skrank eval`` checks a label against the gain only when a metric uses the gain: AP, P,
R and RR take the label 1001 under the default ``gain=exp`` (they see relevant or not),
ERR refuses it whatever the gain (its own 2**label), naming the file and the line."""

from __future__ import annotations

import pytest

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c {big}\n2 0 a 0\n2 0 d 1\n"
RUN = "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 d 1 2 t\n2 Q0 a 2 1 t\n"
TABLE = "qid,doc,label,s\n1,a,1,3\n1,b,0,2\n1,c,{big},1\n2,d,1,2\n2,a,0,1\n"


def _files(folder, big):
    folder.mkdir(exist_ok=True)
    qrels, run, table = folder / "qrels.txt", folder / "run.txt", folder / "t.csv"
    qrels.write_text(QRELS.format(big=big))
    run.write_text(RUN)
    table.write_text(TABLE.format(big=big))
    return qrels, run, table


@pytest.mark.parametrize("options", [[], ["--gain", "0,1,3"], ["--preset", "trec_eval"]])
def test_binary_metrics_take_a_label_the_gain_cannot(cli, tmp_path, options):
    metrics = ["-m", "map", "-m", "P@2", "-m", "recall@2", "-m", "recip_rank"]
    fmt = ["--format", "trec"] if options == ["--preset", "trec_eval"] else []
    qrels, run, table = _files(tmp_path, 1001)
    code, big_out, err = cli("eval", *metrics, *options, *fmt, qrels, run)
    assert code == 0, err
    # the oracle: the same judgements with the label 1 (relevant, as 1001 is)
    qrels1, run1, table1 = _files(tmp_path / "one", 1)
    code, one_out, err = cli("eval", *metrics, *options, *fmt, qrels1, run1)
    assert code == 0, err
    assert big_out.replace(str(qrels), "Q").replace(str(run), "R") == \
        one_out.replace(str(qrels1), "Q").replace(str(run1), "R")
    code, big_table, err = cli("eval", *metrics, *options, "--doc-id", "doc", table)
    assert code == 0, err
    code, one_table, err = cli("eval", *metrics, *options, "--doc-id", "doc", table1)
    assert code == 0, err
    assert big_table.replace(str(table), "T") == one_table.replace(str(table1), "T")


def test_ndcg_still_refuses_the_label_with_its_line(cli, tmp_path):
    qrels, run, table = _files(tmp_path, 1001)
    code, _, err = cli("eval", "-m", "map", "-m", "ndcg@10", qrels, run)
    assert code == 1
    assert f"{qrels}, line 3: the relevance label 1001 is above 1000" in err
    code, _, err = cli("eval", "-m", "map", "-m", "ndcg@10", "--doc-id", "doc", table)
    assert code == 1
    assert f"{table}, line 4: column 'label' must hold labels <= 1000 with gain='exp'" in err


@pytest.mark.parametrize("gain", ["linear", "exp"])
def test_err_refuses_a_label_above_1000_with_its_line(cli, tmp_path, gain):
    # under --gain linear, ERR's 2**label overflowed to a NaN before
    qrels, run, table = _files(tmp_path, 2000)
    code, _, err = cli("eval", "-m", "err@10", "--gain", gain, qrels, run)
    assert code == 1
    assert f"{qrels}, line 3: the relevance label 2000 is above 1000, the largest label " \
           "ERR takes" in err
    code, _, err = cli("eval", "-m", "err@10", "--gain", gain, "--doc-id", "doc", table)
    assert code == 1
    assert f"{table}, line 4: column 'label' must hold labels <= 1000 for ERR" in err


@pytest.mark.parametrize(("options", "source"), [
    (["--preset", "lightgbm"], "labels 0..30; the gains of --preset lightgbm; --gain sets "
                               "others)"),
    (["--gain", "0,1,3"], "labels 0..2; --gain)"),
])
def test_a_label_beyond_the_gain_table_says_where_the_table_came_from(cli, tmp_path, options,
                                                                      source):
    qrels, run, _ = _files(tmp_path, 31)
    code, _, err = cli("eval", "-m", "ndcg@10", *options, qrels, run)
    assert code == 1
    assert f"{qrels}, line 3: the relevance label 31 has no gain in the table of " in err
    assert source in err
