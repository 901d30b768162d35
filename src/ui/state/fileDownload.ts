/**
 * Saves text the app made (a chat export) as a file: a Blob URL clicked through a hidden link,
 * so nothing leaves the browser and no request is made.
 */
export function downloadText(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Chromium starts the download from the click; the URL can go once that task is done.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
