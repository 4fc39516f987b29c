/**
 * One of the processes of many-writers.test.ts: opens a surface on the shared session, says "ready",
 * waits for "go" (every worker starts at once), runs its turns one after another, and reports what it
 * acknowledged (the turns whose every call returned) and every error any call threw or any callback
 * reported. It never retries: a conflict the library leaves to the caller is an error here.
 */
import { foldEvents, initialState, type SessionState } from "@palimpsest/core";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { viewProblems } from "../support/view-invariants.ts";
import { stateDifferences } from "./fault-checks.ts";
import { parentMessages, report } from "./fault-process.ts";
import { cheapCounter, faultCompaction, hookedSummarizer, type ReportedError, reportError } from "./fault-workload.ts";
import { openDriver, type Surface } from "./many-writers-surfaces.ts";

/** What the parent sends first: where to write, through what, and how many turns. */
export interface WorkerSetup {
  t: "setup";
  url: string;
  worker: number;
  surface: Surface;
  sessionId: string;
  keyed: boolean;
  turns: number;
}

const parent = parentMessages();

const setup = (await parent.next()) as WorkerSetup;
const errors: ReportedError[] = [];
const onError = (error: unknown) => void errors.push(reportError(error));
const compaction = faultCompaction(
  hookedSummarizer(
    async () => {},
    () => false,
  ),
);
const runtime = new Palimpsest({
  store: await openEventStore(setup.url),
  counterFor: async () => cheapCounter,
  compaction,
  onAfterTurnError: onError,
});
const driver = await openDriver(setup.surface, { ...setup, runtime, compaction, onError });
await report({ t: "ready" });
await parent.next(); // "go"
const acknowledged: number[] = [];
/** How long each acknowledged turn took (ms), for the bench's percentiles. */
const turnMs: number[] = [];
const started = performance.now();
for (let n = 0; n < setup.turns; n++) {
  const start = performance.now();
  try {
    await driver.turn(n);
    acknowledged.push(n);
    turnMs.push(performance.now() - start);
  } catch (error) {
    errors.push(reportError(error));
  }
}
const ms = performance.now() - started;
// What this writer's own handle holds once it has read the others' writes: a valid view, and the state a
// fold of the log gives (a handle that folded its own writes and everyone else's as they came).
const problems: string[] = [];
const handle = driver.session;
if (handle !== undefined) {
  try {
    await handle.refresh();
    const log = await runtime.store.readStream(handle.id, { toSeq: handle.state.lastSeq });
    problems.push(...viewProblems(handle, log));
    const differences = stateDifferences(handle.state as SessionState, foldEvents(initialState(handle.id), log));
    if (differences.length > 0) problems.push(`the handle's state differs from a fold of the log in ${differences}`);
  } catch (error) {
    errors.push(reportError(error));
  }
}
try {
  await driver.close();
} catch (error) {
  errors.push(reportError(error));
}
await runtime.close();
await report({ t: "done", acknowledged, errors, ms, turnMs, problems });
process.disconnect();
