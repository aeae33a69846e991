// `npm run docs:check`: every relative link and `#anchor` in README.md and docs/*.md must lead
// somewhere: the file exists, and the anchor is a heading of that file (GitHub's slugs).
// Links inside code blocks and inline code are not links. Exits 1, naming each broken link.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The text outside fenced code blocks and inline code. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ' '));
}

/** GitHub's anchors of a file's headings: lower case, punctuation dropped, spaces to hyphens. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

export function brokenLinks(files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const targetFile = path === '' ? file : resolve(dirname(file), path);
      const where = `${relative(root, file)}: (${target})`;
      if (!existsSync(targetFile)) {
        broken.push(`${where}: no file ${relative(root, targetFile)}`);
        continue;
      }
      if (anchor !== undefined && !anchorsOf(readFileSync(targetFile, 'utf8')).has(anchor)) {
        broken.push(`${where}: no heading #${anchor} in ${relative(root, targetFile)}`);
      }
    }
  }
  return broken;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const docs = join(root, 'docs');
  const files = [join(root, 'README.md'), ...readdirSync(docs).filter((name) => name.endsWith('.md')).map((name) => join(docs, name))];
  const broken = brokenLinks(files);
  for (const line of broken) console.error(line);
  console.log(`${files.length} files, ${broken.length} broken link(s)`);
  process.exitCode = broken.length === 0 ? 0 : 1;
}
