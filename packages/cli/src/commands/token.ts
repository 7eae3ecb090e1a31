/**
 * `toolgate token`: mints a development session token with the deployment's HS256 secret, so the
 * example can be tried by hand. Production tokens come from the deployer's auth service.
 */
import { mintingIssuer, mintSession } from '@toolgate/shared';
import { CliError, EXIT } from '../cli-error.js';
import { optionalString, requiredString, type Command } from '../command.js';
import { loadDeployment } from '../load-deployment.js';

/** `toolgate token --config <file> --sub <id> --tenant <id> [--roles a,b] [--ttl seconds]`. */
export const tokenCommand: Command = {
  name: 'token',
  summary: 'Mint a development session token (HS256 deployments only).',
  usage:
    'toolgate token --config <file> --sub <subject> --tenant <tenant> [--roles r1,r2] [--ttl 3600]',
  options: {
    config: { type: 'string', description: 'the deployment configuration file (required)' },
    sub: { type: 'string', description: 'the subject (user id) (required)' },
    tenant: { type: 'string', description: 'the tenant (required)' },
    roles: { type: 'string', description: 'comma-separated roles (default none)' },
    ttl: { type: 'string', description: 'lifetime in seconds (default 3600)' },
  },
  async run({ values, io }) {
    const deployment = await loadDeployment(requiredString(values, 'config'));
    const secret = deployment.sessions.secret;
    if (secret === undefined)
      throw new CliError(
        'this deployment verifies sessions with a JWKS; mint tokens with its auth service',
        EXIT.usage,
      );
    if (deployment.sessions.issuer === undefined)
      throw new CliError('the deployment names no session issuer (`sessions.issuer`)', EXIT.usage);
    const ttl = Number(optionalString(values, 'ttl') ?? '3600');
    if (!Number.isInteger(ttl) || ttl <= 0)
      throw new CliError('--ttl must be a positive whole number of seconds', EXIT.usage);
    const roles = (optionalString(values, 'roles') ?? '')
      .split(',')
      .map((r) => r.trim())
      .filter((r) => r !== '');
    const token = await mintSession(
      { subject: requiredString(values, 'sub'), tenant: requiredString(values, 'tenant'), roles },
      secret,
      { now: new Date(), ttlSeconds: ttl, issuer: mintingIssuer(deployment.sessions) },
    );
    io.stdout.write(`${token}\n`);
    return 0;
  },
};
