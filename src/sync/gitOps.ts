/**
 * The isomorphic-git functions the git transport uses, and only those: gitTransport.ts loads this
 * module with a dynamic import, so isomorphic-git is a separate chunk fetched when a git server
 * is first used, and named re-exports let the bundler drop the rest of it (docs/sync.md).
 */
export { fetch, getRemoteInfo2, init, push, readBlob, readCommit, readTree, setConfig, writeBlob, writeCommit, writeRef, writeTree } from 'isomorphic-git';
export type { HttpClient, GitHttpRequest, GitHttpResponse, TreeEntry } from 'isomorphic-git';
