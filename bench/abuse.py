#!/usr/bin/env python3
"""One authenticated caller abusing the instance as fast as it can.

Usage: abuse.py PORT PID TOKEN SECONDS [THREADS]

THREADS loops, each as the same caller (one bearer TOKEN), send the largest
message the service accepts (16 KiB as JSON) in turn as: a new waiting task
("hello …", the open-task bound refuses it past 100), a follow-up into the
caller's latest waiting task (refused once the task is full), and a question
that finishes (a new finished task each time). Every second the service's
RSS (VmRSS of PID) is sampled; prints the series, the peak, and how the
requests were answered. Loopback only.
"""
import collections
import http.client
import json
import sys
import threading
import time
import uuid

port, pid, token, seconds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
threads = int(sys.argv[5]) if len(sys.argv) > 5 else 8
SIZE = 16 * 1024
answers = collections.Counter()
lock = threading.Lock()
stop = time.monotonic() + seconds


def message(text, task_id=None):
    m = {"kind": "message", "role": "user", "messageId": str(uuid.uuid4()),
         "parts": [{"kind": "text", "text": text}]}
    if task_id:
        m["taskId"] = task_id
    return m


def largest(prefix):
    overhead = len(json.dumps(message("", str(uuid.uuid4())), separators=(",", ":")))
    words = " lorem ipsum dolor"
    room = SIZE - overhead - len(prefix) - 8
    return prefix + (words * (room // len(words) + 1))[:room]


HELLO = largest("hello")
QUESTION = largest("why is order 4711 blocked")


def rss_kb():
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def worker():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
    waiting = None
    turn = 0
    while time.monotonic() < stop:
        turn += 1
        kind = ("new", "follow-up", "finishing")[turn % 3]
        if kind == "follow-up" and waiting:
            m = message(HELLO, waiting)
        elif kind == "finishing":
            m = message(QUESTION)
        else:
            kind, m = "new", message(HELLO)
        body = json.dumps({"jsonrpc": "2.0", "id": turn, "method": "message/send",
                           "params": {"message": m}}, separators=(",", ":"))
        try:
            conn.request("POST", "/", body, headers)
            response = conn.getresponse()
            answer = json.loads(response.read())
        except Exception as error:  # a refused connection counts, then retries
            with lock:
                answers["%s: %s" % (kind, type(error).__name__)] += 1
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            continue
        if "result" in answer:
            state = answer["result"]["status"]["state"]
            if state == "input-required":
                waiting = answer["result"]["id"]
            outcome = state
        elif isinstance(answer.get("error"), dict):
            outcome = "error %s" % answer["error"]["code"]
        else:
            outcome = "HTTP %d %s" % (response.status, answer.get("error"))
            if kind == "follow-up":
                waiting = None
        with lock:
            answers["%s: %s" % (kind, outcome)] += 1


workers = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
for w in workers:
    w.start()
series = []
start = time.monotonic()
while time.monotonic() < stop:
    series.append((round(time.monotonic() - start), rss_kb() // 1024))
    time.sleep(1)
for w in workers:
    w.join()
series.append((round(time.monotonic() - start), rss_kb() // 1024))
print("RSS MB by second: " + " ".join("%d:%d" % point for point in series))
print("peak RSS MB: %d" % max(mb for _, mb in series))
print("requests: %d" % sum(answers.values()))
for outcome, count in sorted(answers.items()):
    print("  %s: %d" % (outcome, count))
