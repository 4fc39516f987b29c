import { z } from "zod";
import { isObject } from "../input/json-object.ts";
import { fileStem } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonText } from "./json-input.ts";
import { openAiSession } from "./openai-messages.ts";
import { listField, numberField, read, recordOf } from "./source-fields.ts";
import type { TranscriptFormat } from "./transcript-format.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/** One tau-bench result: the task (a number or a name), the trial, the reward and the trajectory. */
const TauEntry = recordOf({
  task_id: z.union([z.number(), z.string()]).optional().catch(undefined),
  trial: numberField,
  reward: numberField,
  traj: listField,
});

/**
 * Parses tau-bench results: a JSON array of `{task_id, reward, info, traj, trial, source_index?}`, one
 * session per element with `traj` as OpenAI chat. The session id is `<file stem>:task-<task_id>-trial-<trial>`
 * (task and trial alone repeat across domains' result files), or `entry-<index>` without a task id.
 */
export function parseTauBench(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const doc = parseJsonText(text, fileName);
  if (!Array.isArray(doc)) throw invalidInput(inputPath(fileName), "tau-bench results must be a JSON array");
  const stem = fileStem(fileName);
  return doc.map((entry, index) => {
    const path = `${inputPath(fileName)}[${index}]`;
    if (!isObject(entry) || !Array.isArray(entry.traj))
      throw invalidInput(path, "a tau-bench entry needs a traj array");
    const { task_id: task, trial, reward, traj } = read(TauEntry, entry);
    const local = task === undefined ? `entry-${index}` : `task-${task}-trial-${trial ?? 0}`;
    const externalId = stem === undefined ? local : `${stem}:${local}`;
    const session = openAiSession(traj, {
      externalId,
      format: "tau-bench",
      title: `tau-bench ${local}${reward === undefined ? "" : ` (reward ${reward})`}`,
      pathOf: (i) => `${path}.traj[${i}]`,
    });
    onProgress?.(index + 1, doc.length);
    return session;
  });
}

/** tau-bench results: a JSON array of tasks, each with its `traj` of OpenAI chat. */
export const tauBenchFormat: TranscriptFormat<"tau-bench"> = {
  name: "tau-bench",
  summary: "tau-bench results (a JSON array of tasks, each with its traj)",
  extensions: [".json"],
  provider: "openai",
  recognize: { array: ([first]) => isObject(first) && Array.isArray(first.traj) },
  parse: parseTauBench,
};
