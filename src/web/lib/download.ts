// CSV exports download through the browser's own download manager: a link to the export's URL
// under /api (same origin, so the session cookie goes with it) that the browser saves as the
// file name given. The file streams to disk as the server writes it, whatever its size; the page
// never holds it in memory. The page cannot see the answer: the browser's download list shows
// progress and failures, and the screen says the download started.
import { NETWORK_ERROR_MESSAGE } from './api';
import { notifyError, notifySuccess } from './notify';

/** What starts a download: a click on a hidden link (tests observe it here). */
export const downloader = {
  start(href: string, filename: string) {
    const link = document.createElement('a');
    link.href = href;
    link.download = filename;
    link.hidden = true;
    document.body.appendChild(link);
    link.click();
    link.remove();
  },
};

/** The message shown when a download has been handed to the browser. */
export const downloadStartedMessage = (filename: string) => `Téléchargement de ${filename} lancé`;

/**
 * Downloads /api/{path}?{query} as `filename` and says so. Offline, nothing starts and the
 * screen says the server cannot be reached. Returns whether the download started.
 */
export function startDownload(path: string, query: string | URLSearchParams | Record<string, string | number | undefined>, filename: string): boolean {
  if (typeof navigator !== 'undefined' && navigator.onLine === false) {
    notifyError(NETWORK_ERROR_MESSAGE);
    return false;
  }
  const params =
    typeof query === 'string' || query instanceof URLSearchParams
      ? String(query)
      : new URLSearchParams(Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))).toString();
  downloader.start(`/api/${path}${params ? `?${params}` : ''}`, filename);
  notifySuccess(downloadStartedMessage(filename));
  return true;
}
