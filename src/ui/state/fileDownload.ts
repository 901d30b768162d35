/**
 * Saves what the app made (a chat export, a skills zip, a backup) as a file: a Blob URL clicked
 * through a hidden link, so nothing leaves the browser and no request is made.
 */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Chromium starts the download from the click; the URL can go once that task is done.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function downloadText(text: string, fileName: string, type: string): void {
  downloadBlob(new Blob([text], { type }), fileName);
}

export function downloadBytes(bytes: Uint8Array, fileName: string, type = 'application/zip'): void {
  downloadBlob(new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), fileName);
}
