import { describe, expect, test } from 'vitest';
import { ApiSource, columnsOf } from './api';

describe('columnsOf', () => {
  test("a trace source's span name is its body, its event attributes its map", () => {
    const src = {
      id: 'traces', name: 'Traces', kind: 'trace', connection: 'c', from: { databaseName: 'otel', tableName: 'otel_traces' },
      timestampValueExpression: 'Timestamp', spanNameExpression: 'SpanName', durationExpression: 'Duration',
      eventAttributesExpression: 'SpanAttributes', serviceNameExpression: 'ServiceName', severityTextExpression: 'ignored',
    } as ApiSource;
    const c = columnsOf(src);
    expect([c.timestampColumn, c.bodyColumn, c.durationColumn, c.attributesMap, c.serviceColumn, c.severityColumn])
      .toEqual(['Timestamp', 'SpanName', 'Duration', 'SpanAttributes', 'ServiceName', undefined]);
  });
  test("a metric source's attributes are the exporter's map", () => {
    const src = { id: 'm', name: 'M', kind: 'metric', connection: 'c', from: { tableName: '' }, timestampValueExpression: 'TimeUnix' } as ApiSource;
    expect(columnsOf(src).attributesMap).toBe('Attributes');
  });
});
