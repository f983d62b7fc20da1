import { arcPath, PieGroup, pieSlices, shareText } from '../pie';
import { fmtValue, Unit } from '../units';

// PieChart draws a pie tile's groups as a donut, the largest first, the
// smallest folded into "Other", and beside it (or under it, in a tall
// narrow tile) a legend naming each slice with its value and share.
// Groups at or below zero have no slice; the legend names them apart.
export function PieChart({ groups, unit }: { groups: PieGroup[]; unit: Unit }) {
  const p = pieSlices(groups);
  const tip = (name: string, value: number, share: number, folded: number) =>
    `${name}${folded ? ` (${folded} groups)` : ''}: ${fmtValue(value, unit)} (${shareText(share)})`;
  return (
    <div class="pie-wrap">
      <div class="pie" data-testid="pie">
        <svg class="pie-svg" viewBox="-1.02 -1.02 2.04 2.04" role="img" aria-label="Pie chart">
          {p.slices.map((s) => (
            <path class="pie-slice" data-testid="pie-slice" d={arcPath(1, 0.55, s.start, s.end)} fill={s.color}>
              <title>{tip(s.name, s.value, s.share, s.folded)}</title>
            </path>
          ))}
        </svg>
        <ul class="pie-legend small" data-testid="pie-legend">
          {p.slices.map((s) => (
            <li title={tip(s.name, s.value, s.share, s.folded)}>
              <span class="pie-key" style={{ background: s.color }} />
              <span class="pie-name">{s.name}</span>
              <span class="pie-value">{fmtValue(s.value, unit)}</span>
              <span class="pie-share muted">{shareText(s.share)}</span>
            </li>
          ))}
          {p.left.length > 0 && (
            <li class="pie-left muted" data-testid="pie-left" title={p.left.map((g) => `${g.name}: ${fmtValue(g.value, unit)}`).join('\n')}>
              {`Not drawn (zero or below): ${p.left.map((g) => `${g.name} ${fmtValue(g.value, unit)}`).join(', ')}`}
            </li>
          )}
        </ul>
      </div>
    </div>
  );
}
