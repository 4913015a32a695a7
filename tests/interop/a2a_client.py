#!/usr/bin/env python3
"""A2A 0.3.0 interop check using the official Python SDK (a2a-sdk 0.3.x).

Usage: python a2a_client.py BASE_URL [--streaming]   e.g. http://127.0.0.1:8080/

Resolves the agent card from BASE_URL/.well-known/agent-card.json, then talks
JSON-RPC to the URL the card advertises in `url`, using the SDK's
ClientFactory client:

  default       ClientConfig(streaming=False, polling=False): message/send,
                tasks/get, tasks/cancel and error codes (7 steps).
  --streaming   ClientConfig(streaming=True, polling=False): message/stream
                over SSE; the card must advertise capabilities.streaming
                (3 steps: card, stream-completed, stream-input-required).

Prints "ok: <step>" or "FAIL: <step>: <reason>" per step and a closing line
"interop: N passed, M failed". Exit 0 = all passed, 1 = a step failed,
2 = usage error or the SDK could not be imported (see requirements.txt).
"""

import asyncio
import sys
import uuid

try:
    from importlib.metadata import version as _pkg_version

    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.client.errors import (
        A2AClientError,
        A2AClientHTTPError,
        A2AClientJSONRPCError,
    )
    from a2a.types import (
        DataPart,
        Message,
        Part,
        Role,
        Task,
        TaskArtifactUpdateEvent,
        TaskIdParams,
        TaskQueryParams,
        TaskState,
        TaskStatusUpdateEvent,
        TextPart,
    )
except ImportError as exc:  # pragma: no cover - environment problem
    print(
        f"interop: cannot import the A2A Python SDK ({exc}); install it with "
        "'pip install -r tests/interop/requirements.txt'",
        file=sys.stderr,
    )
    sys.exit(2)

HTTP_TIMEOUT_S = 30.0
STEP_TIMEOUT_S = 60.0
# after a status-update with final=true the server must close the SSE stream
STREAM_CLOSE_GRACE_S = 5.0

TASK_NOT_FOUND = -32001
TASK_NOT_CANCELABLE = -32002


class StepFailed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise StepFailed(msg)


def sent_kind(model):
    """True if the server explicitly sent `kind` (the SDK would default it)."""
    return "kind" in model.model_fields_set


def texts(parts):
    return [p.root.text for p in parts or [] if isinstance(p.root, TextPart)]


def user_message(text):
    return Message(
        role=Role.user,
        parts=[Part(root=TextPart(text=text))],
        message_id=str(uuid.uuid4()),
    )


async def send_for_task(client, text):
    """message/send (blocking, non-streaming); the server must answer a Task."""
    events = [ev async for ev in client.send_message(user_message(text))]
    check(len(events) == 1, f"expected exactly 1 result from message/send, got {len(events)}")
    ev = events[0]
    check(not isinstance(ev, Message), f"expected a Task, server answered a Message: {ev!r}")
    task, update = ev  # non-streaming: (Task, None)
    check(isinstance(task, Task), f"expected a Task, got {type(task).__name__}")
    check(update is None, f"unexpected update event in non-streaming mode: {update!r}")
    check(sent_kind(task), 'Task result is missing "kind": "task"')
    return task


def describe(item):
    """Short label for one item yielded by the streaming client."""
    if isinstance(item, Message):
        return "message"
    task, update = item
    if update is None:
        return f"task({task.status.state.value})"
    if isinstance(update, TaskStatusUpdateEvent):
        return f"status-update({update.status.state.value}{', final' if update.final else ''})"
    if isinstance(update, TaskArtifactUpdateEvent):
        kinds = ",".join(p.root.kind for p in update.artifact.parts)
        return f"artifact-update({kinds})"
    return type(update).__name__


async def stream_for_task(client, text):
    """message/stream; collect every (Task, update) the SDK yields until the
    server closes the stream. In a2a-sdk 0.3.x each item is a tuple
    (aggregated Task, event): event is None for a streamed Task, else the
    TaskStatusUpdateEvent / TaskArtifactUpdateEvent; the Task is the SAME
    client-side object each time, updated in place - so labels are taken at
    yield time. Returns (final task, [labels], [update events])."""
    agen = client.send_message(user_message(text))
    items, labels, updates = [], [], []
    final_seen = False
    try:
        while True:
            try:
                if final_seen:
                    item = await asyncio.wait_for(anext(agen), STREAM_CLOSE_GRACE_S)
                else:
                    item = await anext(agen)
            except StopAsyncIteration:
                break
            except asyncio.TimeoutError:
                raise StepFailed(
                    f"server did not close the SSE stream within {STREAM_CLOSE_GRACE_S}s "
                    f"after the final=true status-update (events: {labels})"
                ) from None
            labels.append(describe(item))
            check(not isinstance(item, Message),
                  f"expected Task events, server streamed a Message: {item!r}")
            check(not final_seen, f"event after the final=true status-update: {labels}")
            items.append(item)
            _task, update = item
            if update is not None:
                updates.append(update)
                if isinstance(update, TaskStatusUpdateEvent) and update.final:
                    final_seen = True
    finally:
        try:
            await agen.aclose()
        except Exception:  # noqa: BLE001 - already failing / closed
            pass
    print(f"  stream: {' -> '.join(labels)}")
    check(items, "stream ended without any event")
    task = items[-1][0]
    check(isinstance(task, Task), f"expected a Task, got {type(task).__name__}")
    if items[0][1] is None:  # first event was a Task: the aggregate is that object
        check(sent_kind(task), 'streamed Task is missing "kind": "task"')
    for u in updates:
        check(sent_kind(u), f"update event without \"kind\": {u!r}")
    return task, labels, updates


