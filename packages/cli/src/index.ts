export { type CliIo, processIo } from "./cli-io.ts";
export { buildProgram, runCli } from "./main.ts";
