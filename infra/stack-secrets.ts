/**
 * The local stack's credentials and keys: one random Kafka password per principal, one random Redis
 * password per Redis user, and the gate's keys (integrity, command, observation signing), made on
 * first use and kept under `<stack>/secrets/` (directory 0700, files 0600, never committed). A
 * principal or key added later is made when first asked for; existing ones are never changed.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StackConfig } from './stack-config.js';

/** A random secret of `bytes` bytes, base64url (no quoting trouble in JAAS or ACL files). */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** The folder of the stack's secrets. */
export function secretsDir(config: Pick<StackConfig, 'stackDir'>): string {
  return path.join(config.stackDir, 'secrets');
}

/** The file holding one Kafka principal's password (what TOOLGATE_KAFKA_PASSWORD_FILE names). */
export function kafkaPasswordFile(
  config: Pick<StackConfig, 'stackDir'>,
  principal: string,
): string {
  return path.join(secretsDir(config), 'kafka', `${principal}.password`);
}

/** Writes `text` to `file` with mode 0600, its folder 0700, atomically (write, then rename). */
export function writeSecretFile(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  chmodSync(path.dirname(file), 0o700);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** The password of `principal` (made now if it has none). */
export function kafkaPassword(config: Pick<StackConfig, 'stackDir'>, principal: string): string {
  const file = kafkaPasswordFile(config, principal);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomSecret();
  writeSecretFile(file, `${password}\n`);
  return password;
}

/** The passwords of `principals`, made where missing. */
export function kafkaPasswords(
  config: Pick<StackConfig, 'stackDir'>,
  principals: readonly string[],
): ReadonlyMap<string, string> {
  return new Map(principals.map((p) => [p, kafkaPassword(config, p)]));
}

/** The password of a Redis user of the stack (made now if it has none). */
export function redisPassword(config: Pick<StackConfig, 'stackDir'>, user: string): string {
  const file = path.join(secretsDir(config), 'redis', `${user}.password`);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomSecret();
  writeSecretFile(file, `${password}\n`);
  return password;
}

/** The gate's keys for the local stack. Secrets: printed only by `toolgate stack env`. */
export interface GateKeys {
  /** TOOLGATE_INTEGRITY_KEY: HMAC key of internal envelopes (stages only). */
  readonly integrityKey: string;
  /** TOOLGATE_COMMAND_KEY: execute's key, from which each tool's key is derived. */
  readonly commandKey: string;
  /** TOOLGATE_OBSERVATION_KEY: the stages' Ed25519 private key (PKCS#8 DER, base64). */
  readonly observationKey: string;
  /** TOOLGATE_OBSERVATION_PUBLIC_KEYS: its public key (SPKI DER, base64), for agent clients. */
  readonly observationPublicKey: string;
}

/** The gate's keys, made on first use. */
export function gateKeys(config: Pick<StackConfig, 'stackDir'>): GateKeys {
  const file = path.join(secretsDir(config), 'gate-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as GateKeys;
  const pair = generateKeyPairSync('ed25519');
  const keys: GateKeys = {
    integrityKey: randomSecret(32),
    commandKey: randomSecret(32),
    observationKey: pair.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
    observationPublicKey: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
  writeSecretFile(file, `${JSON.stringify(keys, null, 2)}\n`);
  return keys;
}
