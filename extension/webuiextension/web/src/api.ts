// The UI speaks the REST API (/api/v2, the same handlers scripts call,
// authenticated by the session cookie) and, for the account itself, the
// few same-origin endpoints that have no REST counterpart (/api/status,
// register, login, logout, me, password). Every call sends the CSRF
// header the server requires on writes; a 401 on a signed-in page sends
// the person to sign-in and back (see router).

import type { components, paths } from './api.gen';
import { goDuration } from './time';

// The REST API's shapes, generated from its OpenAPI document (make
// generate; make lint fails when api.gen.ts is stale): a field the API
// renames or drops is a type error here.
export type Schemas = components['schemas'];
type JSONBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
// Whole is a route's whole 200 answer; Answer is its data.
export type Whole<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'delete'> =
  JSONBody<NonNullable<paths[P][M]> extends { responses: { 200: infer R } } ? R : never>;
export type Answer<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'delete'> =
  Whole<P, M> extends { data: infer D } ? D : never;

// ApiSource is a source as the API answers it: HyperDX's model, SQL
// expressions over its table. Source is what the pages read: the columns
// those expressions name, as the API itself reads them (the server's
// sources.Source.Chart).
export type ApiSource = Schemas['Source'];
export type Source = {
  id: string;
  name: string;
  kind: ApiSource['kind'];
  timestampColumn: string;
  bodyColumn?: string;
  serviceColumn?: string;
  severityColumn?: string;
  durationColumn?: string;
  // durationScale: nanoseconds per unit of durationColumn (HyperDX's
  // durationPrecision: 1 at 9 digits, 1e6 at 3).
  durationScale: number;
  attributesMap?: string;
  resourceMap?: string;
  traceIdColumn?: string;
  spanIdColumn?: string;
  parentSpanIdColumn?: string;
  statusCodeColumn?: string;
};
export type Key = Schemas['Key'];
export type Invitation = Schemas['Invitation'];
export type Member = Answer<'/api/v2/team/members', 'get'>[number];
export type Fields = Answer<'/api/v2/sources/{id}/columns', 'get'>;
export type SavedSearch = Schemas['SavedSearch'];
export type Webhook = Schemas['Webhook'];
export type Evaluation = Answer<'/api/v2/alerts/{id}/history', 'get'>[number];
export type Service = Answer<'/api/v2/services', 'get'>[number];
export type TraceSummary = Schemas['TraceSummary'];

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

// messageOf is what a caught failure says, to show a person.
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

let onSignedOut: (() => void) | null = null;
export function whenSignedOut(fn: () => void) {
  onSignedOut = fn;
}

export async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  return (await callWhole<{ data: T }>(method, path, body, signal))?.data as T;
}

// callWhole answers the whole body, for answers with extras beside data
// (a chart's granularity, a list's meta).
export async function callWhole<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { 'X-Otelhouse-Request': '1' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const resp = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    signal,
  });
  let payload: unknown = null;
  try {
    payload = await resp.json();
  } catch {
    /* not JSON: reported below */
  }
  if (!resp.ok) {
    const msg = (payload as { message?: string } | null)?.message ?? `${resp.status} ${resp.statusText}`;
    if (resp.status === 401 && !path.startsWith('/api/login') && onSignedOut) onSignedOut();
    throw new ApiError(resp.status, msg);
  }
  return payload as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => call<T>('GET', path, undefined, signal);

// columnsOf reads a source's expressions as the columns the pages show.
export function columnsOf(s: ApiSource): Source {
  const trace = s.kind === 'trace';
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    timestampColumn: s.timestampValueExpression,
    bodyColumn: trace ? s.spanNameExpression : s.bodyExpression,
    serviceColumn: s.serviceNameExpression,
    severityColumn: s.kind === 'log' ? s.severityTextExpression : undefined,
    durationColumn: trace ? s.durationExpression : undefined,
    durationScale: trace && s.durationPrecision != null ? 10 ** (9 - s.durationPrecision) : 1,
    attributesMap: s.kind === 'metric' ? 'Attributes' : s.eventAttributesExpression,
    resourceMap: s.resourceAttributesExpression,
    traceIdColumn: s.traceIdExpression,
    spanIdColumn: s.spanIdExpression,
    parentSpanIdColumn: s.parentSpanIdExpression,
    statusCodeColumn: s.statusCodeExpression,
  };
}

// getSources answers the team's sources the pages can query: session and
// promql sources are kept for HyperDX's clients, not read here.
export async function getSources(): Promise<Source[]> {
  const all = await get<ApiSource[]>('/api/v2/sources');
  return all.filter((s) => s.kind === 'log' || s.kind === 'trace' || s.kind === 'metric').map(columnsOf);
}
export const post = <T>(path: string, body: unknown, signal?: AbortSignal) => call<T>('POST', path, body, signal);
export const put = <T>(path: string, body: unknown) => call<T>('PUT', path, body);
export const del = <T>(path: string) => call<T>('DELETE', path);

