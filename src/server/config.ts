// Environment parsed once at start; a bad value stops the process with a clear message.
import path from 'node:path';
import { z } from 'zod';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const territorySchema = z
  .string()
  .regex(/^(\d{9}|(\d{2}|2A|2B|\d{3})(,(\d{2}|2A|2B|\d{3}))*)$/, {
    message: 'TERRITORY doit être un SIREN d’EPCI (9 chiffres) ou des codes de départements séparés par des virgules (ex. 29,56)',
  });

const PORT_MESSAGE = 'PORT doit être un numéro de port entre 0 et 65535';

export const configSchema = z.object({
  PORT: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, { message: PORT_MESSAGE })
      .transform(Number)
      .refine((n) => n <= 65535, { message: PORT_MESSAGE })
      .default(3000),
  ),
  HOST: optionalString.pipe(z.string().default('127.0.0.1')),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalString.pipe(
    z.string().regex(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL doit commencer par postgres:// ou postgresql://' }).optional(),
  ),
  PUBLIC_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, message: 'PUBLIC_URL doit être une URL (ex. https://compost.example.fr)' }).optional(),
  ),
  SMTP_URL: optionalString.pipe(
    z.string().regex(/^smtps?:\/\//, { message: 'SMTP_URL doit commencer par smtp:// ou smtps://' }).optional(),
  ),
  MAIL_FROM: z.string().min(3).default('Compost <no-reply@compost.local>'),
  APP_NAME: z.string().min(1).default('Compost'),
  APP_CONTACT: z.string().default('02 98 00 00 00 - compostage@exemple.fr'),
  TERRITORY: territorySchema.default('242900314'),
  ADMIN_LOGIN: optionalString,
  ADMIN_PASSWORD: optionalString.pipe(z.string().min(8, { message: 'ADMIN_PASSWORD doit faire au moins 8 caractères' }).optional()),
  ADMIN_EMAIL: optionalString.pipe(z.email({ message: 'ADMIN_EMAIL doit être une adresse e-mail' }).optional()),
  DEMO_DATA: z.enum(['0', '1', '']).optional().transform((v) => v === '1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends RawConfig {
  dataDir: string;
  publicUrl: string;
  secureCookies: boolean;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Configuration invalide :\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  const publicUrl = (raw.PUBLIC_URL ?? `http://${raw.HOST === '0.0.0.0' ? 'localhost' : raw.HOST}:${raw.PORT}`).replace(/\/$/, '');
  return {
    ...raw,
    dataDir: path.resolve(raw.DATA_DIR),
    publicUrl,
    secureCookies: publicUrl.startsWith('https://'),
  };
}
