import fs from 'node:fs';
import os from 'node:os';
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

  it('defaults the statement limit to 15 s, the alerts to 06:30 and the open-data publisher to Brest Métropole', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ DB_STATEMENT_TIMEOUT: 15, ALERTS_AT: '06:30', OPEN_DATA_NAME: 'Brest Métropole', OPEN_DATA_SIRET: '24290031400012' });
    expect(c.TLS_CERT).toBeUndefined();
    expect(loadConfig({ ALERTS_AT: 'off', DB_STATEMENT_TIMEOUT: '30' })).toMatchObject({ ALERTS_AT: 'off', DB_STATEMENT_TIMEOUT: 30 });
  });

  it('stops on a bad statement limit or alerts hour, and on a TLS certificate without its key', () => {
    expect(failure({ DB_STATEMENT_TIMEOUT: '0' })).toContain('DB_STATEMENT_TIMEOUT doit être un nombre de secondes entre 1 et 3600');
    expect(failure({ DB_STATEMENT_TIMEOUT: '1.5' })).toContain('DB_STATEMENT_TIMEOUT doit');
    expect(failure({ ALERTS_AT: '25:00' })).toContain('ALERTS_AT doit être une heure HH:MM');
    expect(failure({ TLS_CERT: 'package.json' })).toContain('TLS_CERT et TLS_KEY vont ensemble');
    expect(failure({ TLS_CERT: '/nonexistent/cert.pem', TLS_KEY: '/nonexistent/key.pem' })).toContain('TLS_CERT: le fichier /nonexistent/cert.pem est introuvable');
  });

  it('takes the open-data SIRET as the registers write it, and stops on a SIREN alone or a wrong check digit', () => {
    expect(loadConfig({ OPEN_DATA_SIRET: ' 242 900 314 00087 ' }).OPEN_DATA_SIRET).toBe('24290031400087');
    // La Poste: its head office passes Luhn, its other establishments add up to a multiple of 5.
    expect(loadConfig({ OPEN_DATA_SIRET: '35600000000048' }).OPEN_DATA_SIRET).toBe('35600000000048');
    expect(loadConfig({ OPEN_DATA_SIRET: '35600000049837' }).OPEN_DATA_SIRET).toBe('35600000049837');
    expect(failure({ OPEN_DATA_SIRET: '242900314' })).toContain(
      'OPEN_DATA_SIRET: OPEN_DATA_SIRET doit être un SIRET de 14 chiffres, pas un SIREN de 9 : ajoutez les 5 chiffres (NIC) de l’établissement qui publie',
    );
    expect(failure({ OPEN_DATA_SIRET: '2429003140001' })).toContain('OPEN_DATA_SIRET doit être un SIRET de 14 chiffres (le SIREN suivi du NIC de l’établissement)');
    expect(failure({ OPEN_DATA_SIRET: '24290031400013' })).toContain('OPEN_DATA_SIRET n’est pas un SIRET valide (clé de contrôle fausse) : vérifiez les 14 chiffres');
    expect(failure({ OPEN_DATA_SIRET: '35600000049838' })).toContain('clé de contrôle fausse');
  });

  it('stops while the old OPEN_DATA_SIREN is set, saying to give the SIRET in OPEN_DATA_SIRET', () => {
    const message =
      'OPEN_DATA_SIREN: OPEN_DATA_SIREN n’est plus lu : donnez le SIRET de 14 chiffres de la collectivité (le SIREN suivi du NIC de l’établissement) dans OPEN_DATA_SIRET, et retirez OPEN_DATA_SIREN';
    expect(failure({ OPEN_DATA_SIREN: '242900314' })).toContain(message);
    expect(failure({ OPEN_DATA_SIREN: '242900314', OPEN_DATA_SIRET: '24290031400012' })).toContain(message);
    expect(loadConfig({ OPEN_DATA_SIREN: ' ' }).OPEN_DATA_SIRET).toBe('24290031400012');
  });

  it('makes the default public address https when the server has a certificate, unless PUBLIC_URL says otherwise', () => {
    const c = loadConfig({ TLS_CERT: 'package.json', TLS_KEY: 'package.json', HOST: '0.0.0.0', PORT: '8443' });
    expect(c).toMatchObject({ publicUrl: 'https://localhost:8443', secureCookies: true });
    expect(loadConfig({ TLS_CERT: 'package.json', TLS_KEY: 'package.json', PUBLIC_URL: 'https://compost.exemple.fr/' }).publicUrl).toBe('https://compost.exemple.fr');
  });

  it('lists every bad variable at once', () => {
    const msg = failure({ TERRITORY: 'x', PUBLIC_URL: 'y' });
    const lines = msg.split('\n');
    expect(lines[0]).toBe('Configuration invalide :');
    expect(lines.slice(1).map((l) => l.split(':')[0].trim()).sort()).toEqual(['PUBLIC_URL', 'TERRITORY']);
  });

  describe('proxies (TRUST_PROXY)', () => {
    it('trusts no proxy by default, nor with 0', () => {
      expect(loadConfig({}).TRUST_PROXY).toBe(false);
      expect(loadConfig({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    });

    it('reads a number of proxies, or a list of addresses and networks', () => {
      expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
      expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback' }).TRUST_PROXY).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
    });

    it('stops on anything else, "true" included (it would let any client choose its address)', () => {
      for (const TRUST_PROXY of ['true', 'oui', '10.0.0.0/33', '10.0.0.1/8/2', 'proxy.local', '300.1.1.1']) {
        expect(failure({ TRUST_PROXY })).toContain('TRUST_PROXY doit être un nombre de proxys devant le serveur (ex. 1) ou une liste d’adresses ou de réseaux de proxys séparés par des virgules');
      }
    });
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

  describe('every other variable', () => {
    it('reads blank values of every variable as their defaults', () => {
      const blank = Object.fromEntries(
        ['PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'PUBLIC_URL', 'SMTP_URL', 'MAIL_FROM', 'APP_NAME', 'APP_CONTACT', 'TERRITORY', 'ADMIN_LOGIN', 'ADMIN_PASSWORD', 'ADMIN_EMAIL', 'DEMO_DATA', 'LOG_LEVEL', 'TRUST_PROXY'].map((k) => [k, ' ']),
      );
      expect(loadConfig(blank)).toEqual(loadConfig({}));
    });

    it('accepts host names and IPv6 addresses, and builds links that work with them', () => {
      expect(loadConfig({ HOST: 'compost.local' }).publicUrl).toBe('http://compost.local:3000');
      expect(loadConfig({ HOST: '::1', PORT: '8080' }).publicUrl).toBe('http://[::1]:8080');
      expect(loadConfig({ HOST: '::' }).publicUrl).toBe('http://localhost:3000');
    });

    it('stops on a HOST that is no address', () => {
      for (const HOST of ['mon serveur', 'http://127.0.0.1', '127.0.0.1:3000/']) {
        expect(failure({ HOST })).toContain('HOST doit être une adresse IP ou un nom d’hôte (ex. 127.0.0.1 ou 0.0.0.0)');
      }
    });

    it('stops on a DATA_DIR that is a file', () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compost-config-')), 'fichier');
      fs.writeFileSync(file, '');
      try {
        expect(failure({ DATA_DIR: file })).toContain(`DATA_DIR doit être un dossier (${file} est un fichier)`);
      } finally {
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
      }
    });

    it('accepts a sender with or without a display name, and stops on anything else', () => {
      expect(loadConfig({ MAIL_FROM: 'Compostage <compost@brest.fr>' }).MAIL_FROM).toBe('Compostage <compost@brest.fr>');
      expect(loadConfig({ MAIL_FROM: 'compost@brest.fr' }).MAIL_FROM).toBe('compost@brest.fr');
      for (const MAIL_FROM of ['Compost', 'Compost <pas-une-adresse>']) {
        expect(failure({ MAIL_FROM })).toContain('MAIL_FROM doit être une adresse e-mail, éventuellement précédée d’un nom');
      }
    });

    it('takes the application name and the contact line as given, on one line', () => {
      expect(loadConfig({ APP_NAME: 'Compost Brest', APP_CONTACT: '06 00 00 00 00' })).toMatchObject({ APP_NAME: 'Compost Brest', APP_CONTACT: '06 00 00 00 00' });
      expect(failure({ APP_NAME: 'Compost\nBrest' })).toContain('APP_NAME doit tenir sur une ligne');
      expect(failure({ APP_NAME: 'x'.repeat(61) })).toContain('APP_NAME doit faire au plus 60 caractères');
      expect(failure({ APP_CONTACT: 'x'.repeat(201) })).toContain('APP_CONTACT doit faire au plus 200 caractères');
    });

    it('stops on an ADMIN_LOGIN that could not be typed as an identifiant', () => {
      expect(loadConfig({ ADMIN_LOGIN: 'chef.compost' }).ADMIN_LOGIN).toBe('chef.compost');
      for (const ADMIN_LOGIN of ['a', 'chef compost', 'élodie']) {
        expect(failure({ ADMIN_LOGIN })).toContain('ADMIN_LOGIN doit faire 2 à 64 caractères');
      }
    });

    it('stops on a DEMO_DATA other than 0 or 1', () => {
      expect(loadConfig({ DEMO_DATA: '0' }).DEMO_DATA).toBe(false);
      for (const DEMO_DATA of ['oui', 'true', '2']) expect(failure({ DEMO_DATA })).toContain('DEMO_DATA doit valoir 1 (programme de démonstration) ou 0');
    });

    it('stops on an unknown LOG_LEVEL', () => {
      expect(loadConfig({ LOG_LEVEL: 'warn' }).LOG_LEVEL).toBe('warn');
      expect(failure({ LOG_LEVEL: 'verbose' })).toContain('LOG_LEVEL doit valoir l’un de : fatal, error, warn, info, debug, trace, silent');
    });

    it('stops on a database or mail URL without anything after the scheme', () => {
      expect(failure({ DATABASE_URL: 'postgres://' })).toContain('DATABASE_URL doit commencer par postgres:// ou postgresql://');
      expect(failure({ SMTP_URL: 'smtp://' })).toContain('SMTP_URL doit commencer par smtp:// ou smtps://');
    });

    it('writes every message of a bad configuration in French, naming its variable', () => {
      const msg = failure({
        PORT: 'x', HOST: 'a b', DATABASE_URL: 'x', PUBLIC_URL: 'x', SMTP_URL: 'x', MAIL_FROM: 'x', APP_NAME: 'a\nb', APP_CONTACT: 'a\nb',
        TERRITORY: 'x', ADMIN_LOGIN: 'x', ADMIN_PASSWORD: 'x', ADMIN_EMAIL: 'x', DEMO_DATA: 'x', LOG_LEVEL: 'x',
      });
      const lines = msg.split('\n').slice(1);
      expect(lines).toHaveLength(14);
      for (const line of lines) {
        const [name, text] = line.trim().split(': ');
        // Each message starts with the variable's name and is not one of zod's English defaults.
        expect(text.startsWith(name), line).toBe(true);
        expect(text, line).toMatch(/ doit /);
      }
    });
  });
});