export interface Account {
  id: string;
  email: string;
  role: string;
  teamId: string;
  createdAt: string;
}

// A row's fields are whatever the search selected: columns, maps of
// attributes, numbers or strings.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Row = Record<string, any>;

export interface Page {
  rows: Row[];
  nextCursor?: string;
}

// SearchQuery is what the search page's calls share: a source, a range in
// epoch milliseconds and a where.
export interface SearchQuery {
  sourceId: string;
  startTime: number;
  endTime: number;
  where: string;
  whereLanguage: string;
}

// searchRows reads a page of events, newest first (POST /api/v2/search).
export async function searchRows(q: SearchQuery, maxResults: number, cursor?: string, signal?: AbortSignal): Promise<Page> {
  const r = await callWhole<{ data: Row[]; nextCursor?: string }>('POST', '/api/v2/search',
    { ...q, maxResults, ...(cursor ? { cursor } : {}) }, signal);
  return { rows: r.data ?? [], nextCursor: r.nextCursor };
}

// searchTraces reads a page of the trace list: one row per trace with a
// span matching the search, newest first (POST /api/v2/search/traces).
export async function searchTraces(q: SearchQuery, maxResults: number, cursor?: string, signal?: AbortSignal): Promise<{ traces: TraceSummary[]; nextCursor?: string }> {
  const r = await callWhole<Whole<'/api/v2/search/traces', 'post'>>('POST', '/api/v2/search/traces',
    { ...q, maxResults, ...(cursor ? { cursor } : {}) }, signal);
  return { traces: r.data ?? [], nextCursor: r.nextCursor };
}

// countHistogram counts the matching events per automatic bucket: the
// chart series a count tile or an alert on the same where would run.
// With groupBy (the severity or status column) each bucket is also split
// by that column's values, named as level() names them, so `error` and
// `ERROR` are one series.
export async function countHistogram(q: SearchQuery, signal?: AbortSignal, groupBy?: string): Promise<Histogram> {
  const r = await callWhole<{ data: { ts_bucket: number; group?: string[]; [k: string]: number | string | string[] | undefined }[]; granularity: string }>('POST', '/api/v2/charts/series', {
    // fill: every bucket of the range, empty ones 0 (HyperDX's answer
    // holds only the buckets with data).
    startTime: q.startTime, endTime: q.endTime, granularity: 'auto', fill: true,
    series: [{ sourceId: q.sourceId, aggFn: 'count', where: q.where, whereLanguage: q.whereLanguage, ...(groupBy ? { groupBy: [groupBy] } : {}) }],
  }, signal);
  const totals = new Map<number, number>();
  const groups = new Map<string, Map<number, number>>();
  for (const row of r.data ?? []) {
    // A count comes as HyperDX's engine writes a 64-bit integer: a string.
    const n = Number(row['series_0.data'] ?? 0);
    totals.set(row.ts_bucket, (totals.get(row.ts_bucket) ?? 0) + n);
    if (!groupBy) continue;
    const g = level(row.group?.[0] ?? '');
    if (!groups.has(g)) groups.set(g, new Map());
    const m = groups.get(g)!;
    m.set(row.ts_bucket, (m.get(row.ts_bucket) ?? 0) + n);
  }
  const xs = [...totals.keys()].sort((a, b) => a - b);
  return {
    stepMs: goDuration(r.granularity ?? ''),
    buckets: xs.map((x) => [x, totals.get(x)!]),
    groups: [...groups.entries()].sort((a, b) => levelRank(a[0]) - levelRank(b[0]) || a[0].localeCompare(b[0]))
      .map(([name, m]) => ({ name, counts: xs.map((x) => m.get(x) ?? 0) })),
  };
}

export interface Histogram {
  stepMs: number;
  buckets: [number, number][];
  // groups split each bucket's count (same order as buckets), most
  // severe first; empty when not grouped.
  groups?: { name: string; counts: number[] }[];
}

// level names a severity or span status the way the histogram's legend
// shows it: any case and the usual spellings (WARNING, Err, STATUS_CODE_ERROR)
// as one name.
export function level(v: string): string {
  const s = v.trim().toLowerCase().replace(/^status_code_/, '');
  if (!s) return 'unset';
  if (/^(fatal|crit|critical|emerg|emergency|alert|panic)/.test(s)) return 'fatal';
  if (s.startsWith('err')) return 'error';
  if (s.startsWith('warn')) return 'warn';
  if (s.startsWith('info') || s === 'notice') return 'info';
  if (s.startsWith('debug')) return 'debug';
  if (s.startsWith('trace')) return 'trace';
  return s;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'ok', 'debug', 'trace', 'unset'];
function levelRank(name: string): number {
  const i = LEVELS.indexOf(name);
  return i < 0 ? LEVELS.length : i;
}
