// Time ranges: relative presets ("last 15 minutes") that move with now, or
// absolute instants, both kept in the URL as from/to.

export const presets: { label: string; value: string; ms: number }[] = [
  { label: 'Last 5 minutes', value: '5m', ms: 5 * 60e3 },
  { label: 'Last 15 minutes', value: '15m', ms: 15 * 60e3 },
  { label: 'Last 1 hour', value: '1h', ms: 3600e3 },
  { label: 'Last 4 hours', value: '4h', ms: 4 * 3600e3 },
  { label: 'Last 24 hours', value: '24h', ms: 24 * 3600e3 },
  { label: 'Last 7 days', value: '7d', ms: 7 * 24 * 3600e3 },
  { label: 'Last 30 days', value: '30d', ms: 30 * 24 * 3600e3 },
];

export interface Range {
  // relative: a preset value; else absolute from/to in ms
  relative?: string;
  from: number;
  to: number;
}

export function resolveRange(params: URLSearchParams, fallback = '15m'): Range {
  const rel = params.get('range');
  const from = Number(params.get('from'));
  const to = Number(params.get('to'));
  if (!rel && from > 0 && to > from) return { from, to };
  const p = presets.find((x) => x.value === (rel ?? fallback)) ?? presets[1];
  const now = Date.now();
  return { relative: p.value, from: now - p.ms, to: now };
}

export function rangeLabel(r: Range): string {
  if (r.relative) return presets.find((p) => p.value === r.relative)?.label ?? r.relative;
  return `${fmtShort(r.from)} → ${fmtShort(r.to)}`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function fmtShort(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// fmtTs shows a row's timestamp (RFC 3339 with nanoseconds) in local time
// with milliseconds.
export function fmtTs(iso: string): string {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return iso;
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

// toLocalInput / fromLocalInput convert for <input type="datetime-local">.
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function fromLocalInput(s: string): number {
  return new Date(s).getTime();
}

// fmtDuration shows nanoseconds as ns, µs, ms or s.
export function fmtDuration(ns: number): string {
  if (ns < 1e3) return `${ns} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

// zoneName is the browser's time zone, which the tables and panels show
// times in (the panel also shows the stored UTC value).
export function zoneName(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
}

// goDuration reads the API's granularity ("1m0s") in milliseconds.
export function goDuration(s: string): number {
  let ms = 0;
  for (const m of s.matchAll(/([\d.]+)(h|ms|m|s|µs|us|ns)/g)) {
    const v = Number(m[1]);
    ms += v * ({ h: 3600e3, m: 60e3, s: 1e3, ms: 1, µs: 1e-3, us: 1e-3, ns: 1e-6 } as Record<string, number>)[m[2]];
  }
  return ms || 60e3;
}
