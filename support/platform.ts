import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./net/free-port.ts";
import { type Watched, waitFor } from "./wait.ts";

/**
 * `npm start` (scripts/start.ts) as a suite runs it: every service on a free port, every data
 * directory in a fresh temporary one, resolved once the "Platform running" banner is printed.
 * Deployments and the supervisor's logs go where `npm start` puts them (deployments/,
 * .data/logs/), so two platforms must not run from one checkout at once.
 */
export const BANNER = "Platform running:";

export interface PlatformUrls {
  chain: string;
  api: string;
  exchange: string;
  web: string;
}

export interface Platform {
  urls: PlatformUrls;
  dataDir: string;
  /** Path of the demo users' exchange keys (demo-credentials.json). */
  credentialsFile: string;
  process: ChildProcess;
  /** Everything `npm start` printed so far (stdout and stderr). */
  output(): string;
  /** Unix seconds when the banner was printed. */
  bannerAt: number;
  /** Ctrl-C (start.ts stops what it started), SIGKILL of its group if it lingers; removes dataDir. */
  stop(): Promise<void>;
}

export interface StartPlatformOptions {
  /** Variables beyond the ports and data directories. */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export async function startPlatform(options: StartPlatformOptions = {}): Promise<Platform> {
  const timeoutMs = options.timeoutMs ?? 420_000;
  const dataDir = await mkdtemp(join(tmpdir(), "npm-start-"));
  const [chainPort, apiPort, exchangePort, webPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const urls: PlatformUrls = {
    chain: `http://127.0.0.1:${chainPort}`,
    api: `http://127.0.0.1:${apiPort}`,
    exchange: `http://127.0.0.1:${exchangePort}`,
    web: `http://127.0.0.1:${webPort}`,
  };
  const credentialsFile = join(dataDir, "demo-credentials.json");
  const env = {
    ...process.env,
    CHAIN_PORT: String(chainPort),
    PORT: String(apiPort),
    EXCHANGE_PORT: String(exchangePort),
    WEB_PORT: String(webPort),
    // npm start derives the APIs' CORS origins from WEB_PORT unless they are set.
    WEB_ORIGIN: "",
    PONDER_DATA_DIR: join(dataDir, "ponder"),
    EXCHANGE_DATA_DIR: join(dataDir, "exchange"),
    DEMO_CREDENTIALS: credentialsFile,
    RELAYER_DATA_DIR: join(dataDir, "relayer"),
    AGENTS_DATA_DIR: join(dataDir, "agents"),
    DATABASE_URL: "",
    ...options.env,
  };
  const child = spawn(process.execPath, ["scripts/start.ts"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid, "SIGINT");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const npmStart: Watched = {
      name: "npm start",
      get running() {
        return child.exitCode === null && child.signalCode === null;
      },
      describeExit: () => `exited with ${child.exitCode ?? child.signalCode}`,
      tail: () => output,
    };
    await waitFor(`its banner (${BANNER})`, () => output.includes(BANNER), {
      timeoutMs,
      intervalMs: 50,
      alive: [npmStart],
      context: () => output,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    urls,
    dataDir,
    credentialsFile,
    process: child,
    output: () => output,
    bannerAt: Math.floor(Date.now() / 1000),
    stop,
  };
}
