import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, openTestDatabase } from '../../tests/helpers/test-app.js';
import { addressKey, createDbLimiter } from './rate-limit.js';
import { TooManyRequestsError } from './errors.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe.each(TEST_DRIVERS)('attempt limiter kept in the database (%s)', (driver) => {
  let h: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    h = await openTestDatabase(driver);
  });
  afterAll(() => h.close());

  it('allows max attempts per key in a window, then answers 429 with the seconds left, and starts afresh after it', async () => {
    const c = clock();
    const limiter = createDbLimiter(h.db, { kind: 'essai', max: 3, windowMs: 60_000, now: c.now });
    for (let i = 0; i < 3; i++) await limiter.hit('a');
    c.advance(15_000);
    const error = await limiter.hit('a').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect((error as TooManyRequestsError).retryAfterSeconds).toBe(45);
    await expect(limiter.hit('b')).resolves.toBeUndefined();
    // Another kind counts apart, even for the same key.
    await expect(createDbLimiter(h.db, { kind: 'autre', max: 1, windowMs: 60_000, now: c.now }).hit('a')).resolves.toBeUndefined();
    c.advance(45_000);
    await expect(limiter.hit('a')).resolves.toBeUndefined();
  });

  it('gives back a refunded attempt and forgets a reset key', async () => {
    const limiter = createDbLimiter(h.db, { kind: 'rembourse', max: 2, windowMs: 60_000 });
    await limiter.hit('a');
    await limiter.hit('a');
    await limiter.refund('a');
    await limiter.hit('a');
    await expect(limiter.hit('a')).rejects.toBeInstanceOf(TooManyRequestsError);
    await limiter.reset('a');
    await limiter.hit('a');
    await limiter.hit('a');
    await limiter.refund('inconnu');
    await expect(limiter.hit('inconnu')).resolves.toBeUndefined();
  });

  it('lets exactly max of many parallel attempts through', async () => {
    const limiter = createDbLimiter(h.db, { kind: 'parallele', max: 10, windowMs: 60_000 });
    const results = await Promise.allSettled(Array.from({ length: 25 }, () => limiter.hit('a')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof TooManyRequestsError)).toHaveLength(15);
  });
});

describe('client address as the limits count it', () => {
  it('keeps an IPv4 address, unwraps an IPv4-mapped one, and groups IPv6 by /64', () => {
    expect(addressKey('198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0003::1')).toBe('2001:db8:1:3::/64');
  });
});
