#!/usr/bin/env python3
"""Forged tokens against the service: RSS and key-server calls.

Usage: forged.py PORT PID KEYS_LOG USER_TOKEN NEXT_USER_TOKEN COUNT AZP_BYTES

A real user calls once (keys cached), then COUNT unsigned tokens, each with
the trusted issuer, our audience and tenant and a random azp of AZP_BYTES,
are sent on 8 connections; then the user calls with a new token. Key-server
calls are the GET lines of KEYS_LOG (python3 -m http.server's access log).
Loopback only.
"""
import base64
import collections
import http.client
import json
import secrets
import sys
import threading
import time

port, pid, keys_log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
user_token, next_user_token = sys.argv[4], sys.argv[5]
count, azp_bytes = int(sys.argv[6]), int(sys.argv[7])
THREADS = 8


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged_token():
    now = int(time.time())
    claims = {"iss": "https://tenant.accounts.test", "aud": "bench-client", "sub": "P1",
              "azp": secrets.token_hex(azp_bytes)[:azp_bytes], "app_tid": "bench-tenant",
              "exp": now + 600, "iat": now, "sap_id_type": "user", "user_uuid": "u1",
              "ias_apis": ["order-exception-agent"], "groups": ["viewer"]}
    header = {"alg": "RS256", "typ": "JWT", "kid": "key-1"}
    return ".".join([b64(json.dumps(header).encode()), b64(json.dumps(claims).encode()),
                     b64(b"not a signature")])


def rss_mib():
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def key_calls():
    with open(keys_log) as log:
        return sum(1 for line in log if '"GET ' in line)


BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "kind": "message", "role": "user", "messageId": "m1",
    "parts": [{"kind": "text", "text": "why is order 4711 blocked by credit"}]}}})


def call(conn, token):
    conn.request("POST", "/", BODY, {"Content-Type": "application/json",
                                     "Authorization": "Bearer " + token})
    response = conn.getresponse()
    response.read()
    return response.status


answers = collections.Counter()
lock = threading.Lock()


def worker(share):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(share):
        try:
            status = call(conn, forged_token())
        except Exception as error:
            status = type(error).__name__
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        with lock:
            answers[status] += 1


conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
print("real user's first call: %s" % call(conn, user_token))
time.sleep(0.2)
rss_before, calls_before = rss_mib(), key_calls()
started = time.monotonic()
threads = [threading.Thread(target=worker, args=(count // THREADS,)) for _ in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
elapsed = time.monotonic() - started
time.sleep(0.2)
rss_after, calls_after = rss_mib(), key_calls()
print("flood: %d forged tokens in %.1f s, answers %s" % (
    count // THREADS * THREADS, elapsed, dict(sorted(answers.items(), key=str))))
print("RSS: %.1f MiB before, %.1f MiB after" % (rss_before, rss_after))
print("key-server calls during the flood: %d" % (calls_after - calls_before))
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
status = call(conn, next_user_token)
time.sleep(0.2)
print("real user's new token after the flood: %s, key-server calls for it: %d" % (
    status, key_calls() - calls_after))
