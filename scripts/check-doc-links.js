#!/usr/bin/env node
// Every relative link in README.md and docs/**/*.md points at a file that exists, and its #anchor (if any) at a
// heading of that file (GitHub's slugs: lower case, punctuation dropped, spaces as hyphens).
// Usage: node scripts/check-doc-links.js; exits 1 listing the broken links.
const { readFileSync, readdirSync, existsSync, statSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
function markdownFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

function anchors(file) {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map();
  return new Set(
    [...text.matchAll(/^#{1,6} +(.+?) *$/gm)].map(([, heading]) => {
      const slug = heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-');
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      return n === 0 ? slug : `${slug}-${n}`;
    }),
  );
}

const broken = [];
for (const file of [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))]) {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path, anchor] = decodeURIComponent(target).split('#');
    const linked = path === '' ? file : resolve(dirname(file), path);
    const ok = existsSync(linked) && (!anchor || !linked.endsWith('.md') || anchors(linked).has(anchor));
    if (!ok) broken.push(`${file.slice(root.length + 1)}: ${target}`);
  }
}
if (broken.length > 0) {
  console.error(`broken links:\n${broken.join('\n')}`);
  process.exit(1);
}
console.log('doc links: all resolve');
