/** The `toolgate` process: wires the real streams and environment to the dispatcher. */
import { runCli } from './run-cli.js';

// `toolgate tail audit | head -3`: the reader went away, which ends the command, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const code = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  stopSignal: () => {
    const controller = new AbortController();
    // A second Ctrl-C while the command is still closing its connections ends it at once.
    const stop = () => {
      if (controller.signal.aborted) process.exit(130);
      controller.abort();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return controller.signal;
  },
});

// The command is over. Whatever it left open must not keep the process alive: a start that failed
// while a Kafka node or a Redis primary was down can leave a client reconnecting to it, and a
// supervisor waiting on an exit would wait for as long as that lasts. Exit once output is written.
process.exitCode = code;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
