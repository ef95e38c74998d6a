"""The loader's per-entry extraction: shortcuts that must equal the plain way exactly."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from prime_nb.format._dialect import iso_timestamp
from prime_nb.session._columns import spec_timestamp_ms, timestamp_ms

MS_9999 = 253_402_300_799_999
EXACT = 2**32 * 1000 - 1  # the shortcut's range


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70),
        st.integers(min_value=-40_000_000_000_000, max_value=MS_9999 + 10),
        st.integers(min_value=-EXACT - 5, max_value=EXACT + 5),
        st.integers(min_value=1_500_000_000_000, max_value=2_000_000_000_000),
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(min_value=-40_000_000_000_000, max_value=MS_9999 + 10),
        st.booleans(),
        st.none(),
        st.text(max_size=30),
    )
)
@example(1767607455267)
@example(1767607455267.6)
@example(-1.5)
@example(MS_9999)
@example(MS_9999 + 1)
@example(-30_610_224_000_000)  # the first ms of year 1000
@example(-30_610_224_000_001)  # the last of year 999: written without four digits
@example("2026-01-05T10:00:00.000Z")
@example(EXACT)
@example(EXACT + 1)
@example(-EXACT)
@example(235_241_592_237_219)  # year 9424: the text is a ms off, and so must the time be
def test_spec_times_read_as_their_iso_text(value: Any) -> None:
    """A spec entry's ms read directly equal the ms read back from the ISO text the
    dialect mapping writes for them (the loader skips writing that text)."""
    want = timestamp_ms(iso_timestamp(value))
    got = spec_timestamp_ms(value)
    assert got == want or (math.isnan(got) and math.isnan(want))
