"""`Feed`: frames handed to a direct writer while nothing waits, queued in order when it is busy."""

from __future__ import annotations

import pytest

from prime_jupyter.server.http.feeds import Feed


@pytest.mark.asyncio
async def test_a_direct_writer_takes_frames_until_busy_and_order_is_kept() -> None:
    taken: list[int] = []
    busy = False

    def take(item: int) -> bool:
        if busy:
            return False
        taken.append(item)
        return True

    feed: Feed[int] = Feed()
    feed.direct(take)
    feed.put(1)
    busy = True
    feed.put(2)
    busy = False
    feed.put(3)  # 2 still waits: 3 must not overtake it
    assert taken == [1]
    assert await feed.next_batch() == [2, 3]
    feed.put(4)
    assert taken == [1, 4]
    feed.close()
    feed.put(5)
    assert taken == [1, 4] and await feed.next_batch() is None
