// Calls of moving in: the templates (downloads), the upload of a file with its progress (an
// XMLHttpRequest, the only way a browser reports upload progress), and the server's progress
// of the same import, polled under an id the screen chooses.
import { api, redirectToLogout, NETWORK_ERROR_MESSAGE } from '../../lib/api';
import { startDownload } from '../../lib/download';
import type { ImportKind, ImportProgress, ImportReport } from '../../../shared/schemas/imports';

export function downloadTemplate(kind: ImportKind, withData: boolean) {
  return startDownload(`admin/import/${kind}/modele`, withData ? { donnees: 1 } : {}, `${withData ? 'donnees' : 'modele'}-${kind}.csv`);
}

/** A refusal of the whole file (400, 413...): its message is for the screen. */
export class ImportRefusal extends Error {}

export interface UploadOptions {
  mode: 'essai' | 'import';
  invite: boolean;
  suivi: string;
  /** Share of the file sent, 0 to 1. */
  onUpload: (ratio: number) => void;
}

export function uploadImport(kind: ImportKind, file: File, o: UploadOptions): Promise<ImportReport> {
  const query = new URLSearchParams({ mode: o.mode, suivi: o.suivi, ...(o.invite ? { envoyerInvitation: '1' } : {}) });
  const body = new FormData();
  body.append('fichier', file);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/admin/import/${kind}?${query}`);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => e.lengthComputable && o.onUpload(e.loaded / e.total);
    xhr.onerror = () => reject(new ImportRefusal(NETWORK_ERROR_MESSAGE));
    xhr.onload = () => {
      const res = xhr.response as (ImportReport & { message?: string }) | null;
      if (xhr.status === 200 && res) return resolve(res);
      if (xhr.status === 401) redirectToLogout();
      reject(new ImportRefusal(res?.message ?? 'Une erreur est survenue.'));
    };
    xhr.send(body);
  });
}

/** The server's progress of the import under `suivi`; null until the server has the file. */
export async function importProgress(suivi: string): Promise<ImportProgress | null> {
  const res = await api.get(`admin/import/progression/${suivi}`, { throwHttpErrors: false });
  return res.ok ? ((await res.json()) as ImportProgress) : null;
}
