// Writes NAME.br and NAME.gz beside every text file of the build, so the
// server sends them as they are (no compression per request). Node's own
// zlib: no extra package.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, extname } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const dir = process.argv[2] ?? 'dist';
const text = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

function walk(d) {
  for (const name of readdirSync(d)) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) { walk(p); continue; }
    if (!text.has(extname(p))) continue;
    const body = readFileSync(p);
    writeFileSync(p + '.br', brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(p + '.gz', gzipSync(body, { level: 9 }));
  }
}
walk(dir);
