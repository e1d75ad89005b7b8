"""Cloud cost from predicted time: N inferences (``N / batch`` batches × latency) or a training
run (steps × step time), priced per hour of the platform's hardware from a dated price table
(``prices.json``, shipped). A user's own table, ``<perfgraphs home>/hardware/prices.json`` in the
same format, is read over the shipped one (a platform it names takes its price; the rest keep the
shipped prices), so adding or correcting a price needs no edit of the installed package; an
explicit ``prices=`` file is read alone."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from perfgraphs.predict.errors import PriceTableError

PRICES_FILE = Path(__file__).resolve().parent / "prices.json"


@dataclass(frozen=True)
class Price:
    platform: str
    offer: str
    usd_per_hour: float
    source_url: str
    source_date: str
    table: str  # the file it came from
    table_as_of: str


@dataclass(frozen=True)
class CostEstimate:
    """Cost of ``units`` (inferences or training steps) at a predicted time per unit."""

    units: int
    unit: str  # "inference" or "training step"
    seconds: float
    usd: float
    price: Price
    usd_low: float | None = None  # at the low and high ends of the priced time's 80 % interval
    usd_high: float | None = None
    time_target: str = ""  # the predicted time it is priced at

    @property
    def usd_per_million(self) -> float:
        return self.usd / self.units * 1e6


def where_to_add_a_price() -> str:
    """What a missing price says: the user's table to add it to, in the shipped table's format."""
    return f"add it to your price table {user_prices_json()} (the format of {PRICES_FILE})"


def read_prices(path: Path | str | None = None) -> dict:
    path = Path(path) if path is not None else PRICES_FILE
    try:
        table = json.loads(path.read_text())
        for name, p in table["platforms"].items():
            # finite: json reads ``Infinity``, which priced every run at "$inf" (126e's lead)
            if not (isinstance(p["usd_per_hour"], (int, float)) and 0 < p["usd_per_hour"] < math.inf):
                raise ValueError(f"{name}: usd_per_hour must be a positive finite number")
            str(p["source_url"]), str(p["offer"])
    except FileNotFoundError:
        raise PriceTableError(f"price table {path} does not exist") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise PriceTableError(f"price table {path} is not valid: {type(exc).__name__}: {exc} "
                              f"(see {PRICES_FILE.name} for the format)") from None
    table["_path"] = str(path)
    return table


def user_prices_json() -> Path:
    """The user's own price table, read over the shipped one (it need not exist)."""
    from perfgraphs.paths import user_hardware_dir

    return user_hardware_dir() / "prices.json"


def price_of(platform: str, prices: Path | str | None = None) -> Price | None:
    """``platform``'s price: from ``prices`` alone when given, else from the user's table
    (:func:`user_prices_json`) and then the shipped one; None where neither has it."""
    tables = [read_prices(prices)] if prices is not None else \
        [read_prices(p) for p in (user_prices_json(), PRICES_FILE) if p == PRICES_FILE or p.is_file()]
    table = next((t for t in tables if platform in t["platforms"]), None)
    if table is None:
        return None
    p = table["platforms"][platform]
    return Price(platform, p["offer"], float(p["usd_per_hour"]), p["source_url"], str(p.get("source_date", "")),
                 table["_path"], str(table.get("as_of", "")))


def estimate_cost(ms_per_unit: float, units: int, unit: str, price: Price) -> CostEstimate:
    seconds = ms_per_unit * units / 1000.0
    return CostEstimate(int(units), unit, seconds, seconds / 3600.0 * price.usd_per_hour, price)
