// What the images take from this repository (docs/images.md): the app layer's files, and the
// commit and remote the image labels name.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** What the app layer holds (besides the built dashboard): what `bin/capstan.js` loads, nothing else. */
const APP_PATHS = ['bin', 'runtime', 'handlers', 'domain', 'schema', 'ui/server.ts', 'package.json', 'tsconfig.json'];

/** The files `git` knows (committed or new, not ignored) under APP_PATHS, plus the built dashboard. */
export function stageApp(root: string): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...APP_PATHS], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !f.endsWith('.test.ts') && existsSync(join(REPO, f)));
  for (const f of new Set(listed)) {
    mkdirSync(dirname(join(root, 'app', f)), { recursive: true });
    copyFileSync(join(REPO, f), join(root, 'app', f));
  }
  const dist = join(REPO, 'ui/web/dist');
  if (!existsSync(join(dist, 'index.html'))) throw new Error('no built dashboard in ui/web/dist: run `make deps` (or npm run build:ui) first');
  cpSync(dist, join(root, 'app/ui/web/dist'), { recursive: true });
}

/** `git args` in the repository, trimmed; empty when git fails (no commit, no such remote). */
export function gitField(args: string[]): string {
  const result = spawnSync('git', args, { cwd: REPO, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : '';
}

/**
 * The source label: CAPSTAN_IMAGE_SOURCE, else the `origin` remote as an https URL (without
 * credentials), else none: the repository names no public home of its own to invent one from.
 */
export function imageSource(): string | undefined {
  return sourceUrl(process.env.CAPSTAN_IMAGE_SOURCE ?? gitField(['remote', 'get-url', 'origin']));
}

/** A git remote as a browsable https URL: scp-style made https, credentials and `.git` dropped. */
export function sourceUrl(given: string): string | undefined {
  if (given === '') return undefined;
  const scp = /^[\w.-]+@([\w.-]+):(.+?)(\.git)?$/.exec(given);
  if (scp?.[1] && scp[2]) return `https://${scp[1]}/${scp[2]}`;
  try {
    const url = new URL(given);
    url.username = '';
    url.password = '';
    return url.href.replace(/\.git$/, '');
  } catch {
    return given;
  }
}
