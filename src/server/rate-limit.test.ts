import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DRIVERS, openTestDatabase } from '../../tests/helpers/test-app.js';
import { addressKey, createDbLimiter, createLimiter } from './rate-limit.js';
import { TooManyRequestsError } from './errors.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('attempt limiter', () => {
  it('allows max attempts per key in a window, then answers 429 with the seconds left', () => {
    const c = clock();
    const limiter = createLimiter({ max: 3, windowMs: 60_000, now: c.now });
    for (let i = 0; i < 3; i++) limiter.hit('a');
    c.advance(15_000);
    let error: unknown;
    try {
      limiter.hit('a');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect((error as TooManyRequestsError).statusCode).toBe(429);
    expect((error as TooManyRequestsError).message).toBe('Trop de tentatives. Veuillez réessayer dans quelques minutes.');
    expect((error as TooManyRequestsError).retryAfterSeconds).toBe(45);
    // Another key has its own allowance.
    expect(() => limiter.hit('b')).not.toThrow();
  });

  it('starts afresh once the window is over', () => {
    const c = clock();
    const limiter = createLimiter({ max: 1, windowMs: 60_000, now: c.now });
    limiter.hit('a');
    expect(() => limiter.hit('a')).toThrow(TooManyRequestsError);
    c.advance(60_000);
    expect(() => limiter.hit('a')).not.toThrow();
  });

  it('gives back a refunded attempt and forgets a reset key', () => {
    const limiter = createLimiter({ max: 2, windowMs: 60_000 });
    limiter.hit('a');
    limiter.hit('a');
    limiter.refund('a');
    expect(() => limiter.hit('a')).not.toThrow();
    expect(() => limiter.hit('a')).toThrow(TooManyRequestsError);
    limiter.reset('a');
    limiter.hit('a');
    expect(() => limiter.hit('a')).not.toThrow();
    limiter.refund('inconnu');
    expect(() => limiter.hit('inconnu')).not.toThrow();
  });
});

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
