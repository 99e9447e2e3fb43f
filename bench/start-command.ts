// The command of `npm start` (package.json's "start" script: environment, node's flags, entry),
// split so that a bench starts a server exactly as it runs in production, whatever file it
// starts: `spawn(process.execPath, [...nodeArgs, file], { env: { ...process.env, ...env } })`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function startCommand(): { env: Record<string, string>; nodeArgs: string[] } {
  const script: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const words = script.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [key, ...value] = words.shift()!.split('=');
    env[key] = value.join('=');
  }
  if (words.shift() !== 'node' || words.length < 2) throw new Error(`package.json "start" is not "[VAR=value...] node [flags...] entry": ${script}`);
  return { env, nodeArgs: words.slice(0, -1) };
}
