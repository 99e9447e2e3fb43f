// The systemd unit of deploy/ starts the server without npm in between: it must run what
// `npm start` runs, with the same environment and node flags (the memory settings of a small
// server live there, docs/deploy.md).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

describe('deploy/compost.service', () => {
  it("runs the server as npm start does: the same node flags, entry and environment", () => {
    const start: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
    const words = start.split(/\s+/);
    const env = words.filter((w, i) => i < words.indexOf('node') && w.includes('='));
    const command = words.slice(words.indexOf('node')).join(' ');
    const unit = fs.readFileSync(path.join(root, 'deploy/compost.service'), 'utf8');
    const exec = /^ExecStart=(\S+) (.*)$/m.exec(unit);
    expect(exec?.[1]).toMatch(/\/node$/);
    expect(`node ${exec?.[2]}`).toBe(command);
    const unitEnv = [...unit.matchAll(/^Environment=(.*)$/gm)].map((m) => m[1]);
    expect(env.length).toBeGreaterThan(0);
    for (const e of env) expect(unitEnv).toContain(e);
  });
});
