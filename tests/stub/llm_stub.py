#!/usr/bin/env python3
"""llm_stub.py — a loopback LLM server for the tests (python3 standard library only).

    llm_stub.py SCRIPT.json LOG.jsonl

Listens on 127.0.0.1 on a random port and prints the port as its first stdout line.
Speaks the OpenAI chat-completions (POST .../chat/completions) and Anthropic messages
(POST .../v1/messages) wire formats.  Each endpoint answers from its own queue in SCRIPT:

    {"openai":    [ITEM, ...],
     "anthropic": [ITEM, ...]}

ITEM, one per request, in order:
    {"content": "text", "finish_reason": "stop"|"length", "usage": [prompt, completion],
     "model": "name"}                       a completion in the endpoint's format
    {"status": 429, "headers": {"Retry-After": "1"},
     "error": {"message": "...", "code": "...", "type": "..."}}
                                            an error body in the endpoint's format
    {"status": N, "headers": {...}, "body": "raw text" | {json}}   anything else
    {"fault": "stall", "seconds": S}        read the request, then say nothing for S s
    {"fault": "truncated"}                  announce a longer Content-Length, send half, close
    {"fault": "invalid_json"}               200 with a body that is not JSON
    {"fault": "close"}                      close the connection without a response
An exhausted queue answers 500 "llm_stub: script exhausted".
GET requests answer from SCRIPT's "get" map, path -> JSON body (e.g. {"/v1/models": {...},
"/props": {"n_ctx": 2048}}), else 404; they are logged like the others (endpoint "get").

Every request is logged to LOG as one JSON line {"endpoint", "method", "path", "headers"
(names lowercased), "body" (parsed JSON, or text)}, flushed before the answer is sent.
The server exits when its stdin closes (the test that started it is gone).
"""
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
QUEUES = {}
GETS = {}
LOG = None


def completion_body(endpoint, item, request):
    model = item.get("model") or (request.get("model") if isinstance(request, dict) else None) or "stub-model"
    content = item.get("content", "")
    finish = item.get("finish_reason", "stop")
    usage = item.get("usage", [0, 0])
    if endpoint == "openai":
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                      "total_tokens": usage[0] + usage[1]},
        }
    stop = {"stop": "end_turn", "length": "max_tokens"}.get(finish, finish)
    # split the text in two blocks to exercise block concatenation
    half = len(content) // 2
    blocks = [{"type": "text", "text": content[:half]}, {"type": "text", "text": content[half:]}]
    return {
        "id": "msg_stub", "type": "message", "role": "assistant", "model": model,
        "content": blocks, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def error_body(endpoint, err):
    if endpoint == "openai":
        return {"error": {"message": err.get("message", ""), "type": err.get("type", "error"),
                          "param": None, "code": err.get("code")}}
    return {"type": "error", "error": {"type": err.get("type", "api_error"),
                                       "message": err.get("message", "")}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep stderr quiet
        pass

    def send_json(self, status, obj, headers=None):
        data = (obj if isinstance(obj, str) else json.dumps(obj)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode("utf-8", "replace")
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw
        if self.path.endswith("/chat/completions"):
            endpoint = "openai"
        elif self.path.endswith("/v1/messages"):
            endpoint = "anthropic"
        else:
            endpoint = None
        with LOCK:
            LOG.write(json.dumps({"endpoint": endpoint, "method": "POST", "path": self.path,
                                  "headers": {k.lower(): v for k, v in self.headers.items()},
                                  "body": body}) + "\n")
            LOG.flush()
            queue = QUEUES.get(endpoint)
            item = queue.pop(0) if queue else None
        if endpoint is None:
            self.send_json(404, {"error": {"message": "no such endpoint " + self.path}})
            return
        if item is None:
            self.send_json(500, error_body(endpoint, {"message": "llm_stub: script exhausted"}))
            return
        fault = item.get("fault")
        if fault == "stall":
            time.sleep(float(item.get("seconds", 30)))
            self.close_connection = True
            return
        if fault == "close":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault == "truncated":
            data = json.dumps(completion_body(endpoint, {"content": "cut short " * 20}, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data) + 100))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault == "invalid_json":
            self.send_json(200, '{"choices": [ {"message": oops')
            return
        status = int(item.get("status", 200))
        headers = item.get("headers")
        if "error" in item:
            self.send_json(status, error_body(endpoint, item["error"]), headers)
        elif "body" in item:
            self.send_json(status, item["body"], headers)
        else:
            self.send_json(status, completion_body(endpoint, item, body), headers)

    def do_GET(self):
        with LOCK:
            LOG.write(json.dumps({"endpoint": "get", "method": "GET", "path": self.path,
                                  "headers": {k.lower(): v for k, v in self.headers.items()},
                                  "body": None}) + "\n")
            LOG.flush()
        body = GETS.get(self.path)
        if body is None:
            self.send_json(404, {"error": {"message": "llm_stub: no GET " + self.path}})
        else:
            self.send_json(200, body)


def watch_stdin():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        import os
        os._exit(0)


def main():
    global LOG
    if len(sys.argv) != 3:
        sys.stderr.write("usage: llm_stub.py SCRIPT.json LOG.jsonl\n")
        return 2
    with open(sys.argv[1]) as f:
        script = json.load(f)
    for k in ("openai", "anthropic"):
        QUEUES[k] = list(script.get(k, []))
    GETS.update(script.get("get", {}))
    LOG = open(sys.argv[2], "a")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
