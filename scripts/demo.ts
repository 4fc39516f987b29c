/**
 * The README's demo, on the embedded default store of the working folder (./.palimpsest/palimpsest.db).
 * The default is the short one (a few seconds): import the bundled session, show its view, compact the middle,
 * show the history and the originals behind the summary, then resume the session in a fresh process and
 * check its view equals a replay of the log. `--tour` adds the rest: importing again (nothing new), the
 * session list, the audit read models and an HTML report. The CLI steps run the bundled CLI (the bin's
 * `dist/bin/cli.mjs`, made by `pnpm install`'s prepare step) in this process; only the resume starts one more.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import type { runCli as RunCli } from "@palimpsest/cli";

const CLI = join(import.meta.dirname, "../packages/cli");
const BUNDLE = join(CLI, "dist/bin/cli.mjs");
const BIN = join(CLI, "bin/palimpsest.mjs");
const SESSION_FILE = relative(process.cwd(), join(import.meta.dirname, "../examples/demo-session.jsonl"));
const tour = process.argv.includes("--tour");

if (!existsSync(BUNDLE)) {
  console.error(`${BUNDLE} is missing: \`npx -y pnpm@12.4.2 install\` bundles the CLI (its prepare step)`);
  process.exit(1);
}
const { runCli } = (await import(pathToFileURL(BUNDLE).href)) as { runCli: typeof RunCli };

/** Runs one `palimpsest` command in this process; prints it and its first 24 lines unless `show` is false. */
async function palimpsest(args: string[], show = true): Promise<string> {
  if (show) console.log(`\n$ palimpsest ${args.join(" ")}`);
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
    env: process.env,
    cwd: process.cwd(),
  };
  const code = await runCli(args, io);
  if (code !== 0) {
    process.stderr.write(stderr);
    throw new Error(`palimpsest ${args.join(" ")} exited with ${code}`);
  }
  if (show) {
    const lines = stdout.split("\n");
    process.stdout.write(lines.slice(0, 24).join("\n") + (lines.length > 24 ? "\n  …\n" : ""));
  }
  return stdout;
}

await palimpsest(["import", SESSION_FILE]);
if (tour) console.log("\n(importing the same file again creates nothing new)");
const imported = JSON.parse(await palimpsest(["--json", "import", SESSION_FILE], tour)) as { sessionId: string }[];
const sessionId = (imported[0] as { sessionId: string }).sessionId;
if (tour) await palimpsest(["sessions"]);
await palimpsest(["view", sessionId]);

const view = JSON.parse(await palimpsest(["--json", "view", sessionId], false)) as {
  messages: { id: string; role: string }[];
};
const ids = view.messages.map((m) => m.id);
// Compact the first round of work: from the first assistant reply to just before the second request.
const secondRequest = view.messages.findIndex((m, i) => i > 1 && m.role === "user");
const from = ids[2];
const to = ids[secondRequest - 1];
if (from === undefined || to === undefined || secondRequest < 4) {
  console.log("\nThe view is already compact (the demo ran before); showing history instead.");
} else {
  // The summary goes through a file of a folder of its own, removed once the compaction has read it.
  const scratch = mkdtempSync(join(tmpdir(), "palimpsest-demo-"));
  try {
    const summaryFile = join(scratch, "summary.txt");
    writeFileSync(
      summaryFile,
      "Summary of the work so far: the parser's precedence table put + and * at one level; the agent gave each level its own binding power, re-ran the tests until all 60 passed.",
    );
    await palimpsest(["compact", sessionId, "--summary-file", summaryFile, "--from", from, "--to", to]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
const history = await palimpsest(["history", sessionId]);
const compactionId = /^([0-9a-f-]{36}(?::compaction)?)\s/m.exec(history.split("\n").slice(1).join("\n"))?.[1];
if (compactionId !== undefined) await palimpsest(["expand", sessionId, compactionId]);

if (tour) {
  // The audit read models: across sessions, in SQL; a message's trail; the view before the compaction.
  await palimpsest(["audit", "totals", "--by", "mode,policy"]);
  const [first] = JSON.parse(await palimpsest(["--json", "audit", "compactions", "--session", sessionId], false)) as {
    seq: number;
    compactionId: string;
  }[];
  if (first !== undefined) {
    const [trail] = JSON.parse(await palimpsest(["--json", "audit", "compaction", first.compactionId], false)) as {
      writtenBy: { targets: string[] };
    }[];
    const target = trail?.writtenBy.targets[0];
    if (target !== undefined) await palimpsest(["audit", "message", target]);
    await palimpsest(["audit", "view", sessionId, "--seq", String(first.seq - 1)]);
  }
  await palimpsest(["audit", "rebuild", "--check"]);
  await palimpsest(["report", "--html", ".palimpsest/demo-report.html", sessionId]);
  await palimpsest(["view", sessionId]);
}

// A fresh process (the checkout's bin) resumes the session from its snapshot; `audit view` replays the whole
// log from seq 1, without one.
console.log(`\n$ palimpsest --json view ${sessionId}   # in a fresh process`);
const fresh = spawnSync(process.execPath, [BIN, "--json", "view", sessionId], { encoding: "utf8" });
if (fresh.status !== 0) {
  process.stderr.write(fresh.stderr);
  throw new Error(`palimpsest --json view ${sessionId} exited with ${fresh.status}`);
}
const resumed = JSON.parse(fresh.stdout) as { lastSeq: number; messages: unknown[] };
const replayed = JSON.parse(
  await palimpsest(["--json", "audit", "view", sessionId, "--seq", String(resumed.lastSeq)], false),
) as { view: { messages: unknown[] } };
const same = isDeepStrictEqual(resumed.messages, replayed.view.messages);
console.log(
  same
    ? `Resumed in a fresh process: the active view (${resumed.messages.length} messages) equals a full replay of the log.`
    : "MISMATCH: the resumed view differs from a replay of the log",
);
if (same && !tour)
  console.log(
    "\nThe tour (`npx -y pnpm@12.4.2 demo --tour`) adds the session list, the audit read models and an HTML report.",
  );
process.exitCode = same ? 0 : 1;
