// The documentation's relative links and #anchors must lead somewhere: a renamed heading or a
// moved file would otherwise leave readers at the top of a page, or nowhere.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`), 'src/server/db/migrations/README.md', 'README.md'].filter((f) => f.endsWith('.md'));

/** The text of a page outside its fenced code blocks. */
const prose = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchors of a page's headings: lower-cased, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

describe('documentation links', () => {
  it('computes GitHub anchors', () => {
    expect([...anchors('# Sizing and benchmarks\n## `site.nom_tri`: natural order\n## Exports\n## Exports')]).toEqual([
      'sizing-and-benchmarks',
      'sitenom_tri-natural-order',
      'exports',
      'exports-1',
    ]);
  });

  it.each(PAGES)('%s: every relative link and #anchor resolves', (page) => {
    const broken: string[] = [];
    for (const [, target] of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split('#');
      const dest = file ? path.join(path.dirname(page), file) : page;
      if (!fs.existsSync(path.join(ROOT, dest))) broken.push(`${target}: no file ${dest}`);
      else if (anchor !== undefined && dest.endsWith('.md') && !anchors(prose(dest)).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${dest}`);
    }
    expect(broken).toEqual([]);
  });
});
