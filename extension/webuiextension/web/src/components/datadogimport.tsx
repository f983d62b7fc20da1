import { useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { callWhole, messageOf } from '../api';

// What every import from Datadog answers beside the created document: what
// became of each widget, or part of a monitor or view.
export type ImportReport = {
  summary: Record<string, number>;
  items: { path: string; type?: string; title?: string; outcome: string; notes?: string[] }[];
};

// DatadogImportButton reads a JSON file (as Datadog's API exports it or an
// integration ships it) and posts it to one of /api/v2's import routes.
// A file that is no JSON is refused here with what to do instead. onStart
// is told when a file is picked, so the page drops the last import's
// report: a report left beside a new import's failure reads as its.
export function DatadogImportButton<T extends { report: ImportReport }>({ path, what, label, disabled, disabledWhy, onStart, onImported, onError }: {
  path: string;
  what: string; // "dashboard", "monitor", "saved view": said when the file is no JSON
  label: string;
  disabled?: boolean;
  disabledWhy?: string;
  onStart: () => void;
  onImported: (r: T) => void;
  onError: (msg: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const pick = async (f: File | undefined) => {
    if (!f) return;
    onStart();
    setBusy(true);
    try {
      let doc: unknown;
      try { doc = JSON.parse(await f.text()); } catch { throw new Error(`${f.name} is not JSON: export the ${what} from Datadog as JSON`); }
      onImported(await callWhole<T>('POST', path, doc));
    } catch (err) {
      onError(messageOf(err));
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };
  return (
    <>
      <input ref={input} type="file" accept=".json,application/json" hidden name="import-file" data-testid={`import-file-${what.replace(/\s/g, '-')}`}
        onChange={(e) => pick(e.currentTarget.files?.[0])} />
      <button type="button" class="ghost" data-action={`import-${what.replace(/\s/g, '-')}`} disabled={busy || disabled}
        onClick={() => input.current?.click()}
        title={disabled ? disabledWhy : `A ${what} JSON as Datadog exports it`}>{busy ? 'Importing…' : label}</button>
    </>
  );
}

// DatadogImportReport says what an import made of each part: imported as
// is, approximated (with why) or skipped (with why); nothing goes unsaid.
export function DatadogImportReport({ heading, report, onClose }: { heading: ComponentChildren; report: ImportReport; onClose: () => void }) {
  const s = report.summary;
  const notes = report.items.filter((i) => i.outcome !== 'imported');
  return (
    <section class="card import-report" data-testid="import-report" role="status">
      <div class="row-between">
        <strong>{heading}</strong>
        <button class="ghost small" aria-label="Close" onClick={onClose}>×</button>
      </div>
      <p class="small">{s.imported ?? 0} imported, {s.approximated ?? 0} approximated, {s.skipped ?? 0} skipped.</p>
      {notes.length > 0 && (
        <div class="import-notes">
          <table class="plain small">
            <thead><tr><th>Part</th><th>Outcome</th><th>Why</th></tr></thead>
            <tbody>{notes.map((i) => <tr><td>{i.title || i.type || i.path}</td><td>{i.outcome}</td><td>{(i.notes ?? []).join('; ')}</td></tr>)}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}
