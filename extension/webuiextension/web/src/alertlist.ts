// An alert-list tile (displayType "alerts", otelhouse's addition to
// HyperDX's tiles) lists the team's alerts with their state. Its where
// and alertStates narrow the list here, where it is shown: the API only
// checks and keeps them (internal/domain/dashboards/alertlist.go).

import type { Evaluation, Schemas } from './api';

type Alert = Schemas['Alert'];
type TileConfig = Schemas['TileConfig'];

// alertListed tells whether the tile lists an alert: every word of where
// in its name (any case), its state among alertStates when they are
// given.
export function alertListed(c: Pick<TileConfig, 'where' | 'alertStates'>, a: Pick<Alert, 'name' | 'state'>): boolean {
  if (c.alertStates?.length && !c.alertStates.includes(a.state)) return false;
  const name = (a.name ?? '').toLowerCase();
  return (c.where ?? '').toLowerCase().split(/\s+/).filter(Boolean).every((w) => name.includes(w));
}

// lastFired is when an alert last went into ALERT, from its evaluations
// (newest first): null when none of them did.
export function lastFired(history: Pick<Evaluation, 'state' | 'previousState' | 'evaluatedAt'>[]): number | null {
  return history.find((h) => h.state === 'ALERT' && h.previousState !== 'ALERT')?.evaluatedAt ?? null;
}

// Worst first: an alert firing, then without data, then OK; by name
// within a state.
const rank: Record<string, number> = { ALERT: 0, NO_DATA: 1, OK: 2 };
export function byState(a: Pick<Alert, 'name' | 'state'>, b: Pick<Alert, 'name' | 'state'>): number {
  return (rank[a.state] ?? 3) - (rank[b.state] ?? 3) || (a.name ?? '').localeCompare(b.name ?? '');
}

// alertListConfig is an alert-list tile's config as the API takes it:
// what a chart's editing left behind dropped.
export function alertListConfig(c: TileConfig): TileConfig {
  const out: TileConfig = { displayType: 'alerts' };
  if (c.where) out.where = c.where;
  if (c.alertStates?.length) out.alertStates = c.alertStates;
  return out;
}
