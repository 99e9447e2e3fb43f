// Environment parsed once at start; a bad value stops the process with a French message
// naming the variable (every variable is documented in README.md).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { parseBackupConfig, type BackupConfig } from './modules/backup/backup.config.js';
import { parseMetricsConfig, type MetricsConfig } from './modules/metrics/metrics.config.js';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** A text variable: blank means the default; a value too long or on several lines is refused. */
function text(name: string, fallback: string, max: number) {
  return optionalString.pipe(
    z
      .string()
      .max(max, { message: `${name} doit faire au plus ${max} caractères` })
      .regex(/^[^\r\n]*$/, { message: `${name} doit tenir sur une ligne` })
      .default(fallback),
  );
}

const territorySchema = z
  .string()
  .regex(/^(\d{9}|(\d{2}|2A|2B|\d{3})(,(\d{2}|2A|2B|\d{3}))*)$/, {
    message: 'TERRITORY doit être un SIREN d’EPCI (9 chiffres) ou des codes de départements séparés par des virgules (ex. 29,56)',
  });

const PORT_MESSAGE = 'PORT doit être un numéro de port entre 0 et 65535';
const HOST_MESSAGE = 'HOST doit être une adresse IP ou un nom d’hôte (ex. 127.0.0.1 ou 0.0.0.0)';
const DB_TIMEOUT_MESSAGE = 'DB_STATEMENT_TIMEOUT doit être un nombre de secondes entre 1 et 3600';
/** OpenStreetMap's own tiles, for the map of the sites, when MAP_TILES_URL is not set. */
export const DEFAULT_TILES_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const TRUST_PROXY_MESSAGE =
  'TRUST_PROXY doit être un nombre de proxys devant le serveur (ex. 1) ou une liste d’adresses ou de réseaux de proxys séparés par des virgules (ex. 127.0.0.1,10.0.0.0/8)';
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function proxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const family = net.isIP(address);
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * A SIRET's check (OPEN_DATA_SIRET): the Luhn key over its 14 digits. La Poste (SIREN 356000000)
 * is the one known exception: its head office (35600000000048) passes Luhn, but its other
 * establishments are numbered so that the sum of the digits is a multiple of 5 instead. They
 * are accepted that way rather than refused: a La Poste SIRET is a real one.
 */
export function siretChecks(siret: string): boolean {
  const digits = [...siret].map(Number);
  const luhn = digits.reduceRight((sum, d, i) => {
    const v = (digits.length - 1 - i) % 2 === 1 ? d * 2 : d;
    return sum + (v > 9 ? v - 9 : v);
  }, 0);
  if (luhn % 10 === 0) return true;
  return siret.startsWith('356000000') && digits.reduce((sum, d) => sum + d, 0) % 5 === 0;
}

/**
 * Who may say which address a request comes from (X-Forwarded-For): nobody by default, the
 * given number of proxies in front of the server, or the proxies at the listed addresses.
 */
export type TrustProxy = false | number | string[];

