/**
 * Every request "Install from a link" and "Check for updates" make goes through here
 * (docs/install.md, "Limits"): only to the hosts the user typed (for GitHub, its API and raw
 * hosts), the GitHub token only to the API host, and each failure turned into a message that
 * says what to do: a host that refuses the browser (no CORS), no network, GitHub's rate limit
 * with its reset time, a missing file, a body over the size limit.
 */

/** The real hosts, named in one place. The app never changes them; tests map the names to 127.0.0.1 in the browser, or pass local URLs to the core. */
export interface InstallHosts {
  githubApi: string;
  githubRaw: string;
  /** ClawHub's API base, `https://clawhub.ai/api/v1`. */
  clawhubApi: string;
}

export const REAL_INSTALL_HOSTS: InstallHosts = {
  githubApi: 'https://api.github.com',
  githubRaw: 'https://raw.githubusercontent.com',
  clawhubApi: 'https://clawhub.ai/api/v1',
};

export type InstallErrorCode = 'cors' | 'offline' | 'rate-limit' | 'not-found' | 'http' | 'too-large' | 'host' | 'digest' | 'format';

export class InstallError extends Error {
  constructor(
    readonly code: InstallErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'InstallError';
  }
}

export const OFFLINE_MESSAGE = 'Installing from a link needs the network, and this browser is offline. Installed skills keep working; try again when you are back online.';

export function corsMessage(host: string): string {
  return `${host} does not allow the browser to read it (it sends no CORS headers), so Knack cannot install from it directly. Download the skill or a zip of it and drop it on Import skills, or paste the GitHub URL if the skill lives on GitHub.`;
}

/** Requests made, per host, since the page opened: Settings → Network lists them. */
const hostTally = new Map<string, number>();
const tallyListeners = new Set<() => void>();

export function installHostCounts(): ReadonlyMap<string, number> {
  return hostTally;
}

export function onInstallRequest(listener: () => void): () => void {
  tallyListeners.add(listener);
  return () => tallyListeners.delete(listener);
}

function countRequest(host: string): void {
  hostTally.set(host, (hostTally.get(host) ?? 0) + 1);
  for (const listener of tallyListeners) listener();
}

export interface InstallNetworkOptions {
  /** The fetch to use: the page passes its counting fetch (the privacy counter). */
  fetch?: typeof fetch;
  hosts?: InstallHosts;
  /** A fine-grained GitHub token, read when a request is made; '' for none. */
  githubToken?: () => string;
  /** Whether the browser says it is online (navigator.onLine). */
  isOnline?: () => boolean;
  /** Largest body accepted, in bytes. */
  maxBodyBytes?: number;
}

export interface GetOptions {
  signal?: AbortSignal;
  accept?: string;
  maxBytes?: number;
}

const DEFAULT_MAX_BODY = 64 * 1024 * 1024;

/** `x-ratelimit-reset` (epoch seconds) as the local time a person reads, e.g. "14:05". */
export function resetTime(resetHeader: string | null, now = Date.now()): string | null {
  const seconds = Number(resetHeader);
  if (!resetHeader || !Number.isFinite(seconds)) return null;
  const at = new Date(seconds * 1000);
  const minutes = Math.max(0, Math.ceil((at.getTime() - now) / 60000));
  return `${at.toTimeString().slice(0, 5)} (in ${minutes} minute${minutes === 1 ? '' : 's'})`;
}

/**
 * A network for one install or one update check: it calls only `allowed` hosts (what the user
 * typed, and GitHub's two hosts for a GitHub source).
 */
export class InstallNetwork {
  readonly hosts: InstallHosts;
  readonly #allowed: Set<string>;
  readonly #options: InstallNetworkOptions;
  /** Requests and bytes this network made (the bench reads them). */
  requests = 0;
  bytes = 0;

  constructor(allowedUrls: readonly string[], options: InstallNetworkOptions = {}) {
    this.hosts = options.hosts ?? REAL_INSTALL_HOSTS;
    this.#options = options;
    this.#allowed = new Set(allowedUrls.map((url) => new URL(url).host));
  }

