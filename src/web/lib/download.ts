// Saves a file the API answered (CSV exports) under the given name, as a download.
export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The browser has taken the file once click() returns; a short delay spares slow engines.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
