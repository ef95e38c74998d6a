"""What the model saw at a leaf, as a table: one row per message with a token estimate."""

from __future__ import annotations

import pandas as pd

from ..session import SessionLike, as_session, context_message_text, preview
from ._common import blocks_of, estimate_tokens, message_chars
from ._schemas import SCHEMAS, conform

COLUMNS = list(SCHEMAS["context_frame"])


def context_frame(session: SessionLike, leaf_id: str | None = None) -> pd.DataFrame:
    """The context at ``leaf_id`` (default: the active leaf), one row per message.

    ``tokens_est`` is the agent's own chars/4 heuristic (see ``estimate_tokens``), so the
    last ``cumulative_tokens_est`` is the size the agent believed the context had.
    Settings in force (model, provider, thinking level, compaction) are in ``frame.attrs``.
    """
    session = as_session(session, "analysis.context_frame")
    context = session.context(leaf_id)
    rows = []
    running = 0
    for message in context:
        tokens = estimate_tokens(message)
        running += tokens
        role = str(message.get("role"))
        tools = [
            str(block.get("name"))
            for block in blocks_of(message)
            if role == "assistant" and isinstance(block, dict) and block.get("type") == "toolCall"
        ]
        if role == "toolResult":
            tools = [str(message.get("toolName"))]
        rows.append(
            {
                "entry_id": message.get("entry_id"),
                "role": role,
                "tools": ", ".join(tools),
                "chars": message_chars(message),
                "tokens_est": tokens,
                "cumulative_tokens_est": running,
                "text": preview(context_message_text(message)),
            }
        )
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame.index.name = "position"
    frame.attrs.update(
        leaf_id=context.leaf_id,
        provider=context.provider,
        model=context.model,
        thinking_level=context.thinking_level,
        compaction_id=context.compaction_id,
    )
    return conform(frame, "context_frame")
