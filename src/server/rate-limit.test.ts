import { describe, expect, it } from 'vitest';
import { createLimiter } from './rate-limit.js';
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