async def expect_rpc_error(coro, code, what):
    try:
        result = await coro
    except A2AClientJSONRPCError as e:
        got = e.error.code
        check(got == code, f"{what}: expected JSON-RPC error {code}, got {got} ({e.error.message!r})")
        return e.error
    except A2AClientHTTPError as e:
        raise StepFailed(
            f"{what}: expected JSON-RPC error {code} but got HTTP {e.status_code} "
            f"(JSON-RPC errors must be sent with HTTP 200): {e.message}"
        ) from e
    raise StepFailed(f"{what}: expected JSON-RPC error {code}, got result {result!r}")


class Interop:
    def __init__(self, base_url, streaming=False):
        self.base_url = base_url
        self.streaming = streaming
        self.http = None
        self.card = None
        self.client = None
        self.pending_task_id = None

    async def step_agent_card(self):
        resolver = A2ACardResolver(self.http, self.base_url)  # GET /.well-known/agent-card.json
        card = await resolver.get_agent_card()
        skill_ids = [s.id for s in card.skills]
        print(
            f"  card: name={card.name!r} protocolVersion={card.protocol_version!r} "
            f"url={card.url!r} skills={skill_ids}"
        )
        # the SDK defaults protocol_version to "0.3.0" when absent: require it was sent
        check("protocol_version" in card.model_fields_set, "card has no protocolVersion field")
        check(card.protocol_version == "0.3.0", f"protocolVersion is {card.protocol_version!r}, want '0.3.0'")
        check(len(skill_ids) >= 3, f"expected at least 3 skills, got {len(skill_ids)}")
        if self.streaming:
            # the SDK silently falls back to message/send when this is false
            check(card.capabilities.streaming is True,
                  f"capabilities.streaming is {card.capabilities.streaming!r}, want true")
        self.card = card
        factory = ClientFactory(
            ClientConfig(streaming=self.streaming, polling=False, httpx_client=self.http)
        )
        self.client = factory.create(card)  # JSON-RPC transport posting to card.url

    async def step_send_completed(self):
        task = await send_for_task(self.client, "why is order 4711 blocked by credit")
        state = task.status.state
        check(state == TaskState.completed, f"state is {state.value!r}, want 'completed'")
        check(task.status.message is not None, "status.message missing")
        answer = " ".join(texts(task.status.message.parts))
        check("50700" in answer and "50000" in answer,
              f"status.message text lacks 50700/50000: {answer!r}")
        arts = task.artifacts or []
        check(len(arts) >= 2, f"expected at least 2 artifacts, got {len(arts)}")
        check(texts(arts[0].parts), f"first artifact has no text part: {arts[0]!r}")
        proposals = [
            p.root.data
            for a in arts[1:]
            for p in a.parts
            if isinstance(p.root, DataPart)
        ]
        check(proposals, "no data part in artifacts after the first")
        check(any(d.get("action") == "request_credit_review" for d in proposals),
              f"no data part with action=request_credit_review: {proposals!r}")
        for a in arts:
            for p in a.parts:
                check(sent_kind(p.root), f"artifact part without \"kind\": {p.root!r}")
        print(f"  task {task.id}: {answer!r}")

    async def step_send_input_required(self):
        task = await send_for_task(self.client, "why is it blocked by credit")
        state = task.status.state
        check(state == TaskState.input_required, f"state is {state.value!r}, want 'input-required'")
        self.pending_task_id = task.id
        print(f"  task {task.id}: input-required")

    async def step_get_task(self):
        check(self.pending_task_id, "no input-required task from the previous step")
        task = await self.client.get_task(
            TaskQueryParams(id=self.pending_task_id, history_length=1)
        )
        check(task.id == self.pending_task_id, f"tasks/get returned id {task.id!r}")
        state = task.status.state
        check(state == TaskState.input_required, f"state is {state.value!r}, want 'input-required'")
        hist = task.history or []
        check(len(hist) <= 1, f"historyLength=1 but got {len(hist)} history messages")

    async def step_cancel(self):
        check(self.pending_task_id, "no input-required task from an earlier step")
        task = await self.client.cancel_task(TaskIdParams(id=self.pending_task_id))
        check(task.id == self.pending_task_id, f"tasks/cancel returned id {task.id!r}")
        state = task.status.state
        check(state == TaskState.canceled, f"state is {state.value!r}, want 'canceled'")

    async def step_cancel_again(self):
        check(self.pending_task_id, "no input-required task from an earlier step")
        await expect_rpc_error(
            self.client.cancel_task(TaskIdParams(id=self.pending_task_id)),
            TASK_NOT_CANCELABLE,
            "second tasks/cancel",
        )

    async def step_get_unknown(self):
        await expect_rpc_error(
            self.client.get_task(TaskQueryParams(id=str(uuid.uuid4()))),
            TASK_NOT_FOUND,
            "tasks/get on unknown id",
        )

    async def step_stream_completed(self):
        task, labels, updates = await stream_for_task(
            self.client, "why is order 4711 blocked by credit"
        )
        state = task.status.state
        check(state == TaskState.completed, f"final state is {state.value!r}, want 'completed'")
        check(task.status.message is not None, "final status.message missing")
        answer = " ".join(texts(task.status.message.parts))
        check("50700" in answer, f"final status.message text lacks 50700: {answer!r}")
        statuses = [u for u in updates if isinstance(u, TaskStatusUpdateEvent)]
        check(statuses, f"no status-update events: {labels}")
        last = statuses[-1]
        check(last.status.state == TaskState.completed and last.final,
              f"last status-update is {last.status.state.value!r} final={last.final}, "
              "want 'completed' final=true")
        check(any(s.status.state == TaskState.working for s in statuses[:-1]),
              f"no status-update 'working' before completion: {labels}")
        art_events = [u for u in updates if isinstance(u, TaskArtifactUpdateEvent)]
        check(len(art_events) >= 2, f"expected at least 2 artifact-update events, got {len(art_events)}")
        arts = task.artifacts or []
        check(len(arts) >= 2,
              f"aggregated task has {len(arts)} artifacts from {len(art_events)} artifact-updates "
              "(the SDK replaces artifacts with the same artifactId unless append=true)")
        for a in arts:
            for p in a.parts:
                check(sent_kind(p.root), f"artifact part without \"kind\": {p.root!r}")
        check(any("50700" in t for a in arts for t in texts(a.parts)),
              f"no text artifact containing 50700: {arts!r}")
        proposals = [p.root.data for a in arts for p in a.parts if isinstance(p.root, DataPart)]
        check(any(d.get("action") == "request_credit_review" for d in proposals),
              f"no data artifact with action=request_credit_review: {proposals!r}")
        print(f"  task {task.id}: {answer!r}")

    async def step_stream_input_required(self):
        task, labels, updates = await stream_for_task(self.client, "why is it blocked by credit")
        state = task.status.state
        check(state == TaskState.input_required,
              f"stream ended in state {state.value!r}, want 'input-required'")
        print(f"  task {task.id}: input-required")

    async def run(self):
        if self.streaming:
            steps = [
                ("agent card", self.step_agent_card, False),
                ("stream-completed", self.step_stream_completed, True),
                ("stream-input-required", self.step_stream_input_required, True),
            ]
        else:
            steps = self.request_response_steps()
        return await self.run_steps(steps)

    def request_response_steps(self):
        return [
            ("agent card", self.step_agent_card, False),
            ("message/send completed", self.step_send_completed, True),
            ("message/send input-required", self.step_send_input_required, True),
            ("tasks/get input-required", self.step_get_task, True),
            ("tasks/cancel", self.step_cancel, True),
            ("tasks/cancel again -32002", self.step_cancel_again, True),
            ("tasks/get unknown -32001", self.step_get_unknown, True),
        ]

    async def run_steps(self, steps):
        passed, failures = 0, []
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S, trust_env=False) as http:
            self.http = http
            for name, fn, needs_client in steps:
                try:
                    if needs_client and self.client is None:
                        raise StepFailed("skipped: agent card step failed")
                    await asyncio.wait_for(fn(), STEP_TIMEOUT_S)
                except StepFailed as e:
                    failures.append((name, str(e)))
                except asyncio.TimeoutError:
                    failures.append((name, f"timed out after {STEP_TIMEOUT_S}s"))
                except A2AClientError as e:
                    failures.append((name, f"{type(e).__name__}: {e}"))
                except Exception as e:  # noqa: BLE001 - report anything as a failure
                    failures.append((name, f"unexpected {type(e).__name__}: {e}"))
                else:
                    passed += 1
                    print(f"ok: {name}", flush=True)
                    continue
                print(f"FAIL: {name}: {failures[-1][1]}", flush=True)
        return passed, failures


def main(argv):
    args = argv[1:]
    streaming = "--streaming" in args
    args = [a for a in args if a != "--streaming"]
    if len(args) != 1 or not args[0].startswith(("http://", "https://")):
        print("usage: python a2a_client.py BASE_URL [--streaming]   (e.g. http://127.0.0.1:8080/)",
              file=sys.stderr)
        return 2
    mode = " (streaming)" if streaming else ""
    print(f"a2a-sdk {_pkg_version('a2a-sdk')} against {args[0]}{mode}", flush=True)
    passed, failures = asyncio.run(Interop(args[0], streaming=streaming).run())
    print(f"interop: {passed} passed, {len(failures)} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
