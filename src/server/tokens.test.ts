import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.js';
import { hashToken, newToken } from './tokens.js';

describe('tokens', () => {
  it('carry 256 random bits, URL-safe, never twice the same', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => newToken()));
    expect(tokens.size).toBe(200);
    for (const t of tokens) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    }
  });

  it('are stored as a SHA-256 that does not contain them', () => {
    const t = newToken();
    expect(hashToken(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(t)).toBe(hashToken(t));
    expect(hashToken(t)).not.toContain(t);
    expect(hashToken(`${t}x`)).not.toBe(hashToken(t));
  });
});

describe('passwords', () => {
  it('are hashed with argon2id at OWASP parameters (19 MiB, 2 passes, 1 lane), salted', async () => {
    const a = await hashPassword('un-mot-de-passe');
    const b = await hashPassword('un-mot-de-passe');
    const params = a.match(/^\$argon2id\$v=19\$([^$]+)\$/)?.[1].split(',').sort();
    expect(params).toEqual(['m=19456', 'p=1', 't=2']);
    expect(a).not.toBe(b);
    expect(a).not.toContain('un-mot-de-passe');
  });

  it('check the right password only, and refuse a missing or broken hash', async () => {
    const h = await hashPassword('un-mot-de-passe');
    expect(await verifyPassword(h, 'un-mot-de-passe')).toBe(true);
    expect(await verifyPassword(h, 'Un-mot-de-passe')).toBe(false);
    expect(await verifyPassword(null, 'un-mot-de-passe')).toBe(false);
    expect(await verifyPassword('pas-un-hash', 'un-mot-de-passe')).toBe(false);
  });
});
