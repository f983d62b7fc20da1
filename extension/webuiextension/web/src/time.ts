import { useEffect, useState } from 'preact/hooks';

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

// The zone rows' times are shown in: the browser's (local) or UTC, as the
// person last chose (remembered in localStorage); useZone re-renders a
// component when it changes.
export type Zone = 'local' | 'utc';
const ZONE_KEY = 'otelhouse.timezone';
let zone: Zone = (() => {
  try {
    return localStorage.getItem(ZONE_KEY) === 'utc' ? 'utc' : 'local';
  } catch {
    return 'local';
  }
})();
const zoneListeners = new Set<() => void>();

export function setZone(z: Zone) {
  zone = z;
  try {
    localStorage.setItem(ZONE_KEY, z);
  } catch { /* private mode: for this page only */ }
  zoneListeners.forEach((l) => l());
}

export function useZone(): Zone {
  const [, tick] = useState(0);
  useEffect(() => {
    const l = () => tick((n) => n + 1);
    zoneListeners.add(l);
    return () => void zoneListeners.delete(l);
  }, []);
  return zone;
}

// parts are a date's fields in the zone chosen.
function parts(d: Date) {
  return zone === 'utc'
    ? { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds(), ms: d.getUTCMilliseconds() }
    : { y: d.getFullYear(), mo: d.getMonth() + 1, d: d.getDate(), h: d.getHours(), mi: d.getMinutes(), s: d.getSeconds(), ms: d.getMilliseconds() };
}

// fmtTs shows a row's timestamp (RFC 3339 with nanoseconds) in the zone
// chosen, with milliseconds.
export function fmtTs(iso: string): string {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return iso;
  const p = parts(d);
  return `${pad(p.mo)}-${pad(p.d)} ${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}.${pad(p.ms, 3)}`;
}

// fmtAt shows an instant (epoch ms) with its date in the zone chosen.
export function fmtAt(ms: number): string {
  const p = parts(new Date(ms));
  return `${p.y}-${pad(p.mo)}-${pad(p.d)} ${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}`;
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

// zoneName names the zone times are shown in: UTC, or the browser's.
export function zoneName(): string {
  if (zone === 'utc') return 'UTC';
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
