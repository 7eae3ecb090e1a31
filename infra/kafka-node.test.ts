import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kafkaNodeFiles } from './kafka.js';
import { kafkaNode } from './kafka-node.js';
import { isRunning, spawnDetached, type StartedProcess } from './processes.js';
import { loadStackConfig } from './stack-config.js';
import { StackError } from './stack-error.js';

const dirs: string[] = [];
const children: StartedProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (isRunning(c.record)) process.kill(c.record.pid);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function threeNodes() {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-kafka-node-'));
  dirs.push(dir);
  return loadStackConfig({ TOOLGATE_STACK_DIR: dir, TOOLGATE_STACK_KAFKA_NODES: '3' }, '/repo');
}

/** A stand-in for node `id`'s JVM: a process recorded in that node's pid file. */
function standIn(config: ReturnType<typeof threeNodes>, id: number): StartedProcess {
  const files = kafkaNodeFiles(config, config.kafkaNodes[id - 1]!);
  const child = spawnDetached({
    command: process.execPath,
    args: ['-e', 'setInterval(() => {}, 1000)'],
    cwd: files.dir,
    logFile: files.log,
    pidFile: files.pidFile,
    env: process.env,
  });
  children.push(child);
  return child;
}

describe('kafkaNode', () => {
  it('names the node its pid file records, and SIGKILLs exactly that process', async () => {
    const config = threeNodes();
    const two = standIn(config, 2);
    const three = standIn(config, 3);
    const node = kafkaNode(config, 2);
    expect(node.address).toBe('127.0.0.1:9094');
    expect(node.pid()).toBe(two.record.pid);

    expect(await node.kill()).toBe(true);
    expect(isRunning(two.record)).toBe(false);
    expect(node.pid()).toBeUndefined();
    expect(kafkaNode(config, 3).pid()).toBe(three.record.pid);
  });

  it('kills nothing when the node is not running', async () => {
    const config = threeNodes();
    const node = kafkaNode(config, 1);
    expect(node.pid()).toBeUndefined();
    expect(await node.kill()).toBe(false);
  });

  it('refuses a node the stack does not have, or a Kafka it did not start', () => {
    const config = threeNodes();
    expect(() => kafkaNode(config, 4)).toThrow("the stack's Kafka has nodes 1 to 3, not node 4");
    expect(() => kafkaNode(config, 0)).toThrow(StackError);
    const single = loadStackConfig({}, '/repo');
    expect(() => kafkaNode(single, 2)).toThrow("the stack's Kafka has node 1 only, not node 2");
    const external = loadStackConfig({ TOOLGATE_KAFKA_BROKERS: 'k1:9092' }, '/repo');
    expect(() => kafkaNode(external, 1)).toThrow('it has no node to stop or start');
  });
});
