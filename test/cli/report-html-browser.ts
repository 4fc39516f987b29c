import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's Chromium, which the HTML report tests drive headless. */
export const CHROMIUM = "/usr/bin/chromium";

/** True when Chromium is installed; the browser tests skip, saying how to install it, otherwise. */
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

if (!HAVE_CHROMIUM) {
  console.warn(
    `\n⚠ ${CHROMIUM} is absent: the HTML report browser tests are SKIPPED. Install it with\n` +
      "  apt-get update && apt-get install -y --no-install-recommends chromium\n(.ci/run does this)\n",
  );
}

/** The flags the issue asks for: headless, no sandbox, no GPU, and nothing that phones home. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** A page opened in headless Chromium with what it logged: console errors, page errors, blocked requests. */
export interface OpenedPage {
  page: Page;
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests to anything but file: and data: URLs (each was aborted). */
  networkRequests: string[];
  close(): Promise<void>;
}

/** Opens a local HTML file in a fresh headless Chromium profile; every non-file, non-data request is refused and recorded. */
export async function openInChromium(path: string): Promise<OpenedPage> {
  const profile = await mkdtemp(join(tmpdir(), "palimpsest-chromium-"));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    const opened: OpenedPage = {
      page: context.pages()[0] ?? (await context.newPage()),
      consoleErrors: [],
      pageErrors: [],
      networkRequests: [],
      close: async () => {
        await context?.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file:") || url.startsWith("data:")) return route.continue();
      opened.networkRequests.push(url);
      return route.abort();
    });
    opened.page.on("console", (m) => {
      if (m.type() === "error") opened.consoleErrors.push(m.text());
    });
    opened.page.on("pageerror", (e) => opened.pageErrors.push(e.message));
    await opened.page.goto(pathToFileURL(path).href, { waitUntil: "load" });
    return opened;
  } catch (error) {
    await context?.close().catch(() => {});
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}
