export { type CliIo, processIo } from "./cli-io.ts";
export { runCli } from "./main.ts";
