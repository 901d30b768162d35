/**
 * The object store of the git transport: an in-memory file system with the subset of Node's
 * `fs.promises` isomorphic-git calls. Why memory and not IndexedDB (docs/sync.md, "The git
 * server"): the git objects are only a cache of the remote. What a sync must remember between
 * sessions — the last synced version of each skill — the sync core keeps in IndexedDB itself, so
 * a fresh tab needs one shallow fetch (depth 1) and nothing can be corrupted by a tab dying
 * half-way through a write (LightningFS's documented risk).
 */

interface FileNode {
  kind: 'file';
  bytes: Uint8Array;
  mode: number;
  mtimeMs: number;
}
interface DirNode {
  kind: 'dir';
  mtimeMs: number;
}
type Node = FileNode | DirNode;

function fsError(code: string, path: string): Error {
  const error = new Error(`${code}: ${path}`) as Error & { code: string };
  error.code = code;
  return error;
}

function normalise(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '/' : path.slice(0, at);
}

let inode = 1;

function statOf(node: Node) {
  const isFile = node.kind === 'file';
  return {
    type: isFile ? 'file' : 'dir',
    mode: isFile ? node.mode : 0o40755,
    size: isFile ? node.bytes.length : 0,
    ino: inode++,
    mtimeMs: node.mtimeMs,
    ctimeMs: node.mtimeMs,
    uid: 1,
    gid: 1,
    dev: 1,
    isFile: () => isFile,
    isDirectory: () => !isFile,
    isSymbolicLink: () => false,
  };
}

/** A fresh, empty in-memory file system in the shape isomorphic-git takes (`{ promises }`). */
export function createMemoryGitFs() {
  const nodes = new Map<string, Node>([['/', { kind: 'dir', mtimeMs: Date.now() }]]);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const requireDir = (path: string) => {
    const parent = nodes.get(parentOf(path));
    if (!parent) throw fsError('ENOENT', path);
    if (parent.kind !== 'dir') throw fsError('ENOTDIR', path);
  };

  const promises = {
    async readFile(rawPath: string, options?: { encoding?: string } | string) {
      const path = normalise(rawPath);
      const node = nodes.get(path);
      if (!node) throw fsError('ENOENT', path);
      if (node.kind !== 'file') throw fsError('EISDIR', path);
      const encoding = typeof options === 'string' ? options : options?.encoding;
      return encoding === 'utf8' ? decoder.decode(node.bytes) : node.bytes;
    },
    async writeFile(rawPath: string, data: Uint8Array | string, options?: { mode?: number } | string) {
      const path = normalise(rawPath);
      requireDir(path);
      const existing = nodes.get(path);
      if (existing?.kind === 'dir') throw fsError('EISDIR', path);
      const bytes = typeof data === 'string' ? encoder.encode(data) : new Uint8Array(data);
      const mode = typeof options === 'object' && options?.mode ? options.mode : 0o100644;
      nodes.set(path, { kind: 'file', bytes, mode, mtimeMs: Date.now() });
    },
    async unlink(rawPath: string) {
      const path = normalise(rawPath);
      const node = nodes.get(path);
      if (!node) throw fsError('ENOENT', path);
      if (node.kind !== 'file') throw fsError('EISDIR', path);
      nodes.delete(path);
    },
    async readdir(rawPath: string) {
      const path = normalise(rawPath);
      const node = nodes.get(path);
      if (!node) throw fsError('ENOENT', path);
      if (node.kind !== 'dir') throw fsError('ENOTDIR', path);
      const prefix = path === '/' ? '/' : `${path}/`;
      const names: string[] = [];
      for (const key of nodes.keys()) {
        if (key !== path && key.startsWith(prefix) && !key.slice(prefix.length).includes('/')) names.push(key.slice(prefix.length));
      }
      return names;
    },
    async mkdir(rawPath: string) {
      const path = normalise(rawPath);
      if (nodes.has(path)) throw fsError('EEXIST', path);
      requireDir(path);
      nodes.set(path, { kind: 'dir', mtimeMs: Date.now() });
    },
    async rmdir(rawPath: string) {
      const path = normalise(rawPath);
      const node = nodes.get(path);
      if (!node) throw fsError('ENOENT', path);
      if (node.kind !== 'dir') throw fsError('ENOTDIR', path);
      if ((await promises.readdir(path)).length > 0) throw fsError('ENOTEMPTY', path);
      nodes.delete(path);
    },
    async stat(rawPath: string) {
      const node = nodes.get(normalise(rawPath));
      if (!node) throw fsError('ENOENT', rawPath);
      return statOf(node);
    },
    async lstat(rawPath: string) {
      return promises.stat(rawPath);
    },
    // A synced library holds no symbolic links (docs/sync.md, "Safety").
    readlink: async (rawPath: string): Promise<string> => Promise.reject(fsError('EINVAL', rawPath)),
    symlink: async (_target: string, rawPath: string): Promise<void> => Promise.reject(fsError('EPERM', rawPath)),
    async chmod(rawPath: string, mode: number) {
      const node = nodes.get(normalise(rawPath));
      if (!node) throw fsError('ENOENT', rawPath);
      if (node.kind === 'file') node.mode = mode;
    },
  };
  return { promises };
}