  allows(url: string): boolean {
    try {
      return this.#allowed.has(new URL(url).host);
    } catch {
      return false;
    }
  }

  async getJson<T = unknown>(url: string, options: GetOptions = {}): Promise<{ value: T; bytes: Uint8Array; response: Response }> {
    const { bytes, response } = await this.get(url, { accept: 'application/json', ...options });
    try {
      return { value: JSON.parse(new TextDecoder().decode(bytes)) as T, bytes, response };
    } catch {
      throw new InstallError('format', `${url} did not answer with JSON.`);
    }
  }

  async getText(url: string, options: GetOptions = {}): Promise<string> {
    return new TextDecoder().decode((await this.get(url, options)).bytes);
  }

  async get(url: string, options: GetOptions = {}): Promise<{ bytes: Uint8Array; response: Response }> {
    const parsed = new URL(url);
    if (!this.#allowed.has(parsed.host)) {
      throw new InstallError('host', `The source points at ${parsed.host}, a host you did not name. Knack only asks the host you pasted; paste a link on ${parsed.host} itself to install from there.`);
    }
    const headers: Record<string, string> = {};
    if (options.accept) headers.Accept = options.accept;
    const token = this.#options.githubToken?.().trim() ?? '';
    // The token is for GitHub's API only: never for raw files or any other host.
    if (token && parsed.origin === new URL(this.hosts.githubApi).origin) headers.Authorization = `Bearer ${token}`;
    const fetchImpl = this.#options.fetch ?? globalThis.fetch.bind(globalThis);
    let response: Response;
    this.requests++;
    countRequest(parsed.host);
    try {
      response = await fetchImpl(url, { headers, signal: options.signal, credentials: 'omit', cache: 'no-store' });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const online = this.#options.isOnline?.() ?? (typeof navigator === 'undefined' || (navigator as { onLine?: boolean }).onLine !== false);
      if (!online) throw new InstallError('offline', OFFLINE_MESSAGE);
      // fetch rejects with a TypeError, and nothing else, when the answer is not readable
      // cross-origin (or the host cannot be reached at all): say both.
      throw new InstallError('cors', `${corsMessage(parsed.host)} (If the host is simply down, try again later.)`);
    }
    if (!response.ok) throw this.#httpError(parsed, response);
    const max = options.maxBytes ?? this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > max) throw new InstallError('too-large', `${url} is ${declared} bytes; the limit is ${max}.`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > max) throw new InstallError('too-large', `${url} is ${bytes.length} bytes; the limit is ${max}.`);
    this.bytes += bytes.length;
    return { bytes, response };
  }

  #httpError(url: URL, response: Response): InstallError {
    const remaining = response.headers.get('x-ratelimit-remaining');
    if ((response.status === 403 || response.status === 429) && (remaining === '0' || response.headers.has('retry-after'))) {
      const reset = resetTime(response.headers.get('x-ratelimit-reset'));
      const retry = response.headers.get('retry-after');
      const when = reset ? `It resets at ${reset}.` : retry ? `Try again in ${retry} seconds.` : 'Try again later.';
      const github = url.origin === new URL(this.hosts.githubApi).origin;
      const hasToken = !!this.#options.githubToken?.().trim();
      const advice = github && !hasToken ? ' A fine-grained GitHub token (Settings → Install from a link) raises the limit from 60 to 5,000 requests an hour.' : '';
      return new InstallError('rate-limit', `${url.host} rate limit reached: no requests left for now. ${when}${advice}`);
    }
    if (response.status === 404) return new InstallError('not-found', `${url.host} has nothing at ${url.pathname} (404). Check the link; a private repository needs a token that can read it.`);
    if (response.status === 401) return new InstallError('http', `${url.host} refused the token (401). Check the GitHub token in Settings, or clear it.`);
    return new InstallError('http', `${url.host} answered ${response.status} for ${url.pathname}. Try again later.`);
  }
}

/** Runs `work` over `items`, `limit` at a time, in order of start; stops starting new ones once aborted. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError');
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
