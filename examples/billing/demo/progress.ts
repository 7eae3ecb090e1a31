/**
 * Progress while the workload runs: the agents' client wrapped so that every call counts as sent
 * and, once its terminal observation arrives, as settled; a line "sent 40/64, settled 38" is
 * printed when the counts change (rewritten in place on a terminal), at most every `everyMs`.
 */
import type { AgentClient } from '@toolgate/agent-client';

/** A counting client and the ticker that prints its counts. */
export interface Progress {
  readonly client: Pick<AgentClient, 'call'>;
  /** Prints the final counts and stops the ticker. */
  finish(): void;
}

/** Wraps `client`; `expected` is how many proposals the workload sends. */
export function trackProgress(
  client: Pick<AgentClient, 'call'>,
  expected: number,
  out: NodeJS.WriteStream,
  everyMs = 1_000,
): Progress {
  let sent = 0;
  let settled = 0;
  let shown = '';
  const line = () => `  sent ${sent}/${expected}, settled ${settled}`;
  const show = () => {
    const text = line();
    if (text === shown) return;
    shown = text;
    out.write(out.isTTY ? `\r${text}` : `${text}\n`);
  };
  const timer = setInterval(show, everyMs);
  return {
    client: {
      async call(proposal, options) {
        sent += 1;
        try {
          return await client.call(proposal, options);
        } finally {
          settled += 1;
        }
      },
    },
    finish() {
      clearInterval(timer);
      show();
      if (out.isTTY) out.write('\n');
    },
  };
}
