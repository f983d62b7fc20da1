import { setZone, useZone, zoneName } from '../time';

// ZoneSwitch names the zone times are shown in and switches between the
// browser's and UTC (remembered for the next visit).
export function ZoneSwitch() {
  const z = useZone();
  const other = z === 'utc' ? 'local time' : 'UTC';
  return (
    <button type="button" class="link zone-switch" data-testid="zone-switch" data-zone={z} title={`Times in ${zoneName()}: click for ${other}`}
      aria-label={`Times in ${zoneName()}; show them in ${other}`} onClick={(e) => { e.stopPropagation(); setZone(z === 'utc' ? 'local' : 'utc'); }}>
      {zoneName()}
    </button>
  );
}
