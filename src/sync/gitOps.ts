/**
 * The isomorphic-git functions the git transport uses, and only those: gitTransport.ts loads this
 * module with a dynamic import, so isomorphic-git is a separate chunk fetched when a git server
 * is first used, and named re-exports let the bundler drop the rest of it (docs/sync.md).
 */
import { Buffer } from 'buffer';

// isomorphic-git (and sha.js under it) call Node's global `Buffer` when they run; a browser has
// none, so the `buffer` package stands in, set before any of these functions is called.
globalThis.Buffer ??= Buffer as unknown as typeof globalThis.Buffer;

export { fetch, getRemoteInfo2, init, push, readBlob, readCommit, readTree, setConfig, writeBlob, writeCommit, writeRef, writeTree } from 'isomorphic-git';
export type { HttpClient, GitHttpRequest, GitHttpResponse, TreeEntry } from 'isomorphic-git';
