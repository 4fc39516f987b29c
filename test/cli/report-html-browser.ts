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

/**
 * How many pixels of a screenshot of `selector` (as Chromium painted it) are each of `colours` (#rrggbb,
 * each channel within 24): a line hidden under another one has none of its colour left.
 */
export async function colourPixels(page: Page, selector: string, colours: readonly string[]): Promise<number[]> {
  const png = (await page.locator(selector).screenshot()).toString("base64");
  // Runs in the page (this project compiles without the DOM's types): decode the PNG, count near pixels.
  const count = `(async () => {
    const image = new Image();
    image.src = "data:image/png;base64,${png}";
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const targets = ${JSON.stringify(colours)}.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
    const counts = targets.map(() => 0);
    for (let p = 0; p < pixels.length; p += 4) {
      targets.forEach(([r, g, b], k) => {
        if (Math.abs(pixels[p] - r) <= 24 && Math.abs(pixels[p + 1] - g) <= 24 && Math.abs(pixels[p + 2] - b) <= 24) counts[k] += 1;
      });
    }
    return counts;
  })()`;
  return page.evaluate(count);
}

/** The text of every cell of the table captioned with `caption` (its header row first), as Chromium shows it. */
export async function tableCells(page: Page, caption: string): Promise<string[][]> {
  const table = page.locator("table", { has: page.locator("caption", { hasText: caption }) });
  return table
    .locator("tr")
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll("th, td")].map((cell) => (cell.textContent ?? "").trim())),
    );
}
