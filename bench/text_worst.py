#!/usr/bin/env python3
"""The worst texts for the text passes against a running service (loopback only).

Usage: text_worst.py PORT BYTES [ROUNDS]

Sends `message/send` with texts that make a text pass expensive, each as
large as a message of BYTES bytes of JSON allows: one long word of a repeated
letter, one of random letters, many short words, many distinct words, many
order numbers. Prints, per kind, the median and the largest time per
request over ROUNDS requests, and the answer's state (or error code). The
kinds alternate round by round, so a noisy moment hits them all alike.
"""
import http.client
import json
import random
import statistics
import sys
import time
import uuid

port, size = int(sys.argv[1]), int(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
rng = random.Random(38)


def envelope(text):
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": str(uuid.uuid4()),
                "parts": [{"kind": "text", "text": text}],
            }
        },
    }


def fill(prefix, piece):
    """prefix + as many `piece()` as fit in a message of `size` bytes."""
    overhead = len(json.dumps(envelope("")["params"]["message"], separators=(",", ":")))
    room = size - overhead - len(prefix) - 16
    out = [prefix]
    used = 0
    while True:
        p = piece()
        if used + len(p) > room:
            break
        out.append(p)
        used += len(p)
    return "".join(out)


def letters(n):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


KINDS = {
    "one word, one letter": lambda: fill("hello ", lambda: "a" * 64),
    "one word, random letters": lambda: fill("hello ", lambda: letters(64)),
    "many short words": lambda: fill("hello", lambda: " ab"),
    "many distinct words": lambda: fill("hello", lambda: " " + letters(7)),
    "many order numbers": lambda: fill("orders", lambda: " %d" % rng.randint(1000, 9999999)),
}
# One long word is one piece repeated without spaces: the pieces join.
texts = {kind: make() for kind, make in KINDS.items()}

conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
times = {kind: [] for kind in texts}
outcome = {}
for _ in range(rounds):
    for kind, text in texts.items():
        body = json.dumps(envelope(text), separators=(",", ":"))
        start = time.perf_counter()
        conn.request("POST", "/", body, {"Content-Type": "application/json"})
        answer = json.loads(conn.getresponse().read())
        times[kind].append(time.perf_counter() - start)
        outcome[kind] = (
            answer["result"]["status"]["state"]
            if "result" in answer
            else "error %s" % answer["error"]["code"]
        )

print("| text (%d bytes as JSON) | median ms | max ms | answer |" % size)
print("|---|---|---|---|")
for kind in texts:
    print(
        "| %s | %.2f | %.2f | %s |"
        % (kind, statistics.median(times[kind]) * 1e3, max(times[kind]) * 1e3, outcome[kind])
    )
