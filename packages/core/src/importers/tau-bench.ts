import { arr, fileStem, isObject, num, str } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonText } from "./json-input.ts";
import { openAiSession } from "./openai-messages.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

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
    const task = num(entry.task_id) ?? str(entry.task_id);
    const trial = num(entry.trial);
    const local = task === undefined ? `entry-${index}` : `task-${task}-trial-${trial ?? 0}`;
    const externalId = stem === undefined ? local : `${stem}:${local}`;
    const reward = num(entry.reward);
    const session = openAiSession(arr(entry.traj), {
      externalId,
      format: "tau-bench",
      title: `tau-bench ${local}${reward === undefined ? "" : ` (reward ${reward})`}`,
      pathOf: (i) => `${path}.traj[${i}]`,
    });
    onProgress?.(index + 1, doc.length);
    return session;
  });
}
