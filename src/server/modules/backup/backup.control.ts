// `npm run backup` while the server runs on the embedded database. PGlite lives inside the
// server's process and its data directory is locked, so another process cannot read it: the
// server listens on a Unix socket in DATA_DIR (`sauvegarde.sock`, readable and writable by its
// own system account only) and the command asks it for the backup there. One request per
// connection, one JSON line each way:
//   → {"fichier": "/chemin/absolu.sql.gz"}   (or {} for a new file in BACKUP_DIR, rotated)
//   ← {"ok": true, "fichier", "taille", "sha256", "lignes", "schema"} or {"ok": false, "message"}
// Only the server's own account can connect (the socket's mode), and it writes nothing but a
// backup where that account asked; PostgreSQL needs none of this (the command reads it itself).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { BackupResult } from './backup.dump.js';

/** A Unix socket path longer than this cannot be bound (sun_path is 108 bytes on Linux). */
const SOCKET_PATH_MAX = 100;
const REQUEST_MAX_BYTES = 8192;

export type ControlAnswer =
  | { ok: true; fichier: string; taille: number; sha256: string; lignes: number; schema: number }
  | { ok: false; message: string };

export function controlAnswer(result: BackupResult): ControlAnswer {
  return {
    ok: true,
    fichier: result.path,
    taille: result.size,
    sha256: result.sha256,
    lignes: result.header.tables.reduce((n, t) => n + t.rows, 0),
    schema: result.header.schema,
  };
}

/** Whether `socketPath` can be bound; a longer path is refused by the system. */
export function controlSocketUsable(socketPath: string): boolean {
  return Buffer.byteLength(socketPath) <= SOCKET_PATH_MAX;
}

/**
 * Listens on `socketPath` and answers each request with `backup(file)`. A socket file left by a
 * server that stopped without cleaning up is replaced (the database's own lock already
 * guarantees no other server runs on this DATA_DIR).
 */
export async function startBackupControl(socketPath: string, backup: (file: string | null) => Promise<ControlAnswer>): Promise<{ close: () => Promise<void> }> {
  fs.mkdirSync(path.dirname(socketPath), { recursive: true });
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    let received = '';
    let answered = false;
    const answer = (a: ControlAnswer) => {
      if (answered) return;
      answered = true;
      socket.end(`${JSON.stringify(a)}\n`);
    };
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > REQUEST_MAX_BYTES) return answer({ ok: false, message: 'Demande trop longue' });
      const end = received.indexOf('\n');
      if (end < 0 || answered) return;
      let file: string | null = null;
      try {
        const request = JSON.parse(received.slice(0, end)) as { fichier?: unknown };
        if (request.fichier !== undefined) {
          if (typeof request.fichier !== 'string' || !path.isAbsolute(request.fichier)) throw new Error();
          file = request.fichier;
        }
      } catch {
        return answer({ ok: false, message: 'Demande illisible : {"fichier": "/chemin/absolu"} ou {} attendu' });
      }
      backup(file).then(answer, (e: Error) => answer({ ok: false, message: e.message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          fs.rmSync(socketPath, { force: true });
          resolve();
        });
      }),
  };
}

/**
 * Asks the server listening on `socketPath` for a backup (to `file`, or a new file in its
 * BACKUP_DIR). Null when no server listens there.
 */
export function requestServerBackup(socketPath: string, file: string | null): Promise<ControlAnswer | null> {
  return new Promise((resolve, reject) => {
    if (!fs.existsSync(socketPath)) return resolve(null);
    const socket = net.createConnection(socketPath);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(file ? { fichier: file } : {})}\n`));
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT') resolve(null);
      else reject(e);
    });
    socket.on('end', () => {
      try {
        resolve(JSON.parse(received.trim()) as ControlAnswer);
      } catch {
        reject(new Error('Réponse illisible du serveur'));
      }
    });
  });
}
