// A calendar date typed or picked as dd/MM/yyyy (spec.md section 9); its value is the
// 'YYYY-MM-DD' string the sites API accepts.
import { DateInput, type DateInputProps } from '@mantine/dates';

/** '05/03/2024' (or 5/3/2024) -> '2024-03-05'; anything else -> null. */
export function parseFrenchDate(input: string): string | null {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(input);
  if (!m) return null;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return `${m[3]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

// Dates are shown as they are in Europe/Paris (reference-data.md), whatever the browser's zone.
const parisDay = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' });
const parisDateTime = new Intl.DateTimeFormat('fr-FR', {
  timeZone: 'Europe/Paris',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

function parisParts(iso: string) {
  return Object.fromEntries(parisDay.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
}

/** An ISO date-time from the API -> the 'YYYY-MM-DD' calendar day it is in Paris. */
export function toDateValue(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const p = parisParts(iso);
  return `${p.year}-${p.month}-${p.day}`;
}

/** An ISO date-time -> 'dd/MM/yyyy' for tables. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const p = parisParts(iso);
  return `${p.day}/${p.month}/${p.year}`;
}

/** An ISO date-time -> 'dd/MM/yyyy HH:mm', 24 h. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const p = Object.fromEntries(parisDateTime.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`;
}

export function SiteDateInput(props: DateInputProps) {
  return <DateInput valueFormat="DD/MM/YYYY" dateParser={parseFrenchDate} placeholder="jj/mm/aaaa" clearable {...props} />;
}
