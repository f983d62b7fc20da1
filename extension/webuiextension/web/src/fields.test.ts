import { describe, expect, test } from 'vitest';
import type { Source } from './api';
import { defaultColumns, severityClass, show, valueOf } from './fields';

const logs = {
  id: 'logs', kind: 'log', timestampColumn: 'Timestamp', serviceColumn: 'ServiceName', severityColumn: 'SeverityText',
  bodyColumn: 'Body', resourceMap: 'ResourceAttributes', attributesMap: 'LogAttributes',
} as unknown as Source;

describe('fields', () => {
  test('a column is a table column, a resource attribute or a record attribute', () => {
    const row = { ServiceName: 'api', ResourceAttributes: { 'host.name': 'h1' }, LogAttributes: { user: 'u1' } };
    expect(valueOf(row, 'ServiceName', logs)).toBe('api');
    expect(valueOf(row, 'Resource.host.name', logs)).toBe('h1');
    expect(valueOf(row, 'user', logs)).toBe('u1');
    expect(valueOf(row, 'missing', logs)).toBeUndefined();
  });
  test('default columns of a log source', () => {
    expect(defaultColumns(logs)).toEqual(['Timestamp', 'ServiceName', 'SeverityText', 'Body']);
  });
  test('values show as text, objects as JSON', () => {
    expect(show(null)).toBe('');
    expect(show({ a: 1 })).toBe('{"a":1}');
    expect(show(3)).toBe('3');
  });
  test('severity classes', () => {
    expect(severityClass('ERROR')).toBe('sev err');
    expect(severityClass('Warning')).toBe('sev warn');
    expect(severityClass('trace')).toBe('sev dbg');
    expect(severityClass('')).toBe('sev info');
  });
});
