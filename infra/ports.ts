/** Whether a local TCP port is taken, and by whom, for the "port taken" diagnosis. */
import { spawnSync } from 'node:child_process';
import net from 'node:net';

/** Whether something accepts TCP connections at `host:port` (within `timeoutMs`). */
export function isListening(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Who listens on a local TCP port, e.g. `python3 (pid 4242)`, from `ss` (Linux) or `lsof`;
 * `undefined` when neither can tell (not installed, or the process belongs to another user).
 */
export function listenerOf(port: number): string | undefined {
  const ss = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const fromSs = /users:\(\("([^"]+)",pid=(\d+)/.exec(ss.stdout ?? '');
  if (fromSs) return `${fromSs[1]} (pid ${fromSs[2]})`;
  const lsof = spawnSync('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc'], {
    encoding: 'utf8',
  });
  const pid = /^p(\d+)$/m.exec(lsof.stdout ?? '')?.[1];
  const name = /^c(.+)$/m.exec(lsof.stdout ?? '')?.[1];
  return pid && name ? `${name} (pid ${pid})` : undefined;
}
