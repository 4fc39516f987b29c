/**
 * The README's demo, on the embedded default store (./.palimpsest/palimpsest.db): imports the bundled
 * session, shows its view, compacts the middle, shows history and expand, asks the audit read models,
 * writes an HTML report, then resumes it in a fresh process and checks that the view is the same. Every step is a real `palimpsest` CLI process.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { loadSession, openEventStore } from "@palimpsest/store";

const cli = [
  join(import.meta.dirname, "../node_modules/tsx/dist/cli.mjs"),
  join(import.meta.dirname, "../packages/cli/src/main.ts"),
];

function palimpsest(args: string[], show = true): string {
  if (show) console.log(`\n$ palimpsest ${args.join(" ")}`);
  const run = spawnSync(process.execPath, [...cli, ...args], { encoding: "utf8" });
  if (run.status !== 0) {
    process.stderr.write(run.stderr);
    throw new Error(`palimpsest ${args.join(" ")} exited with ${run.status}`);
  }
  if (show)
    process.stdout.write(
      run.stdout.split("\n").slice(0, 24).join("\n") + (run.stdout.split("\n").length > 24 ? "\n  …\n" : ""),
    );
  return run.stdout;
}

palimpsest(["import", "examples/demo-session.jsonl"]);
console.log("\n(importing the same file again creates nothing new)");
const imported = JSON.parse(palimpsest(["--json", "import", "examples/demo-session.jsonl"])) as { sessionId: string }[];
const sessionId = (imported[0] as { sessionId: string }).sessionId;
palimpsest(["sessions"]);
palimpsest(["view", sessionId]);

const view = JSON.parse(palimpsest(["--json", "view", sessionId], false)) as {
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
  const summaryFile = join(tmpdir(), "palimpsest-demo-summary.txt");
  writeFileSync(
    summaryFile,
    "Summary of the work so far: the parser's precedence table put + and * at one level; the agent gave each level its own binding power, re-ran the tests until all 60 passed.",
  );
  palimpsest(["compact", sessionId, "--summary-file", summaryFile, "--from", from, "--to", to]);
}
const history = palimpsest(["history", sessionId]);
const compactionId = /^([0-9a-f-]{36}(?::compaction)?)\s/m.exec(history.split("\n").slice(1).join("\n"))?.[1];
if (compactionId !== undefined) palimpsest(["expand", sessionId, compactionId]);

// The audit read models: across sessions, in SQL; a message's trail; the view before the compaction.
palimpsest(["audit", "totals", "--by", "mode,policy"]);
const [first] = JSON.parse(palimpsest(["--json", "audit", "compactions", "--session", sessionId], false)) as {
  seq: number;
  compactionId: string;
}[];
if (first !== undefined) {
  const [trail] = JSON.parse(palimpsest(["--json", "audit", "compaction", first.compactionId], false)) as {
    writtenBy: { targets: string[] };
  }[];
  const target = trail?.writtenBy.targets[0];
  if (target !== undefined) palimpsest(["audit", "message", target]);
  palimpsest(["audit", "view", sessionId, "--seq", String(first.seq - 1)]);
}
palimpsest(["audit", "rebuild", "--check"]);
palimpsest(["report", "--html", ".palimpsest/demo-report.html", sessionId]);

palimpsest(["view", sessionId]);
// The CLI process resumed from its snapshot; here the whole log is replayed from seq 1, without one.
const resumed = JSON.parse(palimpsest(["--json", "view", sessionId], false)) as { messages: unknown[] };
const store = await openEventStore();
const replayed = (await loadSession(store, sessionId, false)).state.live.map((e) => e.message);
await store.close();
const same = isDeepStrictEqual(resumed.messages, replayed);
console.log(
  same
    ? `\nResumed in a fresh process: the active view (${replayed.length} messages) equals a full replay of the log.`
    : "\nMISMATCH: the resumed view differs from a replay of the log",
);
process.exitCode = same ? 0 : 1;
