// Event patterns, what an event_patterns tile shows: the events' messages
// grouped by their shape, the parts that vary from one event to the next
// (numbers, ids, addresses, quoted values) masked as <*>. Pure, so the
// tile and the unit tests group alike.

// variable are the tokens masked: a UUID, a long hex id, an IP address
// (with a port), a number with its unit or a duration, a quoted value,
// and any word holding a digit.
const variable: RegExp[] = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^(0x)?[0-9a-f]{12,}$/i,
  /^\d{1,3}(\.\d{1,3}){3}(:\d+)?$/,
  /^[-+]?\d+([.,]\d+)*[a-zµ%]*$/i,
  /^(["']).*\1$/,
  /\d/,
];

// patternOf is a message's shape: its words, each variable one <*>,
// punctuation at a word's ends kept (so "id=42," reads "id=<*>,").
export function patternOf(message: string): string {
  return message.trim().split(/\s+/).map((word) => {
    const m = /^([^\w"'-]*)(.*?)([^\w"'%]*)$/.exec(word);
    const [lead, core, tail] = m ? [m[1], m[2], m[3]] : ['', word, ''];
    if (!core) return word;
    // key=value keeps its key.
    const eq = core.indexOf('=');
    if (eq > 0 && eq < core.length - 1) {
      const v = core.slice(eq + 1);
      return lead + core.slice(0, eq + 1) + (variable.some((r) => r.test(v)) ? '<*>' : v) + tail;
    }
    return lead + (variable.some((r) => r.test(core)) ? '<*>' : core) + tail;
  }).join(' ');
}

export interface Pattern { pattern: string; count: number; sample: string }

// groupPatterns counts the messages of each shape, the most frequent
// first (ties by shape), with one message of each as its sample.
export function groupPatterns(messages: string[]): Pattern[] {
  const byPattern = new Map<string, Pattern>();
  for (const msg of messages) {
    const p = patternOf(msg);
    const got = byPattern.get(p);
    if (got) got.count++;
    else byPattern.set(p, { pattern: p, count: 1, sample: msg });
  }
  return [...byPattern.values()].sort((a, b) => b.count - a.count || a.pattern.localeCompare(b.pattern));
}
