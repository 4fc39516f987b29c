/**
 * A conversion in its own process (`startScript("test/support/partition-once.ts", [url, partitions])`):
 * runs partitionLog once and prints `{ done: tables converted }`, or `{ error, message }`. The partition
 * test SIGKILLs it mid-copy.
 */
import { isPalimpsestError } from "@palimpsest/core";
import { partitionLog } from "@palimpsest/store";

const [url = "", partitions = "4"] = process.argv.slice(2);
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
try {
  const result = await partitionLog(url, { partitions: Number(partitions) });
  print({ done: result.tables.filter((t) => t.converted).length });
} catch (error) {
  print({ error: isPalimpsestError(error) ? error.code : "unknown", message: String(error) });
}
