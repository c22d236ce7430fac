"""The simulator from Python gives the numbers the CLI writes."""

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import netcond
from netcond import sim

ROOT = Path(__file__).resolve().parents[3]


def cli(*args, out):
    exe = os.environ.get("NETCOND_SIM")
    if exe:
        cmd = [exe, *args]
    else:
        cmd = ["cargo", "run", "-q", "--release", "-p", "netcond-sim", "--", *args]
    subprocess.run(cmd + ["--out", str(out), "-q"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def test_run_equals_cli_csv(tmp_path):
    r = sim.run("pcn-admission", n=50, seed=3, runs=2, test="overload")
    cli("run", "pcn-admission", "--seed", "3", "--set", "n=50", "--set", "runs=2",
        "--set", "test=overload", out=tmp_path)
    d = tmp_path / "pcn-admission" / "run"
    files = sorted(p.name for p in d.glob("*.csv"))
    assert files == sorted(r.csv)
    for name in files:
        text = (d / name).read_text()
        assert r.csv[name] == text, name
        pd.testing.assert_frame_equal(r[name[:-4]], pd.read_csv(d / name))
    assert (d / "report.txt").read_text() == r.text
    assert r.events > 0


def test_reproduce_equals_cli_csv(tmp_path):
    r = sim.reproduce("rbcc-scenario7", seed=2)
    cli("reproduce", "rbcc-scenario7", "--seed", "2", out=tmp_path)
    d = tmp_path / "rbcc-scenario7"
    files = sorted(p.name for p in d.glob("*.csv"))
    assert "comparison.csv" in files and files == sorted(r.csv)
    for name in files:
        assert r.csv[name] == (d / name).read_text(), name
    assert r.comparison is not None and len(r.comparison) > 0
    assert set(r.comparison.columns) >= {"case", "metric", "document", "ours"}


def test_without_pandas_gives_numpy_columns():
    r = sim.run("pcn-admission", n=20, seed=3, runs=1, use_pandas=False)
    t = r.tables["summary"]
    assert isinstance(t, dict)
    df = sim.read_csv(r.csv["summary.csv"], use_pandas=True)
    assert list(t) == list(df.columns)
    for col in df.columns:
        if df[col].dtype.kind in "if":
            assert np.allclose(t[col], df[col].to_numpy(), equal_nan=True)
        else:
            assert list(t[col]) == list(df[col])


def test_determinism_and_seed():
    a = sim.run("pcn-admission", n=20, seed=5, runs=1)
    b = sim.run("pcn-admission", n=20, seed=5, runs=1)
    assert a.csv == b.csv


def test_errors():
    with pytest.raises(ValueError, match="unknown scenario"):
        sim.run("no-such-scenario")
    with pytest.raises(ValueError, match="n"):
        sim.run("pcn-admission", n=1)
    with pytest.raises(ValueError):
        sim.run("pcn-admission", no_such_key=1)
    assert "pcn-admission" in sim.scenarios()
    assert sim.defaults("pcn-admission")["n"] == "50"
    assert "PCN" in sim.describe("pcn-admission")