export const configSchema = z.object({
  PORT: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, { message: PORT_MESSAGE })
      .transform(Number)
      .refine((n) => n <= 65535, { message: PORT_MESSAGE })
      .default(3000),
  ),
  HOST: optionalString.pipe(
    z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$/, { message: HOST_MESSAGE })
      .default('127.0.0.1'),
  ),
  DATA_DIR: optionalString.pipe(z.string().default('./data')),
  DATABASE_URL: optionalString.pipe(
    z.string().regex(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL doit commencer par postgres:// ou postgresql://' }).optional(),
  ),
  PUBLIC_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, message: 'PUBLIC_URL doit être une URL (ex. https://compost.example.fr)' }).optional(),
  ),
  SMTP_URL: optionalString.pipe(
    z.string().regex(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL doit commencer par smtp:// ou smtps://' }).optional(),
  ),
  MAIL_FROM: optionalString.pipe(
    z
      .string()
      .regex(/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, {
        message: 'MAIL_FROM doit être une adresse e-mail, éventuellement précédée d’un nom (ex. Compost <no-reply@exemple.fr>)',
      })
      .default('Compost <no-reply@compost.local>'),
  ),
  APP_NAME: text('APP_NAME', 'Compost', 60),
  APP_CONTACT: text('APP_CONTACT', '02 98 00 00 00 - compostage@exemple.fr', 200),
  TERRITORY: optionalString.pipe(territorySchema.default('242900314')),
  ADMIN_LOGIN: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9._-]{2,64}$/, { message: 'ADMIN_LOGIN doit faire 2 à 64 caractères parmi lettres sans accent, chiffres, point, tiret et souligné' })
      .optional(),
  ),
  ADMIN_PASSWORD: optionalString.pipe(
    z
      .string()
      .min(8, { message: 'ADMIN_PASSWORD doit faire au moins 8 caractères' })
      .max(200, { message: 'ADMIN_PASSWORD doit faire au plus 200 caractères' })
      .optional(),
  ),
  ADMIN_EMAIL: optionalString.pipe(z.email({ message: 'ADMIN_EMAIL doit être une adresse e-mail' }).optional()),
  DEMO_DATA: optionalString.pipe(
    z
      .enum(['0', '1'], { message: 'DEMO_DATA doit valoir 1 (programme de démonstration) ou 0' })
      .optional()
      .transform((v) => v === '1'),
  ),
  TRUST_PROXY: optionalString.transform((v, ctx): TrustProxy => {
    if (v === undefined || v === '0') return false;
    if (/^\d{1,2}$/.test(v)) return Number(v);
    const entries = v.split(',').map((e) => e.trim());
    if (entries.every(proxyAddress)) return entries;
    ctx.addIssue({ code: 'custom', message: TRUST_PROXY_MESSAGE });
    return false;
  }),
  LOG_LEVEL: optionalString.pipe(
    z.enum(LOG_LEVELS, { message: `LOG_LEVEL doit valoir l’un de : ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
  /** Longest a statement may run, in seconds, before the request answers 503 (exports have their own limit). */
  DB_STATEMENT_TIMEOUT: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,4}$/, { message: DB_TIMEOUT_MESSAGE })
      .transform(Number)
      .refine((n) => n >= 1 && n <= 3600, { message: DB_TIMEOUT_MESSAGE })
      .default(15),
  ),
  /** Paris time of the daily alerts run, or off. */
  ALERTS_AT: optionalString.pipe(
    z
      .string()
      .regex(/^(off|([01]\d|2[0-3]):[0-5]\d)$/, { message: 'ALERTS_AT doit être une heure HH:MM (heure de Paris, ex. 06:30) ou off' })
      .default('06:30'),
  ),
  /** The collectivity that publishes the open data: its name, and its SIRET written in COLL_SIRET. */
  OPEN_DATA_NAME: text('OPEN_DATA_NAME', 'Brest Métropole', 120),
  /**
   * Brest Métropole (SIREN 242900314) with NIC 00012: a valid SIRET (Luhn), but whether 00012 is
   * the establishment that should publish is the operator's to confirm (annuaire-entreprises.data.gouv.fr).
   */
  OPEN_DATA_SIRET: optionalString.pipe(
    z
      .string()
      // Written as the registers show it: '242 900 314 00012'.
      .transform((v) => v.replace(/\s/g, ''))
      .superRefine((v, ctx) => {
        const message = /^\d{9}$/.test(v)
          ? 'OPEN_DATA_SIRET doit être un SIRET de 14 chiffres, pas un SIREN de 9 : ajoutez les 5 chiffres (NIC) de l’établissement qui publie'
          : !/^\d{14}$/.test(v)
            ? 'OPEN_DATA_SIRET doit être un SIRET de 14 chiffres (le SIREN suivi du NIC de l’établissement)'
            : !siretChecks(v)
              ? 'OPEN_DATA_SIRET n’est pas un SIRET valide (clé de contrôle fausse) : vérifiez les 14 chiffres'
              : null;
        if (message) ctx.addIssue({ code: 'custom', message });
      })
      .default('24290031400012'),
  ),
  /** Replaced by OPEN_DATA_SIRET (the open-data schema asks for a SIRET): still set, it stops the start. */
  OPEN_DATA_SIREN: optionalString
    .refine((v) => v === undefined, {
      message: 'OPEN_DATA_SIREN n’est plus lu : donnez le SIRET de 14 chiffres de la collectivité (le SIREN suivi du NIC de l’établissement) dans OPEN_DATA_SIRET, et retirez OPEN_DATA_SIREN',
    })
    .transform((): undefined => undefined),
  /** The map's tiles (/admin/carte): a URL with {z}, {x} and {y}, and the credit shown under the map. */
  MAP_TILES_URL: optionalString.pipe(
    z
      .string()
      .regex(/^https?:\/\/\S+$/, { message: 'MAP_TILES_URL doit être une URL http(s) de tuiles contenant {z}, {x} et {y}' })
      .refine((u) => ['{z}', '{x}', '{y}'].every((p) => u.includes(p)), { message: 'MAP_TILES_URL doit être une URL http(s) de tuiles contenant {z}, {x} et {y}' })
      .default(DEFAULT_TILES_URL),
  ),
  MAP_TILES_ATTRIBUTION: text('MAP_TILES_ATTRIBUTION', '© les contributeurs d’OpenStreetMap', 300),
  /** PEM certificate chain and private key: both set, the server speaks HTTPS itself. */
  TLS_CERT: optionalString,
  TLS_KEY: optionalString,
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends RawConfig {
  dataDir: string;
  publicUrl: string;
  secureCookies: boolean;
  backup: BackupConfig;
  metrics: MetricsConfig;
}

export { ConfigError };

/** The host part of a URL for a listening address: every interface reads as localhost. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Configuration invalide :\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  const dataDir = path.resolve(raw.DATA_DIR);
  if (fs.existsSync(dataDir) && !fs.statSync(dataDir).isDirectory()) {
    throw new ConfigError(`Configuration invalide :\n  DATA_DIR: DATA_DIR doit être un dossier (${dataDir} est un fichier)`);
  }
  if ((raw.TLS_CERT === undefined) !== (raw.TLS_KEY === undefined)) {
    throw new ConfigError('Configuration invalide :\n  TLS_CERT: TLS_CERT et TLS_KEY vont ensemble (le certificat et sa clé privée, fichiers PEM)');
  }
  for (const name of ['TLS_CERT', 'TLS_KEY'] as const) {
    const file = raw[name];
    if (file !== undefined && !fs.existsSync(file)) throw new ConfigError(`Configuration invalide :\n  ${name}: le fichier ${file} est introuvable`);
  }
  // With a certificate the server itself speaks https: the links, the Secure cookie and HSTS follow.
  const scheme = raw.TLS_CERT ? 'https' : 'http';
  const publicUrl = (raw.PUBLIC_URL ?? `${scheme}://${urlHost(raw.HOST)}:${raw.PORT}`).replace(/\/$/, '');
  return {
    ...raw,
    dataDir,
    publicUrl,
    secureCookies: publicUrl.startsWith('https://'),
    backup: parseBackupConfig(env, dataDir),
    metrics: parseMetricsConfig(env),
  };
}
