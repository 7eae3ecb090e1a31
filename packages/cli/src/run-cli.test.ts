import { describe, expect, it } from 'vitest';
import { COMMANDS } from './run-cli.js';
import { runCaptured } from './run-cli.test-support.js';

const cli = (args: string[]) => runCaptured(args);

describe('runCli', () => {
  it('lists every command, each with its own --help', async () => {
    const overview = await cli(['--help']);
    expect(overview.code).toBe(0);
    for (const name of [
      'stack',
      'topics',
      'acls',
      'keys',
      'start',
      'evaluate',
      'tools',
      'pending',
      'approve',
      'reject',
      'tail',
      'stats',
    ])
      expect(overview.out).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(overview.out).toContain('4 session refused or not allowed, 5 not found');
    for (const command of COMMANDS) {
      const help = await cli([command.name, '--help']);
      expect(help, command.name).toMatchObject({ code: 0, err: '' });
      expect(help.out.startsWith(`usage: ${command.usage}\n`), command.name).toBe(true);
    }
  });

  it('refuses bad usage of the new commands with exit 2 before touching anything', async () => {
    const cases: [string[], RegExp][] = [
      [['stack'], /name one action: up, down, status or env/],
      [['stack', 'env'], /name one principal, or --list/],
      [['topics'], /the only subcommand is: topics create/],
      [['topics', 'create'], /--config \(or TOOLGATE_CONFIG\) is required/],
      [['acls', 'show'], /name one action: print or apply/],
      [['keys', 'tool', 'search'], /TOOLGATE_COMMAND_KEY is required/],
      [['tail', 'observations'], /observations are per tenant/],
      [['tail', 'audit'], /TOOLGATE_KAFKA_SASL_MECHANISM is required/],
      [['stats'], /TOOLGATE_KAFKA_SASL_MECHANISM is required/],
      [['stack', 'restart'], /name one action/],
      [['tail'], /name one topic/],
      [['tail', 'audits'], /unknown topic "audits": one of proposals/],
      [['tail', 'audit', '--max', '0'], /--max must be a whole number/],
      [['tail', 'audit', '--since', 'yesterday'], /--since "yesterday"/],
      [['stats', '--by', 'colour'], /unknown "colour"/],
      [['stats', '--since', '1 hour'], /--since "1 hour"/],
      [['pending'], /a session token is required: --as <token> or TOOLGATE_SESSION_TOKEN/],
      [['approve', '--as', 't'], /name one confirmation id/],
      [['reject', 'a', 'b', '--as', 't'], /name one confirmation id/],
      [['reject', 'conf_1', '--as', 't', '--reason', ' '], /--reason: A reason is 1 to 280/],
      [['reject', 'conf_1', '--as', 't', '--reason', 'a\nb'], /without control characters/],
      [['approve', 'conf_1', '--as', 't', '--reason', 'fine'], /Unknown option '--reason'/],
      [['approve', 'conf_1', '--url', 'file:///x', '--as', 't'], /not an http\(s\) URL/],
      [['stats', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.err, args.join(' ')).toMatch(message);
      expect(result.out, args.join(' ')).toBe('');
    }
  });
});
