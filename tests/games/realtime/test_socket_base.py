"""``sent_in_time``: a socket's send under a deadline that is armed only when the send has
to wait (socket_base.py). The socket tests cover it end to end: a client that stops reading
is closed (test_sockets.py)."""

from __future__ import annotations

import asyncio

import pytest

from games.realtime import socket_base
from games.realtime.socket_base import sent_in_time

pytestmark = pytest.mark.asyncio


async def _sent_at_once(log: list[str]) -> None:
    log.append("sent")


async def _sent_after(gate: asyncio.Event, log: list[str]) -> None:
    await gate.wait()
    log.append("sent")


async def test_a_send_that_does_not_wait_arms_no_deadline(monkeypatch):
    def no_timer(_seconds):
        raise AssertionError("a deadline was armed for a send that did not wait")

    monkeypatch.setattr(socket_base.asyncio, "timeout", no_timer)
    log: list[str] = []
    assert await sent_in_time(_sent_at_once(log), seconds=1) is True
    assert log == ["sent"]


async def test_a_send_that_waits_less_than_its_deadline_is_sent():
    gate, log = asyncio.Event(), []
    asyncio.get_running_loop().call_later(0.05, gate.set)
    assert await sent_in_time(_sent_after(gate, log), seconds=2) is True
    assert log == ["sent"]


async def test_a_send_that_waits_past_its_deadline_is_given_up():
    gate, log = asyncio.Event(), []
    started = asyncio.get_running_loop().time()
    assert await sent_in_time(_sent_after(gate, log), seconds=0.1) is False
    assert 0.09 <= asyncio.get_running_loop().time() - started < 1.5
    gate.set()
    await asyncio.sleep(0)
    assert log == []  # the send was stopped, not left running


async def test_a_failing_send_raises_whether_it_waited_or_not():
    class Gone(Exception):
        pass

    async def fails_at_once():
        raise Gone

    async def fails_after_a_wait():
        await asyncio.sleep(0.01)
        raise Gone

    with pytest.raises(Gone):
        await sent_in_time(fails_at_once(), seconds=1)
    with pytest.raises(Gone):
        await sent_in_time(fails_after_a_wait(), seconds=1)


async def test_cancelling_the_sender_cancels_a_waiting_send():
    gate, log = asyncio.Event(), []
    cleaned: list[str] = []

    async def sends():
        try:
            await gate.wait()
            log.append("sent")
        finally:
            cleaned.append("finally")

    task = asyncio.ensure_future(sent_in_time(sends(), seconds=5))
    await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert log == [] and cleaned == ["finally"]


async def test_a_send_that_waits_more_than_once_gets_each_value():
    """The rest of the send is driven as ``await`` would drive it: each wake-up's value
    reaches it (a future's result), not only the first."""
    loop = asyncio.get_running_loop()
    first, second = loop.create_future(), loop.create_future()
    got: list[object] = []

    async def sends():
        got.append(await first)
        got.append(await second)

    loop.call_later(0.01, first.set_result, "one")
    loop.call_later(0.02, second.set_result, "two")
    assert await sent_in_time(sends(), seconds=2) is True
    assert got == ["one", "two"]


# --- dispatched_in_turn: every source through one queue --------------------------------------
class _Ended(Exception):
    pass


async def test_messages_of_every_source_are_dispatched_one_at_a_time_as_they_came():
    inbox: asyncio.Queue = asyncio.Queue()
    client: asyncio.Queue = asyncio.Queue()
    layer: asyncio.Queue = asyncio.Queue()
    dispatched: list[str] = []
    busy = []

    async def dispatch(message):
        assert not busy  # one at a time
        busy.append(message)
        await asyncio.sleep(0.001)
        busy.clear()
        dispatched.append(message)
        if message == "end":
            raise _Ended

    for message in ("c1", "c2"):
        client.put_nowait(message)
    running = asyncio.ensure_future(
        socket_base.dispatched_in_turn(inbox, [client.get, layer.get], dispatch)
    )
    await asyncio.sleep(0.02)
    layer.put_nowait("l1")
    await asyncio.sleep(0.02)
    inbox.put_nowait("beat")  # the process's own, straight into the inbox
    await asyncio.sleep(0.02)
    client.put_nowait("end")
    with pytest.raises(_Ended):
        await running
    assert dispatched == ["c1", "c2", "l1", "beat", "end"]


async def test_a_failing_source_ends_the_dispatching_and_every_source_is_cleaned_up():
    cleaned: list[str] = []

    async def fails():
        await asyncio.sleep(0.01)
        raise _Ended("the layer went away")

    async def waits():
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.append("unsubscribed")

    async def dispatch(message):
        raise AssertionError(f"nothing to dispatch, got {message!r}")

    with pytest.raises(_Ended, match="went away"):
        await socket_base.dispatched_in_turn(asyncio.Queue(), [fails, waits], dispatch)
    assert cleaned == ["unsubscribed"]
