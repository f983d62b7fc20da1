import { describe, expect, it, test } from 'vitest';
import { alertable, chartItems, linesOf, mergeSeries, noData, watchedLabel } from './tiles';

const count = { aggFn: 'count', where: '', whereLanguage: 'lucene' } as const;

describe('linesOf', () => {
  test('a count by severity is one series per level, whatever the spelling', () => {
    // Counts come as strings, as HyperDX's engine writes 64-bit integers.
    const rows = [
      { ts_bucket: 0, group: ['error'], 'series_0.data': '2' },
      { ts_bucket: 0, group: ['ERROR'], 'series_0.data': '3' },
      { ts_bucket: 0, group: ['INFO'], 'series_0.data': '7' },
      { ts_bucket: 60000, group: ['error'], 'series_0.data': '0' },
      { ts_bucket: 60000, group: ['ERROR'], 'series_0.data': '1' },
      { ts_bucket: 60000, group: ['INFO'], 'series_0.data': '4' },
    ];
    const [lines] = linesOf([count], rows, ['SeverityText']);
    expect(lines.map((l) => l.group)).toEqual([['error'], ['info']]);
    expect(lines[0].points).toEqual([[0, 5], [60000, 1]]);
    expect(lines[1].points).toEqual([[0, 7], [60000, 4]]);
  });
  test('an average by severity keeps each spelling: averages do not add up', () => {
    const rows = [
      { ts_bucket: 0, group: ['error'], 'series_0.data': 2 },
      { ts_bucket: 0, group: ['ERROR'], 'series_0.data': 4 },
    ];
    const [lines] = linesOf([{ ...count, aggFn: 'avg', valueExpression: 'Duration' }], rows, ['SeverityText']);
    expect(lines.map((l) => l.group)).toEqual([['error'], ['ERROR']]);
  });
  test('other groups and several items keep their lines, labelled by item', () => {
    const rows = [
      { ts_bucket: 0, group: ['web'], 'series_0.data': 1, 'series_1.data': null },
      { ts_bucket: 0, group: ['api'], 'series_0.data': 2, 'series_1.data': 5 },
    ];
    const lines = linesOf([count, { ...count, aggFn: 'max', valueExpression: 'Duration', alias: 'slowest' }], rows, ['ServiceName']);
    expect(lines[0].map((l) => l.group)).toEqual([['count', 'web'], ['count', 'api']]);
    expect(lines[1].map((l) => l.group)).toEqual([['slowest', 'web'], ['slowest', 'api']]);
    expect(lines[1][0].points).toEqual([[0, null]]);
  });
});

describe('mergeSeries', () => {
  test('the answers of a tile of more than five items join by bucket and group', () => {
    const a = [{ ts_bucket: 0, group: ['web'], 'series_0.data': '1', 'series_4.data': 2 }];
    const b = [{ ts_bucket: 0, group: ['web'], 'series_0.data': 3 }, { ts_bucket: 60000, group: [], 'series_1.data': null }];
    expect(mergeSeries([a, b], 5)).toEqual([
      { ts_bucket: 0, group: ['web'], 'series_0.data': '1', 'series_4.data': 2, 'series_5.data': 3 },
      { ts_bucket: 60000, group: [], 'series_6.data': null },
    ]);
  });
});

describe('chartItems', () => {
  it('answers a chart tile items and nothing for the other kinds', () => {
    expect(chartItems({ displayType: 'line', select: [count] })).toEqual([count]);
    expect(chartItems({ displayType: 'heatmap', select: [{ valueExpression: 'Duration' }] })).toEqual([]);
    expect(chartItems({ displayType: 'search', select: 'Body' })).toEqual([]);
  });
});

describe('alertable and watchedLabel', () => {
  const errors = { ...count, where: 'level:error', alias: 'errors' };
  const gauge = (name: string) => ({ aggFn: 'avg', valueExpression: 'Value', metricType: 'gauge', metricName: name, where: '', whereLanguage: 'lucene' });
  const cases: { name: string; config: Record<string, unknown>; alertable: boolean; label?: string }[] = [
    { name: 'a line: its first item', config: { displayType: 'line', sourceId: 's', select: [errors, count] }, alertable: true, label: 'errors' },
    { name: 'a ratio: first over second', config: { displayType: 'line', sourceId: 's', asRatio: true, select: [errors, count] }, alertable: true, label: 'errors / count' },
    { name: 'a metric item: by its metric', config: { displayType: 'number', sourceId: 'm', select: [gauge('cpu')] }, alertable: true, label: 'avg of cpu' },
    { name: 'a ratio of metrics', config: { displayType: 'stacked_bar', sourceId: 'm', asRatio: true, select: [gauge('used'), gauge('total')] }, alertable: true, label: 'avg of used / avg of total' },
    { name: 'a formula: its first, over its items', config: { displayType: 'number', sourceId: 's', select: [errors, count], formulas: [{ expression: 'A / B * 100', alias: 'error %' }] }, alertable: true, label: 'error % (A = errors, B = count)' },
    { name: 'a ratio of three is nothing drawn', config: { displayType: 'line', sourceId: 's', asRatio: true, select: [errors, count, count] }, alertable: false },
    { name: 'raw SQL', config: { displayType: 'line', configType: 'sql', sqlTemplate: 'SELECT 1', connectionId: 'c' }, alertable: false },
    { name: 'markdown', config: { displayType: 'markdown', markdown: 'x' }, alertable: false },
    { name: 'a table', config: { displayType: 'table', sourceId: 's', groupBy: 'svc', select: [errors] }, alertable: true, label: 'errors' },
    { name: 'a table with a having (the API refuses it)', config: { displayType: 'table', sourceId: 's', groupBy: 'svc', having: 'errors > 1', select: [errors] }, alertable: false },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const config = c.config as Parameters<typeof alertable>[0];
      expect(alertable(config)).toBe(c.alertable);
      if (c.label) expect(watchedLabel(config)).toBe(c.label);
    });
  }
});

describe('noData', () => {
  const count = { aggFn: 'count', where: '', whereLanguage: 'lucene' } as const;
  const avg = { aggFn: 'avg', valueExpression: 'Duration', where: '', whereLanguage: 'lucene' } as const;
  const line = (...vs: (number | null)[]) => ({ group: [], points: vs.map((v, i) => [i * 60_000, v] as [number, number | null]) });
  test.each([
    ['no line at all', [count], [[]], true],
    ['a count filled with 0', [count], [[line(0, 0, 0)]], true],
    ['a count of one event', [count], [[line(0, 1, 0)]], false],
    ['an average without a value', [avg], [[line(null, null)]], true],
    ['an average of 0 is a value', [avg], [[line(null, 0)]], false],
    ['a count empty beside an average with a value', [count, avg], [[line(0, 0)], [line(null, 3)]], false],
  ])('%s', (_name, items, perItem, want) => {
    expect(noData(items, perItem)).toBe(want);
  });
});
