export { buildProgram, runCli } from "./main.ts";
