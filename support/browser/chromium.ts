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
      // Its Lambda flags, but two. Under --single-process, closing a browser context closes the
      // browser (seen here: the second newContext() fails), and the suites open one per visitor.
      // --disable-web-security turns off CORS and the Origin header: the suites must meet the
      // APIs' CORS and the web account's Origin check as a visitor's browser does.
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
