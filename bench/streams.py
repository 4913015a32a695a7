#!/usr/bin/env python3
"""Many streams, idle connections and a burst of sends: how long /health
takes, what is shed, and that nothing answered is lost.

Usage: streams.py PORT PID STREAMS BURST SENDS HOLD

Waiting tasks (input-required) are created; STREAMS A2A 1.0
SubscribeToTask streams on them are opened, four per task (each one
connection, which stays open while its task waits), then BURST connections
that send nothing. While they hold, SENDS message/send calls go out at once,
each on a connection of its own, and /health is timed on fresh connections
every HOLD/10 seconds until the sends are answered and HOLD has passed.
Every send answered 200 is read back by its task id (tasks/get, 16 at a
time, a shed read tried again). Then
everything is closed and /health is asked how many streams are still open.
Prints one RESULT line: the streams' answers (200, 429, other, none within
3 s), the burst connections made, the /health times (ms: worst, median, all;
-1 = no answer within 5 s), the sends' answers (200, 503 shed, 429, other,
none within 30 s) and their slowest answer, how many answered tasks read
back, the streams still open 3 s after the close, and the RSS before and
during (kB). Loopback only.
"""
import asyncio
import json
import sys
import time

port, pid = int(sys.argv[1]), sys.argv[2]
streams, burst, sends, hold = (int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
                               float(sys.argv[6]))
HOST = "127.0.0.1"


def rss_kb():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def post_bytes(body, v1=False):
    body = json.dumps(body).encode()
    head = (
        f"POST / HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        + ("A2A-Version: 1.0\r\n" if v1 else "")
        + "Connection: close\r\n\r\n"
    )
    return head.encode() + body


async def call(raw, within):
    """One request on a fresh connection: (status, body, ms); status -1 when
    nothing answered within `within` seconds."""
    started = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), within)
        writer.write(raw)
        answer = await asyncio.wait_for(reader.read(), within)
        writer.close()
    except (asyncio.TimeoutError, OSError):
        return -1, b"", round((time.monotonic() - started) * 1000)
    ms = round((time.monotonic() - started) * 1000)
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    if b"chunked" in head.lower():
        body = b"".join(body.split(b"\r\n")[1::2])
    return status, body, ms


async def send(text):
    """One message/send on a connection of its own: (status, the answer's
    JSON when 200, ms)."""
    status, body, ms = await call(
        post_bytes({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                    "params": {"message": {"kind": "message", "messageId": str(time.time_ns()),
                                           "role": "user", "parts": [{"kind": "text", "text": text}]}}}),
        30,
    )
    return status, (json.loads(body) if status == 200 else {}), ms


async def stored(task_id, readers):
    """Whether tasks/get reads the task back: a few readers at a time, a
    shed read (503) tried again after its Retry-After."""
    async with readers:
        for _ in range(10):
            status, body, _ = await call(post_bytes({"jsonrpc": "2.0", "id": 3,
                                                     "method": "tasks/get",
                                                     "params": {"id": task_id}}), 10)
            if status != 503:
                return status == 200 and json.loads(body).get("result", {}).get("id") == task_id
            await asyncio.sleep(1)
    return False


async def subscribe(task_id, held):
    """Open one stream; keep its connection in `held` when it is open."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 3)
        writer.write(post_bytes({"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask",
                                 "params": {"id": task_id}}, v1=True))
        line = await asyncio.wait_for(reader.readline(), 3)
    except (asyncio.TimeoutError, OSError):
        return "none"
    status = line.split(b" ")[1].decode() if line.startswith(b"HTTP/") else "other"
    if status == "200":
        held.append(writer)
    else:
        writer.close()
    return status if status in ("200", "429") else "other"


async def idle(held):
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 3)
    except (asyncio.TimeoutError, OSError):
        return False
    held.append(writer)
    return True


async def health():
    status, body, ms = await call(f"GET /health HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode(), 5)
    return (ms if status == 200 else -1), (json.loads(body) if status == 200 else {})


async def main():
    rss_before = rss_kb()
    # Four streams on each task (server.streams_per_task): the instance
    # bound is what refuses the rest.
    tasks = []
    for _ in range(max(1, -(-streams // 4))):
        _, task, _ = await send("what is wrong with my order?")
        task = task.get("result", {})
        if task.get("status", {}).get("state") != "input-required":
            print(f"the task does not wait: {json.dumps(task)[:300]}", file=sys.stderr)
            return 1
        tasks.append(task["id"])
    held = []
    answers = await asyncio.gather(*(subscribe(tasks[i // 4], held) for i in range(streams)))
    made = sum(await asyncio.gather(*(idle(held) for _ in range(burst))))
    await asyncio.sleep(0.2)
    # The sends all at once; /health sampled while they run and HOLD lasts.
    burst_sends = asyncio.gather(*(send(f"Order {4711 + i % 40}: Delivery block: why?")
                                   for i in range(sends)))
    times = []
    started = time.monotonic()
    while not burst_sends.done() or time.monotonic() - started < hold:
        ms, _ = await health()
        times.append(ms)
        await asyncio.sleep(hold / 10)
    sent = await burst_sends
    rss_during = rss_kb()
    for writer in held:
        writer.close()
    await asyncio.sleep(3)
    _, after = await health()
    answered = [task["result"]["id"] for status, task, _ in sent
                if status == 200 and "id" in task.get("result", {})]
    readers = asyncio.Semaphore(16)
    read_back = sum(await asyncio.gather(*(stored(task_id, readers) for task_id in answered)))
    statuses = [status for status, _, _ in sent]
    worst_send = max((ms for status, _, ms in sent if status > 0), default=-1)
    answered_times = sorted(t for t in times if t >= 0)
    worst = max(times) if len(answered_times) == len(times) else -1
    median = answered_times[len(answered_times) // 2] if answered_times else -1
    print(
        "RESULT"
        f" streams_200={answers.count('200')} streams_429={answers.count('429')}"
        f" streams_other={answers.count('other')} streams_none={answers.count('none')}"
        f" burst_connected={made}"
        f" health_worst_ms={worst} health_median_ms={median} health_samples={len(times)}"
        f" health_unanswered={len(times) - len(answered_times)}"
        f" health_ms={','.join(map(str, times))}"
        f" sends={sends} sends_200={statuses.count(200)} sends_503={statuses.count(503)}"
        f" sends_429={statuses.count(429)}"
        f" sends_other={sum(1 for s in statuses if s not in (200, 503, 429, -1))}"
        f" sends_none={statuses.count(-1)} send_worst_ms={worst_send}"
        f" answered_stored={read_back}/{len(answered)}"
        f" streams_open_after_close={after.get('streams', {}).get('open', 'unknown')}"
        f" rss_before_kb={rss_before} rss_during_kb={rss_during}"
    )
    return 0 if read_back == len(answered) else 1


sys.exit(asyncio.run(main()))
