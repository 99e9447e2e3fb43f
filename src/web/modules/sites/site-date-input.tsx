// A calendar date typed or picked as dd/MM/yyyy (the French date format); its value is the
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

export function SiteDateInput(props: DateInputProps) {
  // Mantine's clear button is an unnamed icon: name it after the field.
  const name = typeof props.label === 'string' ? `Effacer ${props.label}` : 'Effacer la date';
  return <DateInput valueFormat="DD/MM/YYYY" dateParser={parseFrenchDate} placeholder="jj/mm/aaaa" clearable clearButtonProps={{ 'aria-label': name }} {...props} />;
}
