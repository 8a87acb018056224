#!/usr/bin/env python3
"""The sandbox server Toolgate calls in each agent-sandbox pod (sandbox.runtime: kubernetes).

POST /execute {"entrypoint": ["/abs/path", "arg", ...], "stdin": "...", "env": {...},
               "timeout_seconds": 20, "max_output_bytes": 1048576}
  runs the entrypoint without a shell in a fresh work directory, with only PATH, HOME, TMPDIR, LANG and the
  variables given, writes `stdin` to it, and answers
  {"status": "success"|"error", "stdout", "stderr", "exit_code", "execution_time_ms", "stopped"?}
  where "stopped" is "wall_time" or "output_size" when the server had to kill the run.
GET /health answers {"status": "healthy"}.

Python's standard library only, so that any image with python3 can carry it. Listens on SANDBOX_PORT (8888).
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 10 * 1024 * 1024
STDERR_KEPT = 4096
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}


class BadRequest(Exception):
    pass


def parse(body):
    try:
        request = json.loads(body)
    except ValueError:
        raise BadRequest("the body is not JSON")
    if not isinstance(request, dict):
        raise BadRequest("the body is not a JSON object")
    entrypoint = request.get("entrypoint")
    if not (isinstance(entrypoint, list) and entrypoint and all(isinstance(w, str) for w in entrypoint)
            and entrypoint[0].startswith("/")):
        raise BadRequest("entrypoint must be a list of strings starting with an absolute path")
    env = request.get("env", {})
    if not (isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        raise BadRequest("env must map names to strings")
    stdin = request.get("stdin", "")
    if not isinstance(stdin, str):
        raise BadRequest("stdin must be a string")
    timeout = request.get("timeout_seconds", 30)
    limit = request.get("max_output_bytes", 1048576)
    if not (isinstance(timeout, (int, float)) and timeout > 0 and isinstance(limit, int) and limit > 0):
        raise BadRequest("timeout_seconds and max_output_bytes must be positive numbers")
    return entrypoint, env, stdin, float(timeout), limit


def kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass


def run(entrypoint, env, stdin, timeout, limit):
    work = tempfile.mkdtemp(prefix="sandbox-")
    started = time.monotonic()
    stopped = []
    try:
        process = subprocess.Popen(
            entrypoint, cwd=work, env={**env, **BASE_ENV, "HOME": work}, start_new_session=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as error:
        shutil.rmtree(work, ignore_errors=True)
        return {"status": "error", "stdout": "", "stderr": "cannot start the entrypoint: %s" % error.strerror,
                "exit_code": 127, "execution_time_ms": 0}
    stdout, stderr = bytearray(), bytearray()

    def read_stdout():
        while True:
            chunk = process.stdout.read1(65536)
            if not chunk:
                return
            if len(stdout) + len(chunk) > limit:
                stopped.append("output_size")
                kill_group(process)
                return
            stdout.extend(chunk)

    def read_stderr():
        while True:
            chunk = process.stderr.read1(65536)
            if not chunk:
                return
            stderr.extend(chunk)
            del stderr[:-STDERR_KEPT]

    def write_stdin():
        try:
            process.stdin.write(stdin.encode("utf-8"))
            process.stdin.close()
        except OSError:
            pass  # a run that does not read its input closed the pipe

    threads = [threading.Thread(target=t, daemon=True) for t in (read_stdout, read_stderr, write_stdin)]
    for thread in threads:
        thread.start()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stopped.append("wall_time")
    kill_group(process)
    process.wait()
    for thread in threads:
        thread.join(1)
    shutil.rmtree(work, ignore_errors=True)
    code = process.returncode if process.returncode >= 0 else 128 - process.returncode
    answer = {"status": "success" if code == 0 and not stopped else "error",
              "stdout": stdout.decode("utf-8", "replace"), "stderr": stderr.decode("utf-8", "replace"),
              "exit_code": code, "execution_time_ms": int((time.monotonic() - started) * 1000)}
    if stopped:
        answer["stopped"] = stopped[0]
    return answer


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, value):
        body = json.dumps(value).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # Toolgate stopped waiting (the call was cancelled); its claim, and this pod, go away

    def do_GET(self):
        if self.path == "/health":
            return self.answer(200, {"status": "healthy"})
        self.answer(404, {"error": "not found"})

    def do_POST(self):
        if self.path != "/execute":
            return self.answer(404, {"error": "not found"})
        length = self.headers.get("content-length", "0")
        if not length.isdigit():
            return self.answer(400, {"error": "a content-length is required"})
        length = int(length)
        if length > MAX_BODY:
            return self.answer(413, {"error": "the body is larger than %d bytes" % MAX_BODY})
        try:
            self.answer(200, run(*parse(self.rfile.read(length))))
        except BadRequest as error:
            self.answer(400, {"error": str(error)})

    def log_message(self, format, *args):
        pass  # requests carry tenants' arguments: not logged


if __name__ == "__main__":
    port = int(os.environ.get("SANDBOX_PORT", "8888"))
    server = ThreadingHTTPServer((os.environ.get("SANDBOX_HOST", "0.0.0.0"), port), Handler)
    print("sandbox server on port %d" % server.server_address[1], flush=True)
    server.serve_forever()
