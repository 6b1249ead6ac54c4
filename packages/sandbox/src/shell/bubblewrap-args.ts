/** A top-level host entry the sandbox root mirrors: a directory bound read-only, or a symlink. */
export type HostEntry = { path: string; type: 'dir' } | { path: string; type: 'symlink'; target: string };

/** What `buildBubblewrapArgs` needs; all paths are real (symlinks resolved) and absolute. */
export interface BubblewrapArgsOptions {
  command: readonly string[];
  /**
   * Host paths bound read-only at their own path (a runtime, a server's code); default none.
   * The writable root stays writable where it lies inside one of them.
   */
  readOnlyPaths?: readonly string[];
  /** The one writable directory, bound at its own path. */
  root: string;
  /** Where the command starts; inside `root`. */
  cwd: string;
  env: Readonly<Record<string, string>>;
  network: boolean;
  /** Size of the writable tmpfs on `/tmp`. */
  tmpSizeBytes: number;
  /** Size of the writable tmpfs on `/dev/shm`; the rest of `/dev` is read-only. */
  shmSizeBytes: number;
  /** `/bin`, `/lib`, … as they exist on this host (merged-usr systems have symlinks). */
  hostEntries: readonly HostEntry[];
  /** Extra read-only files or directories under `/etc` that exist on this host. */
  etcPaths: readonly string[];
  /** A file descriptor bubblewrap reads a seccomp program from (`--seccomp`), if any. */
  seccompFd?: number;
}

/**
 * The host uid/gid (`nobody`) commands run as when the caller is root and no pids cgroup
 * is writable, so the kernel applies RLIMIT_NPROC to them.
 */
export const SANDBOX_HOST_UID = 65534;

/** The uid/gid the command sees inside the sandbox. */
export const SANDBOX_UID = 1000;
/** PATH inside the sandbox unless `env` overrides it. */
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

/**
 * The bubblewrap argv for one command: a minimal read-only root (`/usr` and the system
 * links, a few `/etc` files, never `/root`, `/home` or other secrets), `root` as the only
 * writable path, size-capped `/tmp` and `/dev/shm` (bubblewrap's own `/dev` is a tmpfs as
 * large as half the host's RAM, so it is made read-only), new user/PID/IPC/UTS (and, unless `network`,
 * network) namespaces, a new session, die-with-parent, a cleared environment and no
 * capabilities. The command stays an argv after `--`; nothing is joined into a shell string.
 */
export function buildBubblewrapArgs(options: BubblewrapArgsOptions): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.network ? [] : ['--unshare-net']),
    '--disable-userns',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const entry of options.hostEntries) {
    if (entry.type === 'symlink') args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  for (const path of options.etcPaths) args.push('--ro-bind-try', path, path);
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(options.shmSizeBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--size',
    String(options.tmpSizeBytes),
    '--tmpfs',
    '/tmp',
    '--bind',
    options.root,
    options.root,
    '--chdir',
    options.cwd,
    '--clearenv',
  );
  const env: Record<string, string> = { PATH: SANDBOX_PATH, HOME: options.root, LANG: 'C.UTF-8', ...options.env };
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  const readOnlyPaths = options.readOnlyPaths ?? [];
  if (readOnlyPaths.length > 0) {
    // After /tmp, so a path under it stays visible; the root is bound again after them, so
    // it stays writable where it lies inside one. (`--chdir` applies after all mounts.)
    for (const path of readOnlyPaths) args.push('--ro-bind', path, path);
    args.push('--bind', options.root, options.root);
  }
  if (options.seccompFd !== undefined) args.push('--seccomp', String(options.seccompFd));
  args.push('--cap-drop', 'ALL', '--remount-ro', '/', '--', ...options.command);
  return args;
}

/** `/etc` entries commands commonly need (loader cache, certificates, locale data); no secrets. */
export const ETC_PATHS = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/mime.types',
  '/etc/magic',
];

/** `/etc` entries needed for name resolution, bound only when the network is on. */
export const ETC_NETWORK_PATHS = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/host.conf', '/etc/gai.conf'];
