#!/usr/bin/env python3
"""A2A 1.0 interop check using the official Python SDK (a2a-sdk 1.x).

Usage: python a2a1_client.py BASE_URL   e.g. http://127.0.0.1:8080/

Resolves the agent card, lets the SDK's client factory pick the transport
(it must pick the 1.0 JSON-RPC interface and send `A2A-Version: 1.0`), then:
send, get, list, cancel, stream, and continue an input-required task.

Prints "ok: <step>" or "FAIL: <step>: <reason>" per step and a closing line
"interop-v1: N passed, M failed". Exit 0 = all passed, 1 = a step failed,
2 = usage error or the SDK could not be imported (see requirements.txt).
"""

import asyncio
import sys
import uuid

try:
    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, create_client
    from a2a.types import (
        CancelTaskRequest,
        GetTaskRequest,
        ListTasksRequest,
        Message,
        Part,
        Role,
        SendMessageRequest,
        TaskState,
    )
except ImportError as exc:  # pragma: no cover - environment problem
    print(
        f"interop-v1: cannot import the A2A Python SDK 1.x ({exc}); install it with "
        "'pip install -r tests/interop_v1/requirements.txt'",
        file=sys.stderr,
    )
    sys.exit(2)

STEP_TIMEOUT_S = 60.0
CREDIT = "why is order 4711 blocked by credit"
ASKS_BACK = "why is it blocked by credit"


def message(text, task_id=None):
    msg = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
    if task_id:
        msg.task_id = task_id
    return msg


async def last_task(client, text, task_id=None):
    """Send and return the task of the last event (and every event)."""
    events = []
    async for event in client.send_message(SendMessageRequest(message=message(text, task_id))):
        events.append(event)
    tasks = [event.task for event in events if event.HasField("task")]
    if not tasks:
        raise AssertionError(f"no task in {events}")
    task = tasks[-1]
    if task.id:
        # A stream's first event is the task; the rest are updates.
        updates = [e.status_update for e in events if e.HasField("status_update")]
        if updates:
            task.status.CopyFrom(updates[-1].status)
    return task, events


async def main(base_url):
    versions = []

    async def remember(request):
        if request.method == "POST":
            versions.append(request.headers.get("A2A-Version"))

    results = []

    async def step(name, check):
        try:
            await asyncio.wait_for(check(), STEP_TIMEOUT_S)
            results.append(True)
            print(f"ok: {name}")
        except Exception as exc:  # noqa: BLE001 - every failure is reported
            results.append(False)
            print(f"FAIL: {name}: {type(exc).__name__}: {exc}")

    async with httpx.AsyncClient(timeout=30.0, event_hooks={"request": [remember]}) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        unary = await create_client(card, ClientConfig(streaming=False, httpx_client=http))
        streaming = await create_client(card, ClientConfig(streaming=True, httpx_client=http))
        state = {}

        async def resolve_card():
            first = card.supported_interfaces[0]
            assert first.protocol_version == "1.0", first
            assert first.protocol_binding == "JSONRPC", first

        async def send():
            task, _ = await last_task(unary, CREDIT)
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, task.status
            assert versions and versions[-1] == "1.0", versions
            state["completed"] = task.id

        async def get():
            task = await unary.get_task(GetTaskRequest(id=state["completed"]))
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, task.status
            assert "4711" in task.status.message.parts[0].text

        async def list_tasks():
            listed = await unary.list_tasks(ListTasksRequest(page_size=100))
            assert state["completed"] in [task.id for task in listed.tasks], listed
            assert listed.total_size >= 1

        async def continue_input_required():
            task, _ = await last_task(unary, ASKS_BACK)
            assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, task.status
            task, _ = await last_task(unary, "4711", task.id)
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, task.status

        async def cancel():
            task, _ = await last_task(unary, ASKS_BACK)
            canceled = await unary.cancel_task(CancelTaskRequest(id=task.id))
            assert canceled.status.state == TaskState.TASK_STATE_CANCELED, canceled.status

        async def stream():
            task, events = await last_task(streaming, CREDIT)
            assert len(events) >= 3, events
            assert events[0].HasField("task"), events[0]
            assert any(e.HasField("artifact_update") for e in events), events
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, task.status

        for name, check in [
            ("resolve-card", resolve_card),
            ("send", send),
            ("get", get),
            ("list", list_tasks),
            ("continue-input-required", continue_input_required),
            ("cancel", cancel),
            ("stream", stream),
        ]:
            await step(name, check)
        await unary.close()
        await streaming.close()

    passed = sum(results)
    print(f"interop-v1: {passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1])))
