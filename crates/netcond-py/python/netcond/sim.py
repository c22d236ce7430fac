"""The simulator's scenarios from Python.

``run("pcn-admission", n=50, seed=3)`` is ``netcond-sim run pcn-admission
--seed 3 --set n=50``; ``reproduce("pcn-admission", seed=1)`` is
``netcond-sim reproduce pcn-admission --seed 1``. Each returns a
:class:`SimResult` whose tables are pandas DataFrames read from exactly the
CSV text the CLI writes to its output directory (dicts of NumPy arrays when
pandas is not installed).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Dict, List, Union

import numpy as np

from . import _netcond

try:  # pandas is optional
    import pandas as _pd
except ImportError:  # pragma: no cover - exercised where pandas is absent
    _pd = None

__all__ = ["SimResult", "scenarios", "defaults", "describe", "run", "reproduce", "read_csv"]


def _column(values: List[str]) -> np.ndarray:
    for kind in (np.int64, np.float64):
        try:
            return np.array([kind(v) if v != "" else np.nan for v in values])
        except (ValueError, OverflowError):
            continue
    return np.array(values, dtype=object)


def read_csv(text: str, *, use_pandas: bool | None = None):
    """One of the CLI's CSV files as a DataFrame (or a dict of NumPy arrays)."""
    if use_pandas is None:
        use_pandas = _pd is not None
    if use_pandas:
        return _pd.read_csv(io.StringIO(text))
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    return {h: _column([r[i] for r in body]) for i, h in enumerate(header)}


@dataclass
class SimResult:
    """A scenario's report: the tables the CLI writes, and its text."""

    scenario: str
    title: str
    text: str
    params: List[str]
    notes: List[str]
    events: int
    sim_seconds: float
    csv: Dict[str, str] = field(repr=False)
    tables: Dict[str, Any] = field(repr=False)

    @property
    def comparison(self):
        """The document's numbers beside ours (``comparison.csv``), or None."""
        return self.tables.get("comparison")

    @property
    def runs(self):
        """The runs of a reproduction with their seeds (``runs.csv``), or None."""
        return self.tables.get("runs")

    def __getitem__(self, name: str):
        return self.tables[name]

    def __repr__(self) -> str:
        return (
            f"SimResult(scenario={self.scenario!r}, tables={sorted(self.tables)}, "
            f"events={self.events})"
        )


def _result(d: Dict[str, Any], use_pandas: bool | None) -> SimResult:
    tables = {name[: -len(".csv")]: read_csv(text, use_pandas=use_pandas) for name, text in d["csv"].items()}
    return SimResult(
        scenario=d["scenario"],
        title=d["title"],
        text=d["text"],
        params=list(d["params"]),
        notes=list(d["notes"]),
        events=int(d["events"]),
        sim_seconds=float(d["sim_seconds"]),
        csv=dict(d["csv"]),
        tables=tables,
    )


def scenarios() -> List[str]:
    """The names of the simulator's scenarios."""
    return list(_netcond.sim_scenarios())


def defaults(name: str) -> Dict[str, str]:
    """A scenario's parameters and their default values (as the CLI lists them)."""
    return dict(kv.split("=", 1) for kv in _netcond.sim_defaults(name))


def describe(name: str) -> str:
    """A scenario's one-line description."""
    return _netcond.sim_description(name)


def _value(v: Union[str, int, float, bool]) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def run(name: str, *, seed: int = 1, memory_budget: int = 2 << 30, use_pandas: bool | None = None, **params) -> SimResult:
    """One run of scenario ``name`` with its defaults changed by ``params``
    (``n=50``, ``test="overload"``, sizes and rates as tc strings), as
    ``netcond-sim run NAME --seed SEED --set key=value ...``."""
    sets = [f"{k}={_value(v)}" for k, v in params.items()]
    return _result(_netcond.sim_run(name, seed, sets, memory_budget), use_pandas)


def reproduce(name: str, *, seed: int = 1, quick: bool = False, use_pandas: bool | None = None) -> SimResult:
    """The document's whole table for scenario ``name``, as ``netcond-sim
    reproduce NAME --seed SEED`` (``quick=True``: the reduced size of
    ``reproduce quick``)."""
    return _result(_netcond.sim_reproduce(name, seed, quick), use_pandas)
