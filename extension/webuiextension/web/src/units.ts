// Units of a tile's values, kept in HyperDX's numberFormat shape
// ({output, factor}) so a dashboard made here reads the same there.

export type Unit = '' | 'count' | 'bytes' | 'ns' | 'us' | 'ms' | 's' | 'percent';

export const units: { value: Unit; label: string }[] = [
  { value: '', label: 'none' },
  { value: 'count', label: 'count' },
  { value: 'bytes', label: 'bytes' },
  { value: 'ns', label: 'duration (ns)' },
  { value: 'us', label: 'duration (µs)' },
  { value: 'ms', label: 'duration (ms)' },
  { value: 's', label: 'duration (s)' },
  { value: 'percent', label: 'percent' },
];

const factors: Record<string, number> = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 };

export function unitOf(nf: unknown): Unit {
  if (!nf || typeof nf !== 'object') return '';
  const fmt = nf as { output?: string; factor?: unknown };
  switch (fmt.output) {
    case 'byte': return 'bytes';
    case 'percent': return 'percent';
    case 'number': return 'count';
    case 'time': {
      const f = Number(fmt.factor ?? 1);
      for (const [u, v] of Object.entries(factors)) if (Math.abs(f - v) < v / 1000) return u as Unit;
      return 's';
    }
  }
  return '';
}

export function numberFormat(u: Unit): Record<string, unknown> | undefined {
  switch (u) {
    case '': return undefined;
    case 'bytes': return { output: 'byte' };
    case 'percent': return { output: 'percent' };
    case 'count': return { output: 'number' };
    default: return { output: 'time', factor: factors[u] };
  }
}

function trim(v: number): string {
  const a = Math.abs(v);
  return a >= 100 ? Math.round(v).toLocaleString() : a >= 10 ? v.toFixed(1).replace(/\.0$/, '') : String(Math.round(v * 100) / 100);
}

// fmtValue writes a value in its unit, scaled to a readable size (a
// latency in ns as 1.2 ms, bytes as 3.4 MB).
export function fmtValue(v: number | null | undefined, u: Unit = ''): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  switch (u) {
    case 'bytes': {
      const steps = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
      let i = 0;
      let x = v;
      while (Math.abs(x) >= 1024 && i < steps.length - 1) { x /= 1024; i++; }
      return `${trim(x)} ${steps[i]}`;
    }
    case 'percent': return `${trim(v)}%`;
    case 'ns': case 'us': case 'ms': case 's': {
      const secs = v * factors[u];
      const a = Math.abs(secs);
      if (a === 0) return '0 s';
      if (a < 1e-6) return `${trim(secs * 1e9)} ns`;
      if (a < 1e-3) return `${trim(secs * 1e6)} µs`;
      if (a < 1) return `${trim(secs * 1e3)} ms`;
      if (a < 120) return `${trim(secs)} s`;
      if (a < 7200) return `${trim(secs / 60)} min`;
      return `${trim(secs / 3600)} h`;
    }
  }
  return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString() : String(Math.round(v * 1000) / 1000);
}
