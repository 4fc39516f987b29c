import { arr, isObject, num, str } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonText } from "./json-input.ts";
import { openAiSession } from "./openai-messages.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/**
 * Parses tau-bench results: a JSON array of `{task_id, reward, info, traj, trial, source_index?}`, one
 * session per element with `traj` as OpenAI chat. The session id is `task-<task_id>-trial-<trial>`
 * (unique within one results file), falling back to the element's index.
 */
export function parseTauBench(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const doc = parseJsonText(text, fileName);
  if (!Array.isArray(doc)) throw invalidInput(inputPath(fileName), "tau-bench results must be a JSON array");
  return doc.map((entry, index) => {
    const path = `${inputPath(fileName)}[${index}]`;
    if (!isObject(entry) || !Array.isArray(entry.traj))
      throw invalidInput(path, "a tau-bench entry needs a traj array");
    const task = num(entry.task_id) ?? str(entry.task_id);
    const trial = num(entry.trial);
    const externalId = task === undefined ? `entry-${index}` : `task-${task}-trial-${trial ?? 0}`;
    const reward = num(entry.reward);
    const session = openAiSession(arr(entry.traj), {
      externalId,
      format: "tau-bench",
      title: `tau-bench ${externalId}${reward === undefined ? "" : ` (reward ${reward})`}`,
      pathOf: (i) => `${path}.traj[${i}]`,
    });
    onProgress?.(index + 1, doc.length);
    return session;
  });
}
