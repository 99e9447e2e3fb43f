import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`configuration accepted: ${JSON.stringify(env)}`);
}

describe('configuration from the environment', () => {
  it('runs with no variable at all: local port 3000, embedded database in ./data, Brest Métropole', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      APP_NAME: 'Compost',
      TERRITORY: '242900314',
      DEMO_DATA: false,
      publicUrl: 'http://127.0.0.1:3000',
      secureCookies: false,
    });
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.SMTP_URL).toBeUndefined();
  });

  it('treats blank values as absent', () => {
    const c = loadConfig({ DATABASE_URL: '', SMTP_URL: '  ', PUBLIC_URL: '', ADMIN_PASSWORD: '' });
    expect([c.DATABASE_URL, c.SMTP_URL, c.ADMIN_PASSWORD]).toEqual([undefined, undefined, undefined]);
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('builds links on localhost when listening on every interface', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
  });

  it('uses an https PUBLIC_URL, without its trailing slash, and then marks cookies Secure', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://compost.exemple.fr/' });
    expect(c.publicUrl).toBe('https://compost.exemple.fr');
    expect(c.secureCookies).toBe(true);
    expect(loadConfig({ PUBLIC_URL: 'http://compost.exemple.fr' }).secureCookies).toBe(false);
  });

  it('accepts a PostgreSQL URL, an SMTP URL, département codes and the demo switch', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://compost@127.0.0.1:5432/compost',
      SMTP_URL: 'smtps://user:pass@smtp.exemple.fr',
      TERRITORY: '29,56,2A',
      DEMO_DATA: '1',
      DATA_DIR: '/var/lib/compost',
    });
    expect(c).toMatchObject({ DATABASE_URL: 'postgres://compost@127.0.0.1:5432/compost', TERRITORY: '29,56,2A', DEMO_DATA: true, dataDir: '/var/lib/compost' });
  });

  it('stops on a bad TERRITORY with a French explanation naming the variable', () => {
    for (const TERRITORY of ['Brest', '2429003', '29;56']) {
      const msg = failure({ TERRITORY });
      expect(msg).toContain('Configuration invalide');
      expect(msg).toContain('TERRITORY doit être un SIREN d’EPCI (9 chiffres) ou des codes de départements séparés par des virgules');
    }
  });

  it('stops on a PUBLIC_URL that is not an address', () => {
    expect(failure({ PUBLIC_URL: 'compost.exemple.fr' })).toContain('PUBLIC_URL doit être une URL (ex. https://compost.example.fr)');
  });

  it('stops on a database or mail URL of the wrong kind', () => {
    expect(failure({ DATABASE_URL: 'mysql://localhost/compost' })).toContain('DATABASE_URL doit commencer par postgres:// ou postgresql://');
    expect(failure({ SMTP_URL: 'http://smtp.exemple.fr' })).toContain('SMTP_URL doit commencer par smtp:// ou smtps://');
  });

  it('stops on a too short ADMIN_PASSWORD or a malformed ADMIN_EMAIL', () => {
    expect(failure({ ADMIN_PASSWORD: 'court' })).toContain('ADMIN_PASSWORD doit faire au moins 8 caractères');
    expect(failure({ ADMIN_EMAIL: 'admin' })).toContain('ADMIN_EMAIL doit être une adresse e-mail');
  });

  it('lists every bad variable at once', () => {
    const msg = failure({ TERRITORY: 'x', PUBLIC_URL: 'y' });
    const lines = msg.split('\n');
    expect(lines[0]).toBe('Configuration invalide :');
    expect(lines.slice(1).map((l) => l.split(':')[0].trim()).sort()).toEqual(['PUBLIC_URL', 'TERRITORY']);
  });

  describe('port and address checks', () => {
    it('stops on a PORT that is not a port number with a French message', () => {
      for (const PORT of ['abc', '70000', '3000.5', '-1']) {
        const msg = failure({ PORT });
        expect(msg).toContain('Configuration invalide');
        expect(msg).toContain('PORT doit être un numéro de port entre 0 et 65535');
      }
    });

    it('reads a blank PORT or HOST as the default, not as port 0 or no address', () => {
      expect(loadConfig({ PORT: '', HOST: ' ' })).toMatchObject({ PORT: 3000, HOST: '127.0.0.1', publicUrl: 'http://127.0.0.1:3000' });
    });

    it('refuses a PUBLIC_URL that is not http or https', () => {
      expect(failure({ PUBLIC_URL: 'ftp://compost.exemple.fr' })).toContain('PUBLIC_URL doit être une URL (ex. https://compost.example.fr)');
    });
  });
});
