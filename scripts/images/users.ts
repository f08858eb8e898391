// Who the images run as and what those users own (docs/images.md): numeric ids, as Kubernetes'
// runAsNonRoot can check, written into the /etc/passwd and /etc/group the layers carry.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ImageUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** The one user the images run as: a numeric id, as Kubernetes' runAsNonRoot can check. */
export const NONROOT = { name: 'nonroot', uid: 65532, gid: 65532 } as const;
/**
 * capstan-terminal's user instead: the one the chart runs the sidecar as (not the agent's), its
 * home the terminal home (CAPSTAN_TERMINAL_HOME's default, the chart's terminal volume).
 */
export const TERMINAL_USER = { name: 'terminal', uid: 65533, gid: 65533, home: '/home/capstan' } as const;
/**
 * The admin sidecar's user (the chart's `terminal-admin` container, with rbac.allowWrites):
 * another uid, so a viewer's shell cannot read an admin's files; its home is its own volume,
 * mounted at the same path.
 */
export const TERMINAL_ADMIN_USER = { name: 'terminal-admin', uid: 65531, gid: 65531, home: '/home/capstan' } as const;
/** Where the agent keeps its database in the image (CAPSTAN_DATA_DIR), owned by NONROOT. */
export const IMAGE_DATA_DIR = '/data/capstan';

/** /etc/passwd and /etc/group: root, NONROOT, and `more` (capstan-terminal's user), none of them able to log in but `more`. */
export function writeUsers(etc: string, more: (ImageUser & { shell: string })[] = []): void {
  const users = more.map((u) => `${u.name}:x:${u.uid}:${u.gid}:${u.name}:${u.home}:${u.shell}\n`).join('');
  writeFileSync(join(etc, 'passwd'), `root:x:0:0:root:/root:/sbin/nologin\n${NONROOT.name}:x:${NONROOT.uid}:${NONROOT.gid}:${NONROOT.name}:/home/${NONROOT.name}:/sbin/nologin\n${users}`);
  writeFileSync(join(etc, 'group'), `root:x:0:\n${NONROOT.name}:x:${NONROOT.gid}:\n${more.map((u) => `${u.name}:x:${u.gid}:\n`).join('')}`);
}
