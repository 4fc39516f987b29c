/** The IO of this process: its stdout, stderr, environment and working directory. */
export function processIo() {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}
//# sourceMappingURL=cli-io.js.map
