import { useEffect, useRef, useState } from 'preact/hooks';
import { get, Source } from '../api';
import { filterFor } from './eventpanel';

interface Suggestion { label: string; insert: string; detail?: string; field?: boolean }

// token is the word being typed at the caret: from the last blank or
// parenthesis before it, without a leading - (an exclusion).
function tokenAt(text: string, caret: number): { start: number; word: string } {
  let i = caret;
  while (i > 0 && !/[\s()]/.test(text[i - 1])) i--;
  let start = i;
  if (text[start] === '-') start++;
  return { start, word: text.slice(start, caret) };
}

// WhereBox is the where input with autocomplete: field names (columns,
// attribute keys, Resource.<key>) as one types a word, and after field:
// the field's frequent values in the search's range. Arrows move, Enter
// or Tab picks, Esc closes; Enter with nothing picked searches.
export function WhereBox({ src, value, onInput, inputRef, placeholder, range, lucene }: {
  src: Source; value: string; onInput: (v: string) => void; inputRef: { current: HTMLInputElement | null };
  placeholder: string; range: { from: number; to: number }; lucene: boolean;
}) {
  const [items, setItems] = useState<Suggestion[]>([]);
  const [active, setActive] = useState(-1);
  const [tok, setTok] = useState<{ start: number; word: string } | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const seq = useRef(0);

  const suggest = (text: string, caret: number) => {
    window.clearTimeout(timer.current);
    if (!lucene) { setItems([]); return; }
    const t = tokenAt(text, caret);
    setTok(t);
    const n = ++seq.current;
    timer.current = window.setTimeout(async () => {
      try {
        const colon = t.word.indexOf(':');
        let next: Suggestion[];
        if (colon > 0) {
          const field = t.word.slice(0, colon);
          const prefix = t.word.slice(colon + 1).replace(/^"/, '');
          const q = new URLSearchParams({ sourceId: src.id, field, prefix, startTime: String(range.from), endTime: String(range.to) });
          const vals = await get<{ value: string; count: number }[]>(`/api/v2/search/values?${q}`);
          next = vals.map((v) => ({ label: v.value, insert: filterFor(field, v.value) + ' ', detail: v.count.toLocaleString() }));
        } else if (t.word.length > 0) {
          const names = await get<string[]>(`/api/v2/search/fields?${new URLSearchParams({ sourceId: src.id, prefix: t.word })}`);
          next = names.slice(0, 20).map((f) => ({ label: f, insert: f + ':', field: true }));
        } else {
          next = [];
        }
        if (n === seq.current) { setItems(next); setActive(-1); }
      } catch {
        if (n === seq.current) setItems([]);
      }
    }, 120);
  };

  useEffect(() => () => window.clearTimeout(timer.current), []);

  const pick = (s: Suggestion) => {
    const el = inputRef.current;
    if (!el || !tok) return;
    const caret = el.selectionStart ?? value.length;
    const text = value.slice(0, tok.start) + s.insert + value.slice(caret);
    const at = tok.start + s.insert.length;
    onInput(text);
    setItems([]);
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(at, at);
      // A field picked goes on to its values.
      if (s.field) suggest(text, at);
    });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (items.length === 0) return;
    if (e.key === 'ArrowDown') { e.preventDefault(); setActive((a) => (a + 1) % items.length); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); setActive((a) => (a <= 0 ? items.length - 1 : a - 1)); }
    else if ((e.key === 'Enter' || e.key === 'Tab') && active >= 0) { e.preventDefault(); pick(items[active]); }
    else if (e.key === 'Escape') { e.stopPropagation(); setItems([]); }
  };

  return (
    <div class="wherebox">
      <input name="where" ref={inputRef} aria-label="Where" value={value} spellcheck={false} autocomplete="off" placeholder={placeholder}
        role="combobox" aria-expanded={items.length > 0} aria-autocomplete="list" aria-controls="where-suggestions"
        onInput={(e) => { const el = e.currentTarget; onInput(el.value); suggest(el.value, el.selectionStart ?? el.value.length); }}
        onKeyDown={onKeyDown} onBlur={() => window.setTimeout(() => setItems([]), 150)} />
      {items.length > 0 && (
        <ul class="suggestions" id="where-suggestions" role="listbox" data-testid="suggestions">
          {items.map((s, i) => (
            <li role="option" aria-selected={i === active} class={i === active ? 'on' : ''} data-value={s.label}
              onMouseDown={(e) => { e.preventDefault(); pick(s); }}>
              <span>{s.label}</span>{s.detail && <span class="muted small">{s.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
