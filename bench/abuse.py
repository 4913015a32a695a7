#!/usr/bin/env python3
"""One authenticated caller abusing the instance as fast as it can.

Usage: abuse.py PORT PID TOKEN SECONDS [THREADS [DATA_DIR [KINDS]]]

THREADS loops, each as the same caller (one bearer TOKEN), send the largest
message the service accepts (16 KiB as JSON) in turn as: a new waiting task
("hello …", the open-task bound refuses it past 100), a follow-up into the
caller's latest waiting task (refused once the task is full), and a question
that finishes (a new finished task each time); with KINDS "finishing", only
the question that finishes, and with "finishing-random" that question
padded with random words (base64 of random bytes: LZ4 does not shrink it)
instead of repeated ones. Every second the service's RSS (VmRSS of PID)
is sampled, and the bytes of the files in DATA_DIR (the SQLite file and its
WAL); prints the series, the peaks, and how the requests were answered.
Loopback only.
"""
import base64
import collections
import http.client
import json
import os
import sys
import threading
import time
import uuid

port, pid, token, seconds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
threads = int(sys.argv[5]) if len(sys.argv) > 5 else 8
data_dir = sys.argv[6] if len(sys.argv) > 6 else None
kinds = sys.argv[7] if len(sys.argv) > 7 else "mixed"
only_finishing = kinds.startswith("finishing")
random_text = kinds == "finishing-random"
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


def random_question():
    words = base64.b64encode(os.urandom(len(QUESTION))).decode().replace("/", " ").replace("+", " ")
    return QUESTION[:26] + words[:len(QUESTION) - 26]


def rss_kb():
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def data_mb():
    if not data_dir:
        return 0
    total = 0
    for folder, _, files in os.walk(data_dir):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:  # the WAL may go between listing and reading
                pass
    return total // (1024 * 1024)


def worker():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
    waiting = None
    turn = 0
    while time.monotonic() < stop:
        turn += 1
        kind = "finishing" if only_finishing else ("new", "follow-up", "finishing")[turn % 3]
        if kind == "follow-up" and waiting:
            m = message(HELLO, waiting)
        elif kind == "finishing":
            m = message(random_question() if random_text else QUESTION)
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
    series.append((round(time.monotonic() - start), rss_kb() // 1024, data_mb()))
    time.sleep(1)
for w in workers:
    w.join()
series.append((round(time.monotonic() - start), rss_kb() // 1024, data_mb()))
print("RSS MB by second: " + " ".join("%d:%d" % (at, rss) for at, rss, _ in series))
print("peak RSS MB: %d" % max(rss for _, rss, _ in series))
if data_dir:
    print("data MB by second: " + " ".join("%d:%d" % (at, data) for at, _, data in series))
    print("peak data MB: %d" % max(data for _, _, data in series))
print("requests: %d" % sum(answers.values()))
for outcome, count in sorted(answers.items()):
    print("  %s: %d" % (outcome, count))
