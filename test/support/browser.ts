import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ChildOutput, tempDir } from './server-process';

/** Debian's package (`apt-get install chromium`); CI installs it, so a missing browser fails the test. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--remote-debugging-address=127.0.0.1',
  '--remote-debugging-port=0',
];

/** A fetch() made by a page, and the response headers the page tries to read. */
export interface BrowserProbe {
  name: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  readHeaders?: string[];
}

/** What the page could read: the answer, or the error fetch() threw (a CORS refusal is a TypeError). */
export type ProbeResult =
  | { status: number; headers: Record<string, string | null>; body: string; error?: undefined }
  | { error: string; status?: undefined };

/** A headless Chromium of its own, on a fresh profile, driven over the DevTools protocol on loopback. */
export class Chromium {
  private constructor(
    private readonly output: ChildOutput,
    private readonly profile: string,
    readonly endpoint: string,
  ) {}

  static async start(): Promise<Chromium> {
    const profile = tempDir();
    const child = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.once('error', () => undefined);
    const output = new ChildOutput(child);
    try {
      const [, endpoint] = await output.waitFor(/DevTools listening on (ws:\/\/\S+)/, 'stderr');
      return new Chromium(output, profile, endpoint);
    } catch (error) {
      child.kill('SIGKILL');
      rmSync(profile, { recursive: true, force: true });
      throw new Error(`Chromium (${CHROMIUM}) did not start; install the Debian package chromium`, { cause: error });
    }
  }

  /** Opens `pageUrl` in a new tab and runs the probes from it in order. */
  async fetchFrom(pageUrl: string, probes: BrowserProbe[]): Promise<Record<string, ProbeResult>> {
    const script = join(__dirname, 'browser-fetch.mjs');
    const argument = JSON.stringify({ browserWSEndpoint: this.endpoint, pageUrl, probes });
    const { stdout } = await promisify(execFile)(process.execPath, [script, argument], { timeout: 60_000 });
    return JSON.parse(stdout) as Record<string, ProbeResult>;
  }

  async close(): Promise<void> {
    if (this.output.child.exitCode === null && this.output.child.signalCode === null) this.output.child.kill('SIGKILL');
    await this.output.exited;
    rmSync(this.profile, { recursive: true, force: true });
  }
}
