/** The `toolgate` process: wires the real streams and environment to the dispatcher. */
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
