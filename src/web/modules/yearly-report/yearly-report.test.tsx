import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import type { ReportFigures, YearlyReport } from '../../../shared/schemas/yearly-report';
import { yearlyReportRoutes } from './yearly-report.routes';

const zeros = new Array<number>(12).fill(0);
const figures = (f: Partial<ReportFigures>): ReportFigures => ({
  interventions: 0,
  interventionsParMois: zeros,
  parAction: [],
  litres: { apportBroyat: 0, transfert: 0, viderBac: 0, tamisage: 0, distribution: 0 },
  kgTransferes: 0,
  foyers: 0,
  personnes: 0,
  permanences: 0,
  permanencesAnnulees: 0,
  kgDetournes: 0,
  kgEstimes: 0,
  temperatures: { releves: 0, auDessus: 0, auDessous: 0 },
  demandes: { creees: 0, realisees: 0, annulees: 0, enAttente: 0, enRetard: 0, delaiMedianJours: null },
  sitesActifs: 2,
  sitesAvecInterventions: 0,
  referents: 1,
  signalements: 0,
  ...f,
});

const REPORT: YearlyReport = {
  annee: 2025,
  site: null,
  densiteKgParLitre: 0.5,
  temperatureMin: 10,
  temperatureMax: 70,
  ensemble: { ...figures({ signalements: 1234, foyers: 1520, personnes: 3480, permanences: 96, permanencesAnnulees: 4, kgDetournes: 2345.75, kgEstimes: 310.5, kgTransferes: 812 }), litresParMois: { apportBroyat: zeros, transfert: zeros, viderBac: zeros, tamisage: zeros, distribution: zeros } },
  sites: [
    { id: 12, code: 'QUA012', nom: 'Jardin des Capucins', ville: 'Brest', adresse: '4 Rue de Siam', dateImplantation: null, actif: true, figures: figures({ signalements: 3, foyers: 12, permanences: 8, kgDetournes: 96.25, kgEstimes: 16 }) },
    { id: 13, code: 'PIM003', nom: null, ville: 'Guipavas', adresse: 'Rue de Brest', dateImplantation: null, actif: true, figures: figures({}) },
  ],
};

function mockReport() {
  mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN']),
    'GET /api/admin/annee/get/all': reply(200, [{ annee: 2025 }]),
    'GET /api/admin/site/get/all/actif': reply(200, []),
    'GET /api/admin/rapport/get/by/annee': reply(200, REPORT),
  });
  renderApp('/admin/rapport?annee=2025', { loggedRoutes: yearlyReportRoutes });
}

/** The value cell of a figure's row in the table of the given caption. */
async function figure(caption: string, label: string) {
  const table = await screen.findByRole('table', { name: caption }, { timeout: 10_000 });
  return within(within(table).getByRole('rowheader', { name: label }).closest('tr')!).getByRole('cell');
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('yearly report', () => {
  it('shows the public reports of the year for the programme and for each site', async () => {
    mockApi({
      'GET /api/logged': loggedAs(['ROLE_ADMIN']),
      'GET /api/admin/annee/get/all': reply(200, [{ annee: 2025 }]),
      'GET /api/admin/site/get/all/actif': reply(200, []),
      'GET /api/admin/rapport/get/by/annee': reply(200, REPORT),
    });
    renderApp('/admin/rapport?annee=2025', { loggedRoutes: yearlyReportRoutes });
    const row = async (caption: string) => within(await screen.findByRole('table', { name: caption }, { timeout: 10_000 })).getByRole('rowheader', { name: 'Signalements du public' }).closest('tr')!;
    expect(within(await row('Chiffres 2025 : Ensemble du programme')).getByRole('cell')).toHaveTextContent(/^1\s234$/);
    expect(within(await row('Chiffres 2025 : Jardin des Capucins')).getByRole('cell')).toHaveTextContent('3');
    expect(within(await row('Chiffres 2025 : PIM003')).getByRole('cell')).toHaveTextContent('0');
  });

  it('shows the households, the permanences and the kilos diverted, estimates apart, for the programme and each site', async () => {
    mockReport();
    const whole = 'Chiffres 2025 : Ensemble du programme';
    expect(await figure(whole, 'Foyers participants en fin d’année')).toHaveTextContent(/^1\s520$/);
    expect(await figure(whole, 'Personnes dans ces foyers')).toHaveTextContent(/^3\s480$/);
    expect(await figure(whole, 'Permanences tenues')).toHaveTextContent(/^96$/);
    expect(await figure(whole, 'Permanences annulées')).toHaveTextContent(/^4$/);
    expect(await figure(whole, 'Biodéchets détournés aux permanences')).toHaveTextContent(/^2\s345,75\skg$/);
    expect(await figure(whole, 'dont estimés d’après les seaux')).toHaveTextContent(/^310,5\skg$/);
    // The estimate from the litres transferred stays, under its own name.
    expect(await figure(whole, 'Biodéchets détournés (estimation à 0,5 kg/L des litres transférés)')).toHaveTextContent(/^812\skg$/);
    const site = 'Chiffres 2025 : Jardin des Capucins';
    expect(await figure(site, 'Foyers participants en fin d’année')).toHaveTextContent(/^12$/);
    expect(await figure(site, 'Biodéchets détournés aux permanences')).toHaveTextContent(/^96,25\skg$/);
    expect(await figure(site, 'dont estimés d’après les seaux')).toHaveTextContent(/^16\skg$/);
    expect(await figure('Chiffres 2025 : PIM003', 'Permanences tenues')).toHaveTextContent(/^0$/);
  });
});
