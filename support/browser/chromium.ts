import chromium from "@sparticuz/chromium";
import { type Browser, chromium as playwright } from "playwright-core";

/**
 * A real headless Chromium that `npm install` alone brings: @sparticuz/chromium ships the binary
 * (brotli-packed) inside the npm package and unpacks it to the temp directory on first use;
 * playwright-core drives it over CDP. No browser download, no system packages.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = await chromium.executablePath();
  return playwright.launch({
    executablePath,
    headless: true,
    args: [
      // Its Lambda flags, but two: under --single-process, closing a browser context closes the
      // browser (seen here: the second newContext() fails), and the suites open one per visitor;
      // --disable-web-security would take CORS and Origin out of what the pages meet.
      ...chromium.args.filter((arg) => arg !== "--single-process" && arg !== "--disable-web-security"),
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      // Nothing but the platform on the network: no update checks, sync or field trials.
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
