import { useEffect, useState } from 'preact/hooks';
import { fromLocalInput, presets, Range, rangeLabel, toLocalInput } from '../time';

// TimePicker offers the relative presets and an absolute from/to.
export function TimePicker({ range, onChange }: { range: Range; onChange: (r: { relative?: string; from?: number; to?: number }) => void }) {
  const [open, setOpen] = useState(false);
  const [from, setFrom] = useState(toLocalInput(range.from));
  const [to, setTo] = useState(toLocalInput(range.to));
  const [problem, setProblem] = useState('');
  // Esc closes the popover.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') setOpen(false); };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <div class="timepicker">
      <button type="button" class="ghost" onClick={() => { setFrom(toLocalInput(range.from)); setTo(toLocalInput(range.to)); setProblem(''); setOpen(!open); }}>
        <svg class="icon" viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" stroke-width="1.5" /><path d="M8 4v4l2.5 2" fill="none" stroke="currentColor" stroke-width="1.5" /></svg>
        {rangeLabel(range)}
      </button>
      {open && (
        <div class="popover" data-testid="time-popover">
          <div class="presets">
            {presets.map((p) => (
              <button type="button" class={range.relative === p.value ? 'chip on' : 'chip'} onClick={() => { onChange({ relative: p.value }); setOpen(false); }}>
                {p.label}
              </button>
            ))}
          </div>
          <div class="absolute">
            <label>From <input type="datetime-local" step="1" value={from} onInput={(e) => setFrom(e.currentTarget.value)} /></label>
            <label>To <input type="datetime-local" step="1" value={to} onInput={(e) => setTo(e.currentTarget.value)} /></label>
            <button type="button" class="primary" onClick={() => {
              const f = fromLocalInput(from), t = fromLocalInput(to);
              if (isNaN(f) || isNaN(t)) setProblem('Both From and To need a date and a time.');
              else if (f >= t) setProblem('From must be before To.');
              else { setProblem(''); onChange({ from: f, to: t }); setOpen(false); }
            }}>Apply</button>
            {problem && <p class="error small" role="alert" data-testid="range-error">{problem}</p>}
          </div>
        </div>
      )}
    </div>
  );
}
