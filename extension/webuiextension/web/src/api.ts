// The UI's same-origin endpoints. Every call sends the CSRF header the
// server requires on writes; a 401 on a signed-in page sends the person
// to sign-in and back (see router).

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
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
  let payload: any = null;
  try {
    payload = await resp.json();
  } catch {
    /* not JSON: reported below */
  }
  if (!resp.ok) {
    const msg = payload?.message ?? `${resp.status} ${resp.statusText}`;
    if (resp.status === 401 && !path.startsWith('/api/login') && onSignedOut) onSignedOut();
    throw new ApiError(resp.status, msg);
  }
  return payload as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => call<T>('GET', path, undefined, signal);
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

export interface Source {
  id: string;
  name: string;
  kind: 'log' | 'trace' | 'metric';
  database: string;
  table: string;
  timestampColumn: string;
  bodyColumn?: string;
  serviceColumn?: string;
  severityColumn?: string;
  durationColumn?: string;
  attributesMap?: string;
  resourceMap?: string;
  traceIdColumn?: string;
  spanIdColumn?: string;
  parentSpanIdColumn?: string;
  statusCodeColumn?: string;
}

export type Row = Record<string, any>;

export interface Page {
  rows: Row[];
  nextCursor?: string;
}

export interface Histogram {
  stepMs: number;
  buckets: [number, number][];
}

export interface Key {
  id: string;
  key?: string;
  source: 'generated' | 'configured';
  createdAt: string;
}

export interface Fields {
  columns: { name: string; type: string }[];
  attributes: string[];
  resource: string[];
}
