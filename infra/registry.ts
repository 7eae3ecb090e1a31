/**
 * The schema registry component: Apicurio Registry 3 with its Confluent-compatible API at
 * `/apis/ccompat/v7`, storing schemas in Kafka (`kafkasql`) so they survive a registry restart.
 */
import path from 'node:path';
import { APICURIO_VERSION, MIN_JAVA, type StackConfig } from './stack-config.js';
import { findJava } from './java.js';
import { fetchRegistry } from './maven.js';
import { spawnDetached, type StartedProcess } from './processes.js';
import { REGISTRY_PRINCIPAL } from './stack-principals.js';
import { kafkaPassword, writeSecretFile } from './stack-secrets.js';
import type { Attempt, Reporter } from './wait.js';

/** Where a person can point `TOOLGATE_REGISTRY_JAVA_HOME` when the default Java is too old. */
export const REGISTRY_JAVA_HOME = 'TOOLGATE_REGISTRY_JAVA_HOME';

/** The registry's log (Quarkus writes to the console, which the driver sends here). */
export function registryLog(config: StackConfig): string {
  return path.join(config.logDir, 'registry.log');
}

/** Lists subjects at `url` (the Confluent API base): ready when it answers with a JSON array. */
export async function probeRegistry(url: string): Promise<Attempt> {
  try {
    const response = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(3_000) });
    if (!response.ok) return { ready: false, why: `GET /subjects answered ${response.status}` };
    const body: unknown = await response.json();
    return Array.isArray(body)
      ? { ready: true }
      : { ready: false, why: 'GET /subjects did not list subjects' };
  } catch (error) {
    return { ready: false, why: causeOf(error) };
  }
}

/**
 * Readiness of a registry `stack:up` started: it lists subjects and its health check says ready
 * (which includes having read its Kafka journal, so schemas registered before a restart are back).
 */
export async function registryReady(config: StackConfig): Promise<Attempt> {
  const listed = await probeRegistry(config.addresses.schemaRegistryUrl);
  if (!listed.ready) return listed;
  try {
    const health = `http://${config.host}:${config.ports.registryManagement}/health/ready`;
    const response = await fetch(health, { signal: AbortSignal.timeout(3_000) });
    return response.ok
      ? { ready: true }
      : { ready: false, why: `health check answered ${response.status}` };
  } catch (error) {
    return { ready: false, why: causeOf(error) };
  }
}

/** Checks what starting the registry needs (Java 21+) before anything is started. */
export function preflightRegistry(config: StackConfig): void {
  findJava('registry', MIN_JAVA.registry, config.env, REGISTRY_JAVA_HOME);
}

/** Fetches and starts Apicurio Registry, its storage in the stack's Kafka. */
export async function startRegistry(
  config: StackConfig,
  reporter: Reporter,
): Promise<StartedProcess> {
  const java = findJava('registry', MIN_JAVA.registry, config.env, REGISTRY_JAVA_HOME);
  const app = await fetchRegistry(config, reporter);
  reporter.line(
    `registry: Apicurio Registry ${APICURIO_VERSION} on Java ${java.release} (${java.path})`,
  );
  // Quarkus reads `config/application.properties` under its working directory: the registry's
  // Kafka credentials go there (mode 0600), not on a command line that `ps` shows.
  writeSecretFile(
    path.join(config.stackDir, 'registry', 'config', 'application.properties'),
    registryKafkaProperties(config),
  );
  return spawnDetached({
    command: java.path,
    args: [...registryJvmOptions(config), '-jar', path.join(app, 'quarkus-run.jar')],
    cwd: path.join(config.stackDir, 'registry'),
    logFile: registryLog(config),
    pidFile: path.join(config.runDir, 'registry.pid'),
    env: config.env,
  });
}

/**
 * How the registry reaches the stack's Kafka: SASL/SCRAM as its own principal, which may use only
 * its own topics and groups (infra/stack-principals.ts). Kafka client settings under
 * `apicurio.kafka.common.` go to its producer, consumer and admin client alike.
 */
export function registryKafkaProperties(config: StackConfig): string {
  const password = kafkaPassword(config, REGISTRY_PRINCIPAL);
  return [
    'apicurio.kafka.common.security.protocol=SASL_PLAINTEXT',
    'apicurio.kafka.common.sasl.mechanism=SCRAM-SHA-512',
    `apicurio.kafka.common.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${REGISTRY_PRINCIPAL}" password="${password}";`,
    '',
  ].join('\n');
}

/** JVM and Quarkus options: loopback only (the management interface too), Kafka-backed storage. */
export function registryJvmOptions(config: StackConfig): string[] {
  return [
    '-Xms128m',
    '-Xmx512m',
    '-XX:+ExitOnOutOfMemoryError',
    // Start-up dominates on two cores: C1 only, and a class-data archive written at the first
    // exit and reused after (measured: ~30 s to ~12 s under load). Writing it makes that first
    // stop slow (~100 MB), hence the registry's long stop grace in the driver.
    '-XX:TieredStopAtLevel=1',
    '-XX:+AutoCreateSharedArchive',
    '-Xlog:cds*=off',
    `-XX:SharedArchiveFile=${path.join(config.stackDir, 'registry', 'app-cds.jsa')}`,
    `-Dtoolgate.stack=${config.stackDir}`,
    `-Dquarkus.http.host=${config.host}`,
    `-Dquarkus.http.port=${config.ports.registry}`,
    // Quarkus's management interface (health, metrics) listens on 0.0.0.0:9000 unless told.
    `-Dquarkus.management.host=${config.host}`,
    `-Dquarkus.management.port=${config.ports.registryManagement}`,
    '-Dapicurio.storage.kind=kafkasql',
    // Default 5 s; each start polls the snapshot topic twice before reading the journal.
    '-Dapicurio.kafkasql.consumer.poll.timeout=1000',
    `-Dapicurio.kafkasql.bootstrap.servers=${config.addresses.kafkaBrokers.join(',')}`,
  ];
}

function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
