/**
 * Every relative link of the hand-written and generated pages leads somewhere: the architecture
 * page's walk promises one hop from a rung to its code, and a file moved without its links breaks
 * that promise silently.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './check-process-words.js';

/** The pages a reader follows links from, relative to the repository root. */
function pages(): string[] {
  const docs = fs
    .readdirSync(path.join(REPOSITORY_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const readmes = ['packages', 'services', 'bench', 'examples'].flatMap((parent) =>
    fs.readdirSync(path.join(REPOSITORY_ROOT, parent)).map((name) => `${parent}/${name}/README.md`),
  );
  return ['README.md', 'CONTRIBUTING.md', 'bench/README.md', ...docs, ...readmes].filter((page) =>
    fs.existsSync(path.join(REPOSITORY_ROOT, page)),
  );
}

/** The relative targets of a page's Markdown links, without their `#fragment`. */
export function relativeTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^(https?:|mailto:|#)/.test(target))
    .map((target) => target.split('#')[0] ?? '');
}

describe('relativeTargets', () => {
  it('keeps relative paths and drops addresses, anchors and fragments', () => {
    const text = '[a](../x/y.ts#L3) [b](https://e.org) [c](#top) [d](mailto:a@b) [e](docs/z.md)';
    expect(relativeTargets(text)).toEqual(['../x/y.ts', 'docs/z.md']);
  });
});

describe('the pages of the repository', () => {
  it('are found (the check is not vacuous)', () => {
    expect(pages()).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md']));
  });

  it.each(pages())('%s links only to files that exist', (page) => {
    const text = fs.readFileSync(path.join(REPOSITORY_ROOT, page), 'utf8');
    const missing = relativeTargets(text).filter(
      (target) => !fs.existsSync(path.resolve(REPOSITORY_ROOT, path.dirname(page), target)),
    );
    expect(missing).toEqual([]);
  });
});
