// 'Prochaines permanences' on a site's public page: the next three openings the server gives
// (cancelled ones included, marked), in Paris time whatever the phone's zone, and the link
// that adds the site's calendar feed to a phone's agenda. Nothing at all when none is planned.
import type { PublicPermanence } from '../../../shared/schemas/permanences';
import { permanencesFeedUrl } from './public-site.api';

const PARIS = 'Europe/Paris';
const DAY = new Intl.DateTimeFormat('fr-FR', { timeZone: PARIS, weekday: 'long', day: 'numeric', month: 'long' });
const YEAR = new Intl.DateTimeFormat('fr-FR', { timeZone: PARIS, year: 'numeric' });
const TIME = new Intl.DateTimeFormat('fr-FR', { timeZone: PARIS, hour: 'numeric', minute: '2-digit', hourCycle: 'h23' });

/** '17 h', '17 h 30': French typography for an hour of the day, in Paris. */
function hour(date: Date): string {
  const parts = Object.fromEntries(TIME.formatToParts(date).map((p) => [p.type, p.value]));
  const h = String(Number(parts.hour));
  return parts.minute === '00' ? `${h} h` : `${h} h ${parts.minute}`;
}

/** 'samedi 14 mars', with the year when it is not the current one. */
function day(date: Date, now: Date): string {
  const text = DAY.format(date);
  return YEAR.format(date) === YEAR.format(now) ? text : `${text} ${YEAR.format(date)}`;
}

/**
 * 'Samedi 14 mars, de 17 h à 19 h' in Paris time; an opening over midnight names both days
 * ('Samedi 14 mars, 22 h – dimanche 15 mars, 2 h').
 */
export function formatOpening(debut: string, fin: string, now: Date = new Date()): string {
  const start = new Date(debut);
  const end = new Date(fin);
  const startDay = day(start, now);
  const endDay = day(end, now);
  const text = startDay === endDay ? `${startDay}, de ${hour(start)} à ${hour(end)}` : `${startDay}, ${hour(start)} – ${endDay}, ${hour(end)}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `permanences` may be absent: an answer of a server older than the page (during an update) has none. */
export function PublicPermanences({ code, permanences }: { code: string; permanences: readonly PublicPermanence[] | undefined }) {
  if (!permanences || permanences.length === 0) return null;
  return (
    <section className="ps-card" aria-labelledby="ps-openings">
      <h2 id="ps-openings">Prochaines permanences</h2>
      <ul className="ps-openings">
        {permanences.map((p, i) => (
          <li key={`${i}-${p.debut}`} className={p.annulee ? 'ps-cancelled' : undefined}>
            <time dateTime={p.debut}>{formatOpening(p.debut, p.fin)}</time>
            {p.titre && <span className="ps-opening-title"> · {p.titre}</span>}
            {p.annulee && (
              <>
                {' '}
                <strong className="ps-tag">Annulée</strong>
              </>
            )}
          </li>
        ))}
      </ul>
      <a className="ps-link" href={permanencesFeedUrl(code)}>
        Ajouter à mon agenda
      </a>
    </section>
  );
}
