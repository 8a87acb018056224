#!/usr/bin/env python3
"""The sandbox server Toolgate calls in each agent-sandbox pod (sandbox.runtime: kubernetes).

POST /execute {"entrypoint": ["/abs/path", "arg", ...], "stdin": "...", "env": {...},
               "timeout_seconds": 20, "max_output_bytes": 1048576,
               "files"?: {"name": "<base64>"}, "collect"?: {"max_files", "max_file_bytes", "max_total_bytes"}}
  puts `files` into the files directory, runs the entrypoint without a shell in the work directory (also
  HOME) with only PATH, HOME, TMPDIR, LANG and the variables given, writes `stdin` to it, and answers
  {"status": "success"|"error", "stdout", "stderr", "exit_code", "execution_time_ms", "stopped"?,
   "files_produced"?: {"name": "<base64>"}, "files_skipped"?: ["why an entry was left out", ...]}
  where "stopped" is "wall_time" or "output_size" when the server had to kill the run, and files_produced
  (with `collect`) holds the regular files of the files directory's top level the run created or changed.
GET /health answers {"status": "healthy"}.

A pod serves one SandboxClaim (a single call, or the calls of one /v1/responses run) and is deleted with it:
the work directory (SANDBOX_WORK_DIR, else a fresh temporary one) and the files directory (SANDBOX_DATA_DIR,
/mnt/data) last as long as the pod. Runs come one at a time. Python's standard library only, so that any image
with python3 can carry it. Listens on SANDBOX_HOST (0.0.0.0), port SANDBOX_PORT (8888).
"""
import base64
import binascii
import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 96 * 1024 * 1024
STDERR_KEPT = 4096
MAX_ENTRIES_SCANNED = 20000
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
WORK_DIR = os.environ.get("SANDBOX_WORK_DIR") or tempfile.mkdtemp(prefix="sandbox-")
DATA_DIR = os.environ.get("SANDBOX_DATA_DIR", "/mnt/data")
# One run at a time: the runs of a session share the directories.
RUN_LOCK = threading.Lock()


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
    files = request.get("files") or {}
    if not (isinstance(files, dict) and all(plain_name(k) and isinstance(v, str) for k, v in files.items())):
        raise BadRequest("files must map plain file names to base64 text")
    try:
        files = {name: base64.b64decode(text, validate=True) for name, text in files.items()}
    except (binascii.Error, ValueError):
        raise BadRequest("files must map plain file names to base64 text")
    collect = request.get("collect")
    keys = ("max_files", "max_file_bytes", "max_total_bytes")
    if collect is not None and not (isinstance(collect, dict) and all(
            isinstance(collect.get(k), int) and collect.get(k) >= 0 for k in keys)):
        raise BadRequest("collect must give max_files, max_file_bytes and max_total_bytes")
    return entrypoint, env, stdin, float(timeout), limit, files, collect


def plain_name(name):
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name
            and not any(ord(c) < 32 or ord(c) == 127 for c in name))


def place_files(files):
    """Writes the files into DATA_DIR, replacing an entry of the same name (a link is replaced, not followed)."""
    for name, content in files.items():
        path = os.path.join(DATA_DIR, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(content)


def snapshot():
    """Name -> identity of the content (inode, size, change times) of DATA_DIR's top level."""
    seen = {}
    with os.scandir(DATA_DIR) as entries:
        for count, entry in enumerate(entries):
            if count >= MAX_ENTRIES_SCANNED:
                break
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            seen[entry.name] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return seen


def collect_files(before, limits):
    """The regular files of DATA_DIR's top level that are new or changed since `before`, within the limits."""
    produced, skipped, total = {}, [], 0
    for name, version in sorted(snapshot().items()):
        if before.get(name) == version:
            continue
        path = os.path.join(DATA_DIR, name)
        if not plain_name(name):
            skipped.append("%s: the name has control or invalid characters" % json.dumps(name))
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            skipped.append("%s: not a regular file (only regular files are returned)" % name)
            continue
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                skipped.append("%s: not a regular file (only regular files are returned)" % name)
            elif len(produced) >= limits["max_files"]:
                skipped.append("%s: more than %d files were written" % (name, limits["max_files"]))
            elif st.st_size > limits["max_file_bytes"]:
                skipped.append("%s: larger than %d bytes" % (name, limits["max_file_bytes"]))
            elif total + st.st_size > limits["max_total_bytes"]:
                skipped.append("%s: the files returned would exceed %d bytes in all" % (name, limits["max_total_bytes"]))
            else:
                content = f.read(limits["max_file_bytes"] + 1)[: limits["max_file_bytes"]]
                total += len(content)
                produced[name] = base64.b64encode(content).decode("ascii")
    return produced, skipped


def kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass


def run(entrypoint, env, stdin, timeout, limit, files, collect):
    with RUN_LOCK:
        os.makedirs(DATA_DIR, exist_ok=True)
        place_files(files)
        before = snapshot() if collect is not None else None
        answer = spawn(entrypoint, env, stdin, timeout, limit)
        if before is not None and "stopped" not in answer:
            answer["files_produced"], answer["files_skipped"] = collect_files(before, collect)
        return answer


def spawn(entrypoint, env, stdin, timeout, limit):
    started = time.monotonic()
    stopped = []
    try:
        process = subprocess.Popen(
            entrypoint, cwd=WORK_DIR, env={**env, **BASE_ENV, "HOME": WORK_DIR}, start_new_session=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as error:
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
