// The yearly report: the programme's figures (or one site's) and a page of figures per site.
// The programme's monthly series are the statistics dashboard's own (its repository), so the
// report shows the dashboard's numbers; each site's come from the same per-site summary.
import type { Db } from '../../db/client.js';
import { NotFoundError } from '../../errors.js';
import { REPORT_LITRES, type ReportFigures, type ReportLitres, type ReportQuery, type ReportSite, type YearlyReport } from '../../../shared/schemas/yearly-report.js';
import { createStatisticsRepository } from '../statistics/public.js';
import { createYearlyReportRepository, type ActionTotal, type CatalogueAction, type PeopleTotals, type RequestTotals, type TemperatureTotals } from './yearly-report.repository.js';

export const REPORT_MESSAGES = { siteNotFound: 'Site introuvable' } as const;

const zeroLitres = (): Record<ReportLitres, number> => ({ apportBroyat: 0, transfert: 0, viderBac: 0, tamisage: 0, distribution: 0 });
const emptyRequests = { creees: 0, realisees: 0, annulees: 0, enAttente: 0, enRetard: 0, delaiMedianJours: null };
const round1 = (n: number) => Math.round(n * 10) / 10;

function isReportLitres(series: string | null): series is ReportLitres {
  return series !== null && (REPORT_LITRES as readonly string[]).includes(series);
}

/** Counts by action and litres by series of one site's (or the network's) action totals. */
function fromActions(totals: readonly Pick<ActionTotal, 'actionId' | 'nb' | 'litres'>[], catalogue: Map<number, CatalogueAction>) {
  const litres = zeroLitres();
  const byAction = new Map<number, number>();
  for (const t of totals) {
    byAction.set(t.actionId, (byAction.get(t.actionId) ?? 0) + t.nb);
    const series = catalogue.get(t.actionId)?.statsSeries ?? null;
    if (isReportLitres(series)) litres[series] += t.litres;
  }
  const parAction = [...byAction.entries()]
    .filter(([, nb]) => nb > 0)
    .map(([idAction, nb]) => ({ idAction, libelle: catalogue.get(idAction)?.libelle ?? String(idAction), nb }))
    .sort((a, b) => b.nb - a.nb || a.idAction - b.idAction);
  return { litres, parAction };
}

function requestFigures(r: RequestTotals | undefined): ReportFigures['demandes'] {
  if (!r) return { ...emptyRequests };
  return {
    creees: r.creees,
    realisees: r.realisees,
    annulees: r.annulees,
    enAttente: r.enAttente,
    enRetard: r.enRetard,
    delaiMedianJours: r.delaiMedianJours === null ? null : round1(r.delaiMedianJours),
  };
}

/** Kilos keep the tallies' two decimals; sums of floats are rounded back to them. */
const round2 = (n: number) => Math.round(n * 100) / 100;

function peopleFigures(p: PeopleTotals | undefined) {
  return {
    foyers: p?.foyers ?? 0,
    personnes: p?.personnes ?? 0,
    permanences: p?.permanences ?? 0,
    permanencesAnnulees: p?.permanencesAnnulees ?? 0,
    kgDetournes: round2(p?.kgDetournes ?? 0),
    kgEstimes: round2(p?.kgEstimes ?? 0),
  };
}

function temperatureFigures(t: TemperatureTotals | undefined): ReportFigures['temperatures'] {
  return { releves: t?.releves ?? 0, auDessus: t?.auDessus ?? 0, auDessous: t?.auDessous ?? 0 };
}

