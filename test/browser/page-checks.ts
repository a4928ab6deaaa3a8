import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Locator, Page, Request } from "playwright-core";

/** Where every page's screenshot goes (gitignored; README, "Tests"). */
export const SCREENSHOT_DIR = join("test", "browser", "screenshots");

/**
 * What went wrong on a page while a test looked at it: uncaught errors, console errors and
 * failed requests (a network failure, or an HTTP status of 400 or more). `take()` returns what
 * was collected since the last call and starts afresh, so each page is judged on its own.
 */
export interface PageProblems {
  take(): string[];
}

/**
 * A request the page gave up on itself is no failure: the browser aborts a page's fetches, event
 * streams and WebSockets when it navigates away or a query is cancelled (net::ERR_ABORTED).
 */
const abortedByPage = (request: Request) => request.failure()?.errorText === "net::ERR_ABORTED";

export function watchPage(page: Page): PageProblems {
  let problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`uncaught error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on("requestfailed", (request) => {
    if (!abortedByPage(request))
      problems.push(`request failed: ${request.method()} ${request.url()}: ${request.failure()?.errorText}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400)
      problems.push(`request failed: ${response.request().method()} ${response.url()}: HTTP ${response.status()}`);
  });
  return {
    take() {
      const taken = problems;
      problems = [];
      return taken;
    },
  };
}

let axeSource: Promise<string> | undefined;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. Its source is evaluated
 * in the page (as page.addScriptTag would add it) through the DevTools protocol, which the page's
 * Content-Security-Policy does not apply to: the suite keeps the policy the server really sends.
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    // Runs in the page (its globals are a browser's; this file is typed for Node).
    const { axe, document } = globalThis as unknown as {
      axe: { run: (context: unknown, options: object) => Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/** A photograph of the whole page, or of one part of it (a locator). */
export async function screenshot(target: Page | Locator, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  if ("page" in target) await target.screenshot({ path });
  else await target.screenshot({ path, fullPage: true });
  return path;
}
