import { describe, expect, test } from 'vitest';
import { appliesTo, metricOf, narrowQuery, narrowTile, narrowWhere } from './filters';

const hostFilter = { id: 'f1', type: 'QUERY_EXPRESSION' as const, name: 'host', expression: 'host', sourceId: 'metrics' };

describe('narrowWhere', () => {
  test.each([
    ['', 'lucene', 'ServiceName', 'web', 'ServiceName:"web"'],
    ['level:error', 'lucene', 'ServiceName', 'web', '(level:error) AND ServiceName:"web"'],
    ['', 'lucene', 'host.name', 'a b', 'host.name:"a b"'],
    ['', 'datadog', 'service', 'say "hi"', 'service:"say \\"hi\\""'],
    ['', 'sql', 'ServiceName', "o'neil", "ServiceName = 'o\\'neil'"],
    ["SeverityText = 'ERROR'", 'sql', "ResourceAttributes['host.name']", 'web-1', "(SeverityText = 'ERROR') AND ResourceAttributes['host.name'] = 'web-1'"],
  ])('%s (%s) narrowed by %s=%s', (where, lang, field, value, want) => {
    expect(narrowWhere(where, lang, field, value)).toBe(want);
  });
});

describe('narrowQuery', () => {
  test.each([
    ['avg:system.cpu.user{*}', 'avg:system.cpu.user{host:web-1}'],
    ['avg:system.cpu.user{env:prod} by {host}', 'avg:system.cpu.user{env:prod,host:web-1} by {host}'],
    ['sum:a{*}.as_count() / sum:b{env:prod}.as_count()', 'sum:a{host:web-1}.as_count() / sum:b{env:prod,host:web-1}.as_count()'],
    ['top(avg:redis.mem{*} by {host}, 10, \'mean\', \'desc\')', 'top(avg:redis.mem{host:web-1} by {host}, 10, \'mean\', \'desc\')'],
  ])('%s', (q, want) => {
    expect(narrowQuery(q, 'host', 'web-1')).toBe(want);
  });
});

describe('narrowTile', () => {
  test('a metric tile of the filter\'s source has the tag in every scope', () => {
    const c = { displayType: 'line' as const, sourceId: 'metrics', select: [{ query: 'avg:system.load.1{*} by {host}', whereLanguage: 'lucene' as const }] };
    const got = narrowTile(c, [hostFilter], { f1: 'web-2' });
    expect(got.select).toEqual([{ query: 'avg:system.load.1{host:web-2} by {host}', whereLanguage: 'lucene' }]);
  });
  test('no value chosen, or another source\'s tile: the tile as it is', () => {
    const c = { displayType: 'line' as const, sourceId: 'logs', select: [{ aggFn: 'count' as const, where: '', whereLanguage: 'lucene' as const }] };
    expect(narrowTile(c, [hostFilter], { f1: 'web-2' })).toBe(c);
    expect(narrowTile({ ...c, sourceId: 'metrics' }, [hostFilter], {})).toEqual({ ...c, sourceId: 'metrics' });
  });
  test('a search tile narrows its own where, in its language', () => {
    const f = { ...hostFilter, expression: 'ServiceName', sourceId: 'logs' };
    const c = { displayType: 'search' as const, sourceId: 'logs', select: 'Timestamp, Body', where: 'level:error', whereLanguage: 'lucene' as const };
    expect(narrowTile(c, [f], { f1: 'cart' }).where).toBe('(level:error) AND ServiceName:"cart"');
  });
  test('appliesToSourceIds names the sources, in place of the filter\'s own', () => {
    const f = { ...hostFilter, appliesToSourceIds: ['logs', 'traces'] };
    expect(appliesTo(f, 'traces')).toBe(true);
    expect(appliesTo(f, 'metrics')).toBe(false);
    expect(appliesTo(hostFilter, 'metrics')).toBe(true);
  });
});

describe('metricOf', () => {
  test.each([
    ['avg:system.cpu.user{*} by {host}', 'system.cpu.user'],
    ['top(sum:redis.net.clients{env:prod} by {host}, 5, \'mean\', \'desc\')', 'redis.net.clients'],
    ['system.load.1{*}', 'system.load.1'],
    ['', ''],
  ])('%s reads %s', (q, want) => expect(metricOf(q)).toBe(want));
});
