/** The identity of an alert: its id (rule, subject, window start) and its record key (rule, subject). */
import { createHash } from 'node:crypto';
import type { Alert, AlertSubject } from '../analytics-types.js';

/**
 * SHA-256 (hex) over the JSON array `[rule, subject kind, subject tenant, subject id, window
 * start]`: the same rule, subject and window always get the same id, so alerts raised again by a
 * replay of the same audit events (after a crash) are recognised as the same alert.
 */
export function alertIdOf(rule: string, subject: AlertSubject, windowStart: string): string {
  const parts = [rule, subject.kind, subject.tenant, subject.id, windowStart];
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex');
}

/**
 * The key of an alert's record on the compacted alerts topic: the JSON array `[rule, subject
 * kind, subject tenant, subject id]`, so compaction keeps the latest alert of each rule and
 * subject. JSON, so that no id (a caller-chosen run id may hold any character) can make two
 * subjects' keys equal.
 */
export function alertKey(alert: Pick<Alert, 'rule' | 'subject'>): string {
  const { rule, subject } = alert;
  return JSON.stringify([rule, subject.kind, subject.tenant, subject.id]);
}

/** A map key for a subject: its kind, tenant and id, collision-free. */
export function subjectKey(subject: AlertSubject): string {
  return JSON.stringify([subject.kind, subject.tenant, subject.id]);
}
