import { ComponentChildren } from 'preact';

// Markdown renders a tile's note as elements built here: headings,
// paragraphs, lists, code, emphasis and links. Every character of the
// source ends up as text; none is ever parsed as HTML, so a note cannot
// run a script or restyle the page. Links go only to http(s) or this app.
export function Markdown({ source }: { source: string }) {
  const out: ComponentChildren[] = [];
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith('```')) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
      i++;
      out.push(<pre><code>{body.join('\n')}</code></pre>);
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      const level = h[1].length;
      const Tag = `h${Math.min(level + 1, 6)}` as 'h2';
      out.push(<Tag class="md-h">{inline(h[2])}</Tag>);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: ComponentChildren[] = [];
      for (; i < lines.length && /^\s*([-*+]|\d+\.)\s+/.test(lines[i]); i++) items.push(<li>{inline(lines[i].replace(/^\s*([-*+]|\d+\.)\s+/, ''))}</li>);
      out.push(ordered ? <ol>{items}</ol> : <ul>{items}</ul>);
      continue;
    }
    if (line.trim() === '') { i++; continue; }
    const para: string[] = [];
    for (; i < lines.length && lines[i].trim() !== '' && !/^(#{1,6}\s|```|\s*([-*+]|\d+\.)\s)/.test(lines[i]); i++) para.push(lines[i]);
    out.push(<p>{inline(para.join(' '))}</p>);
  }
  return <div class="markdown">{out}</div>;
}

// inline reads `code`, **bold**, *italic* / _italic_ and [text](url).
// An image, ![alt](url), is not fetched (a note would call any host from
// every viewer's browser; a Datadog import's are Datadog's own paths): it
// is named in words rather than left as its raw markdown.
function inline(s: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|_([^_]+)_|!\[([^\]]*)\]\(([^)\s]*)\)|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index > last) out.push(s.slice(last, m.index));
    if (m[1] !== undefined) out.push(<code>{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong>{inline(m[2])}</strong>);
    else if (m[3] !== undefined) out.push(<em>{inline(m[3])}</em>);
    else if (m[4] !== undefined) out.push(<em>{inline(m[4])}</em>);
    else if (m[6] !== undefined) out.push(<em class="muted">{m[5] ? `(image: ${m[5]})` : '(image)'}</em>);
    else {
      const href = m[8];
      const safe = /^https?:\/\//i.test(href) || (href.startsWith('/') && !href.startsWith('//'));
      out.push(safe ? <a href={href} rel="noopener noreferrer" target={href.startsWith('/') ? undefined : '_blank'}>{m[7]}</a> : `${m[7]} (${href})`);
    }
    last = re.lastIndex;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}
