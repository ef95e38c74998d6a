"""How prime_nb's reading of a file differs from the agent's own, recorded in ``.agent.json``.

A ``NAME.agent.json`` beside a session file is what the agent's ``SessionManager`` read
from it (``fixtures/agent-written/README.md`` says what each field holds). These helpers
list every difference, field by field, so a test can say exactly what went wrong: for
the context at one leaf (``context_differences``) and for the leaf, the entries, the name,
the labels and the tree (``reading_differences``).

``ids`` maps the agent's entry ids to prime_nb's: the same ids, except for a version 1
file, where the agent makes random ones when it migrates.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

import prime_nb

ABSENT = "<absent>"


def as_agent_model(context: prime_nb.Context) -> dict[str, Any] | None:
    """prime_nb's model as the agent writes it; the agent's empty model ``{}`` (an
    assistant message that named none) and its ``null`` (none yet) both read as None."""
    if context.provider is None and context.model is None:
        return None
    return {"provider": context.provider, "modelId": context.model}


def agent_model(model: dict[str, Any] | None) -> dict[str, Any] | None:
    if not model:
        return None
    return {"provider": model.get("provider"), "modelId": model.get("modelId")}


def message_differences(
    ours: dict[str, Any], theirs: dict[str, Any], ids: dict[str, str]
) -> list[str]:
    """Every field of one context message that differs (prime_nb's ``entry_id`` is the
    agent's ``entryId``)."""
    theirs = dict(theirs)
    ours = dict(ours)
    wrong = []
    their_entry = ids.get(theirs.pop("entryId"), "<not in the file>")
    our_entry = ours.pop("entry_id", None)
    ours.pop("entry_ids", None)  # spec dialect only: the entries merged into one turn
    if our_entry != their_entry:
        wrong.append(f"entryId: prime_nb {our_entry!r}, agent {their_entry!r}")
    for key in sorted(set(ours) | set(theirs)):
        mine, agents = ours.get(key, ABSENT), theirs.get(key, ABSENT)
        if mine != agents or type(mine) is not type(agents):
            wrong.append(f"{key}: prime_nb {mine!r:.200}, agent {agents!r:.200}")
    return wrong


def context_differences(
    session: prime_nb.Session, reading: dict[str, Any], agent_leaf: str, ids: dict[str, str]
) -> list[str]:
    """prime_nb's context at ``agent_leaf`` against the agent's: leaf, model, thinking
    level, service tier, and every field of every message."""
    expected = reading["contexts"][agent_leaf]
    context = session.context(ids[agent_leaf])
    wrong: list[str] = []
    if context.leaf_id != ids[expected["leafId"]]:
        wrong.append(f"leafId: prime_nb {context.leaf_id}, agent {expected['leafId']}")
    if as_agent_model(context) != agent_model(expected["model"]):
        wrong.append(f"model: prime_nb {as_agent_model(context)}, agent {expected['model']}")
    if context.thinking_level != expected["thinkingLevel"]:
        wrong.append(f"thinkingLevel: prime_nb {context.thinking_level}, agent {expected}")
    if context.service_tier != expected["serviceTier"]:
        wrong.append(f"serviceTier: prime_nb {context.service_tier}, agent {expected}")
    if len(context) != len(expected["messages"]):
        wrong.append(f"{len(context)} messages, the agent has {len(expected['messages'])}")
    for n, (ours, theirs) in enumerate(zip(context, expected["messages"], strict=False)):
        wrong.extend(
            f"message {n} ({theirs['role']}) {problem}"
            for problem in message_differences(ours, theirs, ids)
        )
    return wrong


def reading_differences(
    session: prime_nb.Session, reading: dict[str, Any], ids: dict[str, str]
) -> list[str]:
    """The leaf, the entries (the agent has a context for each), the name, the labels
    with their times, the roots, every entry's children and the leaves."""
    wrong = []

    def differ(what: str, ours: object, theirs: object) -> None:
        if ours != theirs:
            wrong.append(f"{what}: prime_nb {ours!r:.300}, agent {theirs!r:.300}")

    differ("leafId", session.leaf_id, ids.get(reading["leafId"]))
    differ("entries", sorted(session.entries.index), sorted(ids[k] for k in reading["contexts"]))
    differ("name", session.name, reading["name"])
    differ("labels", session.labels, {ids[k]: v for k, v in reading["labels"].items()})
    stamps = {ids[k]: pd.Timestamp(v) for k, v in reading["labelTimestamps"].items()}
    differ("labelTimestamps", dict(session.label_table["timestamp"]), stamps)
    tree = reading["tree"]
    depths = session.entries["depth"]
    roots = [r for r in session.entries.index if depths.at[r] == 0]
    differ("roots", roots, [ids[r] for r in tree["roots"]])
    for parent, children in tree["children"].items():
        if ids[parent] in session.entries.index:  # else "entries" says it is missing
            ours = session.children(ids[parent])
            differ(f"children of {parent}", ours, [ids[c] for c in children])
    differ("leaves", sorted(session.leaves.index), sorted(ids[leaf] for leaf in tree["leaves"]))
    return wrong
