import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Entry points used by the sandbox tests, as a local template directory: each reads its arguments as JSON on
 * stdin, as the entrypoint contract says. World-readable, as the unprivileged sandbox user needs it.
 */
const SCRIPTS: Record<string, string> = {
  'echo.py': `
import json, os, sys
args = json.load(sys.stdin)
print(json.dumps({"args": args, "env": dict(os.environ), "cwd": os.getcwd()}))
`,
  'probe.py': `
import json, os, socket, sys
args = json.load(sys.stdin)
found = {}
for path in args.get("paths", []):
    try:
        if os.path.isdir(path):
            found[path] = "listed: " + ",".join(os.listdir(path))
        else:
            with open(path, "rb") as f:
                found[path] = "read: " + f.read(4096).decode("utf8", "replace")
    except Exception as error:
        found[path] = "refused: " + type(error).__name__
connect = None
if "port" in args:
    try:
        socket.create_connection(("127.0.0.1", args["port"]), timeout=2).close()
        connect = "connected"
    except Exception as error:
        connect = "refused: " + type(error).__name__
print(json.dumps({"paths": found, "connect": connect}))
`,
  'fail.py': `
raise ValueError("the input was not what this tool expects")
`,
  'memory.py': `
hog = [bytearray(1024 * 1024 * 1024)]
while True:
    hog.append(bytearray(64 * 1024 * 1024))
`,
  'loop.py': `
while True:
    pass
`,
  'forkbomb.py': `
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
`,
  'sleep.py': `
import time
time.sleep(120)
`,
  'slow.py': `
import json, time
start = time.time()
time.sleep(0.3)
print(json.dumps({"start": start, "end": time.time()}))
`,
};

export function sandboxTemplateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-template-'));
  chmodSync(dir, 0o755);
  for (const [name, text] of Object.entries(SCRIPTS)) {
    writeFileSync(join(dir, name), text.trimStart());
    // Explicitly: the embedded database sets the process umask to 077 for its own files, and a mode given to
    // writeFileSync is filtered by it (a test file run after another in the same worker would get 0700).
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}
