#!/usr/bin/env python3
"""Oversized push configs and JSON-RPC ids/methods: RSS, store, log bytes.

Usage: oversize.py PORT PID LOG DATA_DIR CONFIGS TOKEN_BYTES CALLS

1. A task that waits (an approval question, role credit_manager), then
   CONFIGS `tasks/pushNotificationConfig/set` on it, each a new config id
   with a token of TOKEN_BYTES; then one `list` of its configs. The same
   on a finished task (a question answered at once).
2. CALLS calls with a 1 MB string `id`, then CALLS with a 1 MB `method`,
   on one connection; the log's growth is what they wrote.
Loopback only.
"""
import collections
import http.client
import json
import os
import sys
import threading
import time

port, pid, log_path, data_dir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
configs, token_bytes, calls = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])


def rss_mib():
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def folder_mib(path):
    return sum(os.path.getsize(os.path.join(root, name))
               for root, _, names in os.walk(path) for name in names) / 2**20


peak = [0.0]
watching = [True]


def watch():
    while watching[0]:
        peak[0] = max(peak[0], rss_mib())
        time.sleep(0.05)


conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)


def rpc(body, headers=None):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn.request("POST", "/", data, {"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    return response.status, response.read()


def error_code(answer):
    try:
        error = json.loads(answer).get("error")
    except ValueError:
        return "not json"
    return error["code"] if error else "ok"


def task_of(text, role):
    _, answer = rpc({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m-%s" % time.monotonic_ns(),
        "parts": [{"kind": "text", "text": text}]}}}, {"X-Agent-Role": role})
    result = json.loads(answer)["result"]
    return result["id"], result["status"]["state"]


def flood_configs(task_id):
    answers = collections.Counter()
    token = "t" * token_bytes
    for n in range(configs):
        _, answer = rpc({"jsonrpc": "2.0", "id": n, "method": "tasks/pushNotificationConfig/set",
                         "params": {"taskId": task_id, "pushNotificationConfig": {
                             "id": "c%d" % n, "url": "http://127.0.0.1:9/hook", "token": token}}})
        answers[error_code(answer)] += 1
    _, listing = rpc({"jsonrpc": "2.0", "id": "l", "method": "tasks/pushNotificationConfig/list",
                      "params": {"id": task_id}})
    return dict(answers), len(listing)


threading.Thread(target=watch, daemon=True).start()
time.sleep(0.2)
rss_start, data_start = rss_mib(), folder_mib(data_dir)
waiting, state = task_of("release the credit block on order 4711", "credit_manager")
answers, listed = flood_configs(waiting)
print("configs on a %s task: answers %s, list answers %d bytes" % (state, answers, listed))
finished, state = task_of("why is order 4711 blocked", "viewer")
answers, listed = flood_configs(finished)
print("configs on a %s task: answers %s, list answers %d bytes" % (state, answers, listed))
time.sleep(0.5)
print("RSS: %.1f MiB before, %.1f MiB peak, %.1f MiB after; data folder %.1f -> %.1f MiB" % (
    rss_start, peak[0], rss_mib(), data_start, folder_mib(data_dir)))

big = "x" * 1_000_000  # the body stays under server.max_body_bytes (1 MiB)
log_start = os.path.getsize(log_path)
statuses = collections.Counter()
for n in range(calls):
    status, answer = rpc(('{"jsonrpc":"2.0","id":"%s","method":"tasks/get","params":{"id":"t"}}'
                          % big).encode())
    statuses[("id", status, error_code(answer), len(answer))] += 1
for n in range(calls):
    status, answer = rpc(('{"jsonrpc":"2.0","id":%d,"method":"%s","params":{}}' % (n, big)).encode())
    statuses[("method", status, error_code(answer), len(answer))] += 1
time.sleep(0.5)
written = os.path.getsize(log_path) - log_start
for (kind, status, code, size), count in sorted(statuses.items(), key=str):
    print("%d calls with a 1 MB %s: HTTP %s, %s, answers of %d bytes" % (count, kind, status, code, size))
print("log written by those %d calls: %d bytes (%.1f kB a call)" % (2 * calls, written, written / 2 / calls / 1024))
watching[0] = False