export function createYearlyReportService(db: Db) {
  const repo = createYearlyReportRepository(db);
  const stats = createStatisticsRepository(db);

  return {
    async report(q: ReportQuery, now: Date): Promise<YearlyReport> {
      const { annee, site } = q;
      const chosen = site === undefined ? null : ((await repo.site(site)) ?? null);
      if (site !== undefined && !chosen) throw new NotFoundError(REPORT_MESSAGES.siteNotFound);
      const thresholds = await repo.thresholds();
      const catalogue = new Map((await repo.catalogue()).map((a) => [a.id, a]));
      const people = await repo.people(annee, now, site);
      const peopleBySite = new Map(people.map((p) => [p.siteId, p]));
      const withPeople = people.flatMap((p) => (p.siteId !== null ? [p.siteId] : []));
      const [sites, actionTotals, monthTotals, temperatures, requests, reports] = [
        await repo.sites(annee, site, withPeople),
        await repo.actionTotals(
          annee,
          [...catalogue.values()].filter((a) => a.litres).map((a) => a.id),
          site,
        ),
        await repo.monthTotals(annee, site),
        await repo.temperatures(annee, thresholds.min, thresholds.max, site),
        await repo.requests(annee, now, site),
        await repo.reports(annee, site),
      ];
      const reportsBySite = new Map(reports.map((r) => [r.siteId, r.nb]));
      const tempBySite = new Map(temperatures.map((t) => [t.siteId, t]));
      const requestsBySite = new Map(requests.map((r) => [r.siteId, r]));

      // The programme (or the chosen site): the dashboard's monthly series.
      const filters = { annee, ...(site === undefined ? {} : { site }) };
      const monthly = await stats.monthlyEverySeries(filters);
      const litresParMois = Object.fromEntries(REPORT_LITRES.map((s) => [s, monthly.get(s)!.map((m) => m.quantite)])) as Record<ReportLitres, number[]>;
      const litres = Object.fromEntries(REPORT_LITRES.map((s) => [s, litresParMois[s].reduce((a, b) => a + b, 0)])) as Record<ReportLitres, number>;
      const interventionsParMois = monthly.get('all')!.map((m) => m.nb);
      const ensembleActions = site === undefined ? (await repo.networkActionTotals(annee)).map((t) => ({ ...t, litres: 0 })) : actionTotals;
      const counts = site === undefined ? await repo.siteCounts(annee) : null;
      const ensemble = {
        interventions: interventionsParMois.reduce((a, b) => a + b, 0),
        interventionsParMois,
        parAction: fromActions(ensembleActions, catalogue).parAction,
        litres,
        litresParMois,
        kgTransferes: round1(litres.transfert * thresholds.densite),
        ...peopleFigures(peopleBySite.get(null)),
        temperatures: temperatureFigures(tempBySite.get(null)),
        demandes: requestFigures(requestsBySite.get(null)),
        sitesActifs: counts ? counts.actifs : sites.filter((s) => s.actif).length,
        sitesAvecInterventions: counts ? counts.avecInterventions : interventionsParMois.some((n) => n > 0) ? 1 : 0,
        referents: await repo.referents(annee, site),
        signalements: reportsBySite.get(null) ?? 0,
      };

      const actionsBySite = new Map<number, ActionTotal[]>();
      for (const t of actionTotals) actionsBySite.set(t.siteId, [...(actionsBySite.get(t.siteId) ?? []), t]);
      const monthsBySite = new Map<number, number[]>();
      for (const m of monthTotals) {
        const months = monthsBySite.get(m.siteId) ?? new Array<number>(12).fill(0);
        months[m.m - 1] += m.nb;
        monthsBySite.set(m.siteId, months);
      }
      const pages: ReportSite[] = sites.map((s) => {
        const { litres: siteLitres, parAction } = fromActions(actionsBySite.get(s.id) ?? [], catalogue);
        const months = monthsBySite.get(s.id) ?? new Array<number>(12).fill(0);
        const interventions = months.reduce((a, b) => a + b, 0);
        return {
          id: s.id,
          code: s.code,
          nom: s.nom,
          ville: s.ville,
          adresse: s.adresse,
          dateImplantation: s.dateImplantation ? s.dateImplantation.toISOString() : null,
          actif: s.actif,
          figures: {
            interventions,
            interventionsParMois: months,
            parAction,
            litres: siteLitres,
            kgTransferes: round1(siteLitres.transfert * thresholds.densite),
            ...peopleFigures(peopleBySite.get(s.id)),
            temperatures: temperatureFigures(tempBySite.get(s.id)),
            demandes: requestFigures(requestsBySite.get(s.id)),
            sitesActifs: s.actif ? 1 : 0,
            sitesAvecInterventions: interventions > 0 ? 1 : 0,
            referents: s.referents,
            signalements: reportsBySite.get(s.id) ?? 0,
          },
        };
      });

      return {
        annee,
        site: chosen ? { id: chosen.id, code: chosen.code, nom: chosen.nom } : null,
        densiteKgParLitre: thresholds.densite,
        temperatureMin: thresholds.min,
        temperatureMax: thresholds.max,
        ensemble,
        sites: pages,
      };
    },

    catalogue() {
      return repo.catalogue();
    },
  };
}
