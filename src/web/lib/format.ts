// How numbers read on screen: French style, a decimal comma and a space between thousands
// (36,5 °C, 1 250 L). Screens only: the CSV files are written by the server, which puts the
// number and its unit in two columns.
//
//   formatNumber(36.5)        // '36,5'
//   formatLitres(1250)        // '1 250 L'
//   formatTemperature(54.5)   // '54,5 °C'
//   frenchValue('54.5 °C')    // '54,5 °C' (a value the server wrote for its tables)
//   monthLabels(true)         // ['Janv.', 'Févr.', 'Mars', …] (charts on a phone)

const formats = new Map<number, Intl.NumberFormat>();

function formatter(maximumFractionDigits: number): Intl.NumberFormat {
  let f = formats.get(maximumFractionDigits);
  if (!f) {
    f = new Intl.NumberFormat('fr-FR', { maximumFractionDigits });
    formats.set(maximumFractionDigits, f);
  }
  return f;
}

/** A number with at most `digits` decimals (1 unless told), trailing zeros dropped. */
export function formatNumber(n: number, digits = 1): string {
  return formatter(digits).format(n);
}

/** A whole count. */
export function formatCount(n: number): string {
  return formatter(0).format(n);
}

/** A volume in litres; the unit stays on the number's line. */
export function formatLitres(n: number): string {
  return `${formatNumber(n)}\u00a0L`;
}

/** A temperature in degrees Celsius. */
export function formatTemperature(n: number): string {
  return `${formatNumber(n)}\u00a0°C`;
}

/**
 * A displayed value of an intervention as the server wrote it for its tables ('54.5 °C',
 * '200.5 L vers le composteur n°3'), with a French decimal comma. Only a number followed by
 * its unit is touched: a constant's label or a free text reads as it was written.
 */
export function frenchValue(value: string): string {
  const m = /^(-?\d+(?:\.\d+)?) (L|°C)(.*)$/.exec(value);
  if (!m) return value;
  const n = Number(m[1]);
  return `${m[2] === 'L' ? formatLitres(n) : formatTemperature(n)}${m[3]}`;
}

const LONG_MONTHS = ['Janvier', 'Février', 'Mars', 'Avril', 'Mai', 'Juin', 'Juillet', 'Août', 'Septembre', 'Octobre', 'Novembre', 'Décembre'] as const;
/** The usual French abbreviations: no two alike (juin and juillet stay apart). */
const SHORT_MONTHS = ['Janv.', 'Févr.', 'Mars', 'Avr.', 'Mai', 'Juin', 'Juil.', 'Août', 'Sept.', 'Oct.', 'Nov.', 'Déc.'] as const;

/** The twelve month names, January first, capitalised; `short` for a narrow chart. */
export function monthLabels(short: boolean): readonly string[] {
  return short ? SHORT_MONTHS : LONG_MONTHS;
}

/** The width under which charts use the short month names (Mantine's `xs`, 576 px). */
export const NARROW_CHART_QUERY = '(max-width: 35.99em)';
