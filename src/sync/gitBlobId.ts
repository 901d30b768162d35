/**
 * git's id of a file's bytes (`git hash-object`): SHA-1 of `blob <size>\0<bytes>`. The GitHub
 * transport checks every file it reads against the id the tree named (docs/sync.md, "GitHub
 * repository"), so text that GitHub decoded and re-encoded can never come in altered.
 */
export async function gitBlobId(bytes: Uint8Array): Promise<string> {
  const header = new TextEncoder().encode(`blob ${bytes.length}\0`);
  const object = new Uint8Array(header.length + bytes.length);
  object.set(header, 0);
  object.set(bytes, header.length);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', object));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Base64 of bytes, in slices so a large file does not overflow the argument list. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** Bytes of base64 text; line breaks (GitHub wraps blob content at 60 characters) are ignored. */
export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text.replace(/\s+/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
