import { describe, expect, it } from 'vitest';
import { groupPatterns, patternOf } from './patterns';

describe('patternOf', () => {
  it('masks what varies and keeps the words', () => {
    expect(patternOf('GET /users/42 took 12.5ms')).toBe('GET /<*> took <*>');
    expect(patternOf('user=alice id=7 from 10.0.0.12:5432,')).toBe('user=alice id=<*> from <*>,');
    expect(patternOf('trace 4bf92f3577b34da6a3ce929d0e0e4736 done')).toBe('trace <*> done');
    expect(patternOf('order 123e4567-e89b-12d3-a456-426614174000 "paid"')).toBe('order <*> <*>');
    expect(patternOf('  connection   reset  ')).toBe('connection reset');
  });
});

describe('groupPatterns', () => {
  it('counts each shape, the most frequent first', () => {
    expect(groupPatterns(['payment 1 failed', 'payment 2 failed', 'started', 'payment 3 failed'])).toEqual([
      { pattern: 'payment <*> failed', count: 3, sample: 'payment 1 failed' },
      { pattern: 'started', count: 1, sample: 'started' },
    ]);
  });
});
