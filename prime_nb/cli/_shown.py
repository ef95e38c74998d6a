"""How the commands spell figures: money, token counts and JSON, one way for all.

Why: a cost is a sum of floats, so it prints as ``0.47247160000000005`` unless it is
rounded where it is shown; and a token total that adds every turn's total counts the
cached context once per turn, so it must never stand without saying what it sums.
"""

from __future__ import annotations

import json
import math
from typing import Any

#: decimals of a cost in JSON: the float noise of a sum goes, no billed fraction does
#: (providers price a token in millionths of a dollar or more)
COST_DECIMALS = 10

#: the four token figures the agent's footer shows, as ``Session.summary`` names them
TOKEN_PARTS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache read", "cache_read_tokens"),
    ("cache write", "cache_write_tokens"),
)

#: what a "tokens" total is, wherever one is printed
TOKENS_SUM = "each turn's total summed, so cached context counts again on every turn"


def dollars(cost: float | None) -> str:
    """A cost as text: ``$0.4725`` (four decimals), ``-`` when unknown."""
    if cost is None or (isinstance(cost, float) and math.isnan(cost)):
        return "-"
    return f"${cost:.4f}"


def _is_cost(key: str) -> bool:
    return key == "cost" or key.endswith("_cost")


def rounded_costs(value: Any) -> Any:
    """``value`` (dicts and lists of JSON values) with every ``cost`` / ``*_cost`` float
    rounded to :data:`COST_DECIMALS`."""
    if isinstance(value, dict):
        return {
            key: round(item, COST_DECIMALS)
            if _is_cost(str(key)) and isinstance(item, float) and math.isfinite(item)
            else rounded_costs(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [rounded_costs(item) for item in value]
    return value


def json_text(value: Any) -> str:
    """``value`` as indented JSON, costs rounded, ``/`` written as itself (pandas'
    ``to_json`` writes ``\\/``)."""
    return json.dumps(rounded_costs(value), indent=2, default=str)


def records(frame: Any) -> list[dict[str, Any]]:
    """A DataFrame's rows as JSON values (ISO times, missing values as null)."""
    return list(json.loads(frame.to_json(orient="records", date_format="iso")))
