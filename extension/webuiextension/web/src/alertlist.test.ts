import { describe, expect, test } from 'vitest';
import { alertListConfig, alertListed, byState, lastFired } from './alertlist';

describe('alertListed', () => {
  const a = { name: 'Redis memory high', state: 'ALERT' as const };
  test.each([
    [{}, true],
    [{ where: 'redis' }, true],
    [{ where: 'MEMORY  redis' }, true],
    [{ where: 'redis cpu' }, false],
    [{ alertStates: ['ALERT' as const] }, true],
    [{ alertStates: ['OK' as const, 'NO_DATA' as const] }, false],
    [{ where: 'redis', alertStates: [] }, true],
  ])('%j', (c, want) => expect(alertListed(c, a)).toBe(want));
  test('an alert without a name matches no word', () => expect(alertListed({ where: 'x' }, { name: null, state: 'OK' })).toBe(false));
});

test('lastFired is the newest move into ALERT', () => {
  expect(lastFired([
    { state: 'ALERT', previousState: 'ALERT', evaluatedAt: 30 },
    { state: 'ALERT', previousState: 'OK', evaluatedAt: 20 },
    { state: 'OK', previousState: 'ALERT', evaluatedAt: 15 },
    { state: 'ALERT', previousState: 'NO_DATA', evaluatedAt: 10 },
  ])).toBe(20);
  expect(lastFired([{ state: 'OK', previousState: 'OK', evaluatedAt: 1 }])).toBeNull();
});

test('byState puts firing alerts first', () => {
  const l = [{ name: 'b', state: 'OK' as const }, { name: 'c', state: 'ALERT' as const }, { name: 'a', state: 'NO_DATA' as const }, { name: 'a', state: 'ALERT' as const }];
  expect(l.sort(byState).map((x) => x.name + x.state)).toEqual(['aALERT', 'cALERT', 'aNO_DATA', 'bOK']);
});

test('alertListConfig drops what a chart left', () => {
  expect(alertListConfig({ displayType: 'alerts', sourceId: 'logs', select: [], where: '', alertStates: [] })).toEqual({ displayType: 'alerts' });
  expect(alertListConfig({ displayType: 'alerts', where: 'redis', alertStates: ['ALERT'] })).toEqual({ displayType: 'alerts', where: 'redis', alertStates: ['ALERT'] });
});
